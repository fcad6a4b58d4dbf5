"""Child processes the way TraceTax runs all of them: each in its own session (so it can be
stopped with everything it spawned), optionally pinned to CPUs in the child before exec (so
every thread it creates inherits the mask), stopped with SIGTERM to the process, a grace
period, SIGKILL to its whole group and a reap.

Processes a measurement starts (service, load generator, stack samplers) are also recorded in
a state file with their start time (`track=`), so whatever an interrupted run left behind can
be reaped at the next start (`reap_leftovers`), never a recycled pid.

The stack supervisor (`make down`) relies on this module: it stays on the standard library,
filelock and psutil (through procfs), nothing of the backend above system/.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from filelock import FileLock

from tracetax.system import procfs
from tracetax.system.paths import state_dir

# How long a recorded leftover gets to exit on SIGTERM before its group is killed.
LEFTOVER_GRACE_S = 2.0


def pin(cpus: set[int] | None) -> Callable[[], None] | None:
    """A preexec_fn that pins the child (and so every thread it will start) to `cpus`."""
    if not cpus:
        return None
    mask = set(cpus)
    return lambda: os.sched_setaffinity(0, mask)


def spawn(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    stdin: int | IO[Any] | None = subprocess.DEVNULL,
    stdout: int | IO[Any] | None = None,
    stderr: int | IO[Any] | None = subprocess.STDOUT,
    cpus: set[int] | None = None,
    track: str | None = None,
) -> subprocess.Popen[bytes]:
    """Start `argv` in a session of its own (its pid is its process group), pinned to `cpus`
    when given. `track` names its role ("service", "load generator", ...) and records it in
    the measurement state file until `stop`/`kill` reaps it. Raises OSError as Popen does."""
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
        # Only sched_setaffinity runs between fork and exec: no locks, no Python threads.
        preexec_fn=pin(cpus),
    )
    if track is not None:
        tracked = registry()
        try:
            tracked.add(process.pid, track, list(argv))
            _tracked[process.pid] = tracked.path
        except OSError:
            pass  # best effort: an unwritable state directory must not leak the process just started
    return process


def stop(process: subprocess.Popen[bytes], grace_s: float, *, term_group: bool = False) -> int:
    """SIGTERM to the process (its whole group with `term_group`), up to `grace_s` for it to
    exit, then SIGKILL to its process group (children, or the process itself), and reap.
    Returns the exit code (negative: killed by that signal)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if term_group:
                os.killpg(process.pid, signal.SIGTERM)
            else:
                os.kill(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=grace_s)
    return kill(process)


def kill(process: subprocess.Popen[bytes]) -> int:
    """SIGKILL the process's whole group at once, reap it, forget its record."""
    # Once the leader has been reaped its pid may be recycled, unless members of its group
    # remain (a pid stays allocated while it is a group id): only then is the group signalled.
    if process.returncode is None or procfs.group_members(process.pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    code = process.wait()
    forget(process)
    return code


def forget(process: subprocess.Popen[bytes]) -> None:
    """Drop the record of a tracked process that has exited and been reaped (idempotent)."""
    path = _tracked.pop(process.pid, None)
    if path is not None:
        with contextlib.suppress(OSError):
            registry(path).remove(process.pid)


def stop_group(pgid: int, grace_s: float, on_kill: Callable[[], None] | None = None, kill_wait_s: float = 5.0) -> bool:
    """Stop a process group that is not our child (so cannot be waited for): SIGTERM to the
    group, poll until it is gone or `grace_s` passed, then SIGKILL (calling `on_kill` first).
    Returns True when the group is gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and procfs.group_alive(pgid):
        time.sleep(0.1)
    if procfs.group_alive(pgid):
        if on_kill is not None:
            on_kill()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        kill_deadline = time.monotonic() + kill_wait_s
        while time.monotonic() < kill_deadline and procfs.group_alive(pgid):
            time.sleep(0.05)
    return not procfs.group_alive(pgid)


# -- the measurement state file --------------------------------------------------------------

# pid -> the state file it was recorded in, for the processes this process started.
_tracked: dict[int, Path] = {}
# One lock for every ProcessRegistry object in this process (the file lock covers the others).
_LOCK = threading.Lock()


def default_registry_path() -> Path:
    # A folder of its own: the supervisor reads every run/*.json as a component's pid file.
    return state_dir() / "run" / "measurement" / "processes.json"


class ProcessRegistry:
    """The processes a measurement started and has not reaped yet, as JSON:
    {"processes": [{"pid", "start_time", "role", "argv", "owner": {"pid", "start_time"}}]}.
    The owner is the engine process that started it: while the owner lives, its records are
    its own business and never reaped."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextlib.contextmanager
    def _locked(self) -> Iterator[list[dict[str, Any]]]:
        """Read-modify-write under a file lock (the backend and `tracetax run` share the file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK, FileLock(self.path.with_suffix(".lock")):
            entries = self._read()
            before = json.dumps(entries)
            yield entries
            if json.dumps(entries) != before:
                self._write(entries)

    def _read(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return []
        entries = data.get("processes") if isinstance(data, dict) else None
        return [entry for entry in entries or [] if isinstance(entry, dict) and "pid" in entry]

    def _write(self, entries: list[dict[str, Any]]) -> None:
        if not entries:
            self.path.unlink(missing_ok=True)
            return
        scratch = self.path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(json.dumps({"processes": entries}, indent=1))
        scratch.replace(self.path)

    def entries(self) -> list[dict[str, Any]]:
        with self._locked() as entries:
            return list(entries)

    def add(self, pid: int, role: str, argv: list[str]) -> None:
        record = {
            "pid": pid,
            "start_time": procfs.start_time(pid),
            "role": role,
            "argv": argv[:8],
            "owner": {"pid": os.getpid(), "start_time": procfs.start_time(os.getpid())},
        }
        with self._locked() as entries:
            entries[:] = [entry for entry in entries if entry["pid"] != pid]
            entries.append(record)

    def remove(self, pid: int) -> None:
        with self._locked() as entries:
            entries[:] = [entry for entry in entries if entry["pid"] != pid or not _is_ours(entry)]

    def reap(self, grace_s: float = LEFTOVER_GRACE_S) -> list[str]:
        """Stop what dead owners left behind; return one line per process group stopped.

        A record is acted on only when its owner is gone. Its group is stopped when the
        recorded pid still has the recorded start time, or when the pid is gone but members of
        its process group remain (a pid stays allocated while it is any process's group id,
        so those are the recorded process's own children, never strangers)."""
        reaped: list[str] = []
        with self._locked() as entries:
            kept = []
            for entry in entries:
                owner = entry.get("owner") or {}
                if owner.get("pid") and procfs.start_time(int(owner["pid"])) == owner.get("start_time"):
                    kept.append(entry)  # its engine is still running: not a leftover
                    continue
                pid = int(entry["pid"])
                current = procfs.start_time(pid)
                if current is not None and current != entry.get("start_time"):
                    continue  # recycled pid: someone else's process now
                if current is None and not procfs.group_members(pid):
                    continue  # gone with its whole group
                stop_group(pid, grace_s)
                command = " ".join(entry.get("argv") or [])[:120]
                reaped.append(f"{entry.get('role', 'process')} pid {pid} (process group {pid}): {command}")
            entries[:] = kept
        return reaped


def _is_ours(entry: dict[str, Any]) -> bool:
    owner = entry.get("owner") or {}
    return owner.get("pid") in (None, os.getpid())


def registry(path: Path | None = None) -> ProcessRegistry:
    """The registry at `path` (default: <state dir>/run/measurement/processes.json)."""
    return ProcessRegistry(path or default_registry_path())


def reap_leftovers(path: Path | None = None, grace_s: float = LEFTOVER_GRACE_S) -> list[str]:
    """Stop the process groups recorded by a measurement whose engine process has died
    (killed backend, killed `tracetax run`); returns what was stopped, one line each. A state
    file that cannot be read or written is left alone (nothing can have been recorded)."""
    try:
        return registry(path).reap(grace_s)
    except OSError:
        return []
