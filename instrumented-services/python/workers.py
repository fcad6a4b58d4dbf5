"""TRACETAX_WORKERS=N > 1: N worker processes serve one port, each with an OpenTelemetry SDK of its own.

The top process (the supervisor) binds the port, forks the N workers and then only waits: it
never imports OpenTelemetry nor runs an event loop, so nothing of either is inherited across the
fork. Each worker runs `main.serve` on the shared listening socket (the kernel hands each new
connection to one of them): it builds its own SDK, whose resource gets a `service.instance.id`
of its own ("<service.name>-worker-<index>-<pid>", added to OTEL_RESOURCE_ATTRIBUTES), so that
the cumulative counters every worker exports stay separate series.

Stopping: SIGTERM or SIGINT to the supervisor is passed on to every worker as SIGTERM; each stops
accepting, finishes its in-flight requests and shuts its SDK down exactly as the single process
does (main.GRACEFUL_S, then main.OTEL_SHUTDOWN_S). The supervisor exits 0 once every worker has
exited 0; a worker still running after STOP_S is killed and the exit code is 1. A worker that
exits on its own (it crashed, e.g. at start) stops the others and the supervisor exits 1, saying
which worker and how on stderr. A worker whose supervisor dies gets SIGTERM from the kernel
(PR_SET_PDEATHSIG), so no worker outlives it.

The supervisor keeps SIGTERM, SIGINT and SIGCHLD blocked and takes them with sigtimedwait: no
handler races, no polling. A worker is forked with them blocked and unblocks them only once its
handlers are installed (`Slot.unblock_signals`), so a stop never gets lost in between.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

import config

# The supervisor's own main thread: it only waits (never a request thread).
SUPERVISOR_THREAD = "workers-supervisor"
# Passed on to each worker: its graceful stop (3 s) plus its SDK shutdown (6 s), and some slack.
STOP_S = 11.0
# Pending connections on the shared socket (uvicorn's default backlog).
BACKLOG = 2048
WATCHED = {signal.SIGTERM, signal.SIGINT, signal.SIGCHLD}
_PR_SET_PDEATHSIG = 1
NAME = config.DEFAULT_SERVICE_NAME


@dataclass(frozen=True)
class Slot:
    """What a worker process is handed: its index, the listening socket, the signal mask to restore."""

    index: int
    sock: socket.socket
    signal_mask: frozenset[int]

    def unblock_signals(self) -> None:
        """Restore the mask the supervisor had before it blocked WATCHED (call once the handlers are in)."""
        signal.pthread_sigmask(signal.SIG_SETMASK, self.signal_mask)


Serve = Callable[[config.Config, Slot], int]


def _stderr(message: str) -> None:
    print(f"{NAME}: {message}", file=sys.stderr, flush=True)


def _listen(port: int) -> socket.socket:
    """The shared listening socket, bound as uvicorn binds its own (SO_REUSEADDR, all interfaces)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("0.0.0.0", port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


def _die_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGTERM when its parent (the supervisor) dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl(PR_SET_PDEATHSIG): {os.strerror(errno)}")
    if os.getppid() != parent:  # it died before the prctl: nobody would ever stop us
        raise SystemExit(1)


def _worker(cfg: config.Config, serve: Serve, slot: Slot, parent: int) -> NoReturn:
    """The forked child: serve, then leave without ever returning into the supervisor's code."""
    code = 1
    try:
        _die_with_parent(parent)
        code = serve(cfg, slot)
    except SystemExit as stop:  # uvicorn exits this way when its startup fails
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # noqa: BLE001 - reported, then the process ends
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _signal_all(workers: dict[int, int], signum: int) -> None:
    for pid in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def supervise(cfg: config.Config, serve: Serve) -> int:
    """Bind the port, fork cfg.workers workers running `serve`, wait for a stop; return the exit code."""
    try:
        sock = _listen(cfg.port)
    except OSError as err:
        _stderr(f"cannot listen on 0.0.0.0:{cfg.port}: {err.strerror or err}")
        return 1

    mask = frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED))
    parent = os.getpid()
    workers: dict[int, int] = {}  # pid -> index
    failed = False
    stop_at: float | None = None

    def stop(reason: str | None) -> None:
        nonlocal failed, stop_at
        if reason is not None:
            _stderr(reason)
            failed = True
        if stop_at is None:
            stop_at = time.monotonic() + STOP_S
            _signal_all(workers, signal.SIGTERM)

    sys.stdout.flush()
    sys.stderr.flush()
    for index in range(cfg.workers):
        try:
            pid = os.fork()
        except OSError as err:
            stop(f"cannot start worker {index}: {err}")
            break
        if pid == 0:
            _worker(cfg, serve, Slot(index, sock, mask), parent)
        workers[pid] = index
    sock.close()  # the workers hold it: once they have all closed it, the port is closed
    threading.current_thread().name = SUPERVISOR_THREAD
    if stop_at is None:
        print(
            f"{NAME}: listening on 0.0.0.0:{cfg.port} processor={cfg.processor}"
            f" inject_busy_us={cfg.inject_busy_us} workers={cfg.workers}"
            f" (pids {' '.join(str(pid) for pid in workers)})",
            flush=True,
        )

    while workers:
        timeout = 60.0 if stop_at is None else max(0.0, stop_at - time.monotonic())
        info = signal.sigtimedwait(WATCHED, timeout)
        if info is not None and info.si_signo in (signal.SIGTERM, signal.SIGINT):
            stop(None)
        while workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                workers.clear()
                break
            if pid == 0:
                break
            index = workers.pop(pid, None)
            if index is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
            if stop_at is None:
                stop(f"worker {index} (pid {pid}) {how} before any stop was asked: stopping the others")
            elif code != 0:
                stop(f"worker {index} (pid {pid}) {how}")
        if workers and stop_at is not None and time.monotonic() >= stop_at:
            left = " ".join(str(index) for index in sorted(workers.values()))
            stop(f"worker(s) {left} still running {STOP_S:.0f}s after the stop: killed")
            _signal_all(workers, signal.SIGKILL)
            for pid in list(workers):
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
            workers.clear()

    print(f"{NAME}: stopped", flush=True)
    return 1 if failed else 0
