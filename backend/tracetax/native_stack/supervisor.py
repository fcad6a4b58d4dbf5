"""Start, watch and stop the native stack as local processes under one state directory.

Layout of the state directory:
    run/<component>.json   pid, process start time and argv of a running component
    run/<component>.lock   held while it is started or stopped (`up`, the watcher, `down`)
    logs/<component>.log   its stdout and stderr
    data/<component>/      its data (kept by `down`, wiped by `clean`)
    stack-watch.json       restarts and last exit of each component (watch.py)

`up` ends by starting the watcher (watch.py: run/watcher.json, logs/watcher.log), which starts
again a component that exits; `down` stops it before anything else.

Each component runs in its own session (process group), so `down` stops it with everything
it spawned and nothing outlives it. A pid file is trusted only if the pid still belongs to
the same process (its start time matches), so a recycled pid is never signalled. Every
component is pinned to the stack's cores (tracetax/system/placement.py) in the child before
exec, so none of its threads ever runs on the cores kept for the measured service.
Only the standard library is used (procfs, processes and placement are standard-library
only too): `make down` must work even if the backend's environment is broken.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tracetax.core.urls import redact_url
from tracetax.native_stack import watch
from tracetax.native_stack.components import Component
from tracetax.system import processes, procfs
from tracetax.system.placement import PlacementError, stack_cpus_from_environment

Report = Callable[[str], None]
STOP_GRACE_S = 20.0


class StackError(RuntimeError):
    """Starting the stack failed; the message names the component, the cause and its log."""


@dataclass
class ComponentStatus:
    name: str
    url: str
    ready: bool
    detail: str = ""
    log: Path | None = None
    # Seconds from the start of waiting until ready (None when not ready or not measured).
    ready_after_s: float | None = None
    # The watcher's restarts and last exit of it, in words ("" when no watcher ever ran).
    restarts: str = ""


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def _port_owner(port: int) -> str:
    """Best effort 'pid 123 (name)' of whoever listens on `port`, for the error message."""
    ss = shutil.which("ss")
    if ss is None:
        return "another process"
    result = subprocess.run([ss, "-Hltnp", f"sport = :{port}"], capture_output=True, text=True, check=False)
    line = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
    marker = 'users:(("'
    if marker in line:
        name, _, rest = line.split(marker, 1)[1].partition('"')
        pid = rest.split("pid=", 1)[1].split(",", 1)[0] if "pid=" in rest else "?"
        return f"pid {pid} ({name})"
    return "another process"


def http_ready(url: str, timeout_s: float = 2.0) -> tuple[bool, str]:
    """GET `url`; ready means HTTP 200. Returns (ready, short reason)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:  # noqa: S310 - loopback URLs we built
            return response.status == 200, f"HTTP {response.status}"
    except urllib.error.HTTPError as error:
        body = error.read(200).decode(errors="replace").strip().replace("\n", " ")
        return False, f"HTTP {error.code} {body}".strip()
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return False, str(reason)


def _tail(path: Path, lines: int = 8) -> str:
    try:
        content = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(f"    | {line}" for line in content[-lines:])


class Supervisor:
    def __init__(
        self,
        state: Path,
        stack: Iterable[Component],
        report: Report = print,
        cpus: set[int] | None = None,
        watcher_argv: tuple[str, ...] | None = None,
    ) -> None:
        self.state = state
        self.stack = tuple(stack)
        self.report = report
        # What `up` starts last to restart a component that exits (None: no watcher).
        self.watcher_argv = watcher_argv
        # The processes this object started, by component: how one ended is known only to its parent.
        self.spawned: dict[str, subprocess.Popen[bytes]] = {}
        # The stack's cores; None: from the placement rule for this machine (and its
        # TRACETAX_SERVICE_CPUS / TRACETAX_LOADGEN_CPUS), read when a component starts.
        self.cpus = cpus
        self.run_dir = state / "run"
        self.log_dir = state / "logs"
        self.data_dir = state / "data"

    # -- pid files -------------------------------------------------------------------------

    def _pid_file(self, name: str) -> Path:
        return self.run_dir / f"{name}.json"

    def log_file(self, name: str) -> Path:
        return self.log_dir / f"{name}.log"

    @contextlib.contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        """One starter or stopper of `name` at a time, across processes (`up`, the watcher, `down`,
        a test): the second finds it running, or gone, instead of racing for its ports."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with (self.run_dir / f"{name}.lock").open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
            yield

    def running_pid(self, name: str) -> int | None:
        """The pid of `name` if the process we started is still alive, else None."""
        pid_file = self._pid_file(name)
        try:
            record = json.loads(pid_file.read_text())
        except (OSError, ValueError):
            return None
        pid = int(record["pid"])
        if procfs.start_time(pid) != record.get("start_time"):
            return None
        return pid

    # -- start -----------------------------------------------------------------------------

    def _check_ports(self, component: Component) -> None:
        for port in component.ports:
            if not port_is_free(port):
                raise StackError(
                    f"{component.name}: port {port} is already in use by {_port_owner(port)}. "
                    f"Stop that process or move {component.name} to another port "
                    f"(see the TRACETAX_PORT_* variables in README.md)."
                )

    def _check_binary(self, component: Component) -> None:
        executable = component.argv[0]
        if os.sep in executable and not os.access(executable, os.X_OK):
            raise StackError(
                f"{component.name}: binary {executable} is missing; run `make up` "
                "(it builds it) or `uv run tracetax stack build`."
            )

    def _stack_cpus(self) -> set[int] | None:
        if self.cpus is not None:
            return self.cpus
        try:
            return stack_cpus_from_environment()
        except PlacementError as error:
            raise StackError(f"cannot place the stack on this machine's cores: {error}") from None

    def start(self, component: Component) -> int:
        with self._locked(component.name):
            existing = self.running_pid(component.name)
            if existing is not None:
                return existing
            self._check_binary(component)
            cpus = self._stack_cpus()
            self._check_ports(component)
            for folder in (self.run_dir, self.log_dir, self.data_dir):
                folder.mkdir(parents=True, exist_ok=True)
            if component.data_subdir:
                (self.data_dir / component.data_subdir).mkdir(parents=True, exist_ok=True)
            for path, text in component.files.items():
                path.write_text(text)
            return self._spawn(component.name, component.argv, {**os.environ, **component.env}, cpus)

    def _spawn(self, name: str, argv: tuple[str, ...], env: dict[str, str], cpus: set[int] | None) -> int:
        """Start `argv` in its own process group (`down` stops it and its children) on the
        stack's cores, logging to logs/<name>.log, and write its pid file."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with self.log_file(name).open("ab") as out:
            out.write(f"\n--- {time.strftime('%Y-%m-%dT%H:%M:%S')} starting {' '.join(argv)}\n".encode())
            out.flush()
            process = processes.spawn(argv, env=env, stdout=out, cwd=self.state, cpus=cpus)
        self.spawned[name] = process
        record = {"pid": process.pid, "start_time": procfs.start_time(process.pid), "argv": list(argv)}
        self._pid_file(name).write_text(json.dumps(record))
        return process.pid

    # -- the watcher -----------------------------------------------------------------------

    def start_watcher(self) -> int | None:
        """Start the watcher (watch.py) unless it runs; None when this stack has none."""
        if self.watcher_argv is None:
            return None
        with self._locked(watch.WATCHER):
            existing = self.running_pid(watch.WATCHER)
            if existing is not None:
                return existing
            return self._spawn(watch.WATCHER, self.watcher_argv, dict(os.environ), self._stack_cpus())

    def stop_watcher(self) -> None:
        """Stop the watcher: nothing restarts a component until `start_watcher`."""
        self._stop_one(watch.WATCHER)

    def keep_up(self, stop: threading.Event) -> None:
        """The watcher's loop (`tracetax stack watch`): start again what exits until `stop`."""
        by_name = {component.name: component for component in self.stack}
        watcher = watch.Watcher(
            names=tuple(by_name),
            alive=lambda name: self.running_pid(name) is not None,
            exit_of=self._exit_of,
            start=lambda name: self.start(by_name[name]),
            log=self.report,
        )
        watch.run(watcher, self.state, stop)

    def _exit_of(self, name: str) -> str | None:
        """How `name` ended, when this object started it (and so can reap it); else None."""
        process = self.spawned.pop(name, None)
        if process is None:
            return None
        try:
            return watch.describe_exit(process.wait(timeout=5))
        except subprocess.TimeoutExpired:  # its pid file says gone, the process does not: unknown
            return None

    def supervision(self) -> watch.Supervision | None:
        return watch.read_supervision(self.state)

    def wait_ready(self, component: Component) -> ComponentStatus:
        log = self.log_file(component.name)
        waited_from = time.monotonic()
        deadline = waited_from + component.start_timeout_s
        delay = 0.1
        reason = "not started"
        while time.monotonic() < deadline:
            if self.running_pid(component.name) is None:
                return ComponentStatus(
                    component.name, component.url, False, f"exited during start-up\n{_tail(log)}", log
                )
            ready, reason = http_ready(component.ready_url)
            if ready:
                return ComponentStatus(
                    component.name, component.url, True, ready_after_s=time.monotonic() - waited_from
                )
            time.sleep(delay)
            delay = min(delay * 1.5, 1.0)
        return ComponentStatus(
            component.name,
            component.url,
            False,
            f"not ready after {component.start_timeout_s:.0f}s at {component.ready_url}: {reason}\n{_tail(log)}",
            log,
        )

    def up(self) -> list[ComponentStatus]:
        """Start every component, wait until each is ready, return the status table's rows.

        On any failure everything is stopped again (including what was already running)
        and StackError is raised carrying the table.
        """
        statuses: list[ComponentStatus] = []
        try:
            for component in self.stack:
                self.report(f"  starting {component.name}")
                self.start(component)
            with ThreadPoolExecutor(max_workers=len(self.stack)) as pool:
                statuses = list(pool.map(self.wait_ready, self.stack))
            if all(status.ready for status in statuses) and self.watcher_argv is not None:
                self.report("  starting the watcher (it starts again a component that exits)")
                self.start_watcher()
        except StackError as error:
            self.down()
            raise StackError(str(error)) from None
        except BaseException:
            self.down()
            raise
        if not all(status.ready for status in statuses):
            self.down()
            raise StackError(format_table(statuses))
        return statuses

    # -- stop ------------------------------------------------------------------------------

    def stop_grace_s(self, name: str) -> float:
        """How long `name` gets between SIGTERM and SIGKILL: its own grace (the backend's
        exceeds its graceful shutdown), else STOP_GRACE_S (also for a pid file of a component
        no longer in the stack)."""
        component = self._component(name)
        if component is None or component.stop_grace_s is None:
            return STOP_GRACE_S
        return component.stop_grace_s

    def _component(self, name: str) -> Component | None:
        """The stack's component of that name (None: a pid file left by one no longer in it)."""
        return next((c for c in self.stack if c.name == name), None)

    def _stop_one(self, name: str) -> None:
        with self._locked(name):
            pid = self.running_pid(name)
            pid_file = self._pid_file(name)
            if pid is not None:
                grace = self.stop_grace_s(name)
                processes.stop_group(pid, grace, lambda: self.report(self._kill_message(name, grace)))
            pid_file.unlink(missing_ok=True)
        process = self.spawned.pop(name, None)
        if process is not None:
            process.poll()  # reap it: this object started it

    def _kill_message(self, name: str, grace: float) -> str:
        """What `down` says when it kills `name`, with why when that is known to be harmless."""
        component = self._component(name)
        why = f" ({component.known_stop_hang})" if component is not None and component.known_stop_hang else ""
        return f"  {name} did not stop within {grace:.0f}s: killing it{why}"

    def down(self) -> None:
        """Stop the watcher, then every component, last started first; data stays."""
        self.stop_watcher()  # first: it would start again what is stopped next
        names = [component.name for component in reversed(self.stack)]
        # Pid files of components no longer in the stack definition are stopped too.
        if self.run_dir.exists():
            names += [p.stem for p in self.run_dir.glob("*.json") if p.stem not in names]
        for name in names:
            self._stop_one(name)

    def clean(self) -> None:
        self.down()
        shutil.rmtree(self.state, ignore_errors=True)

    # -- status ----------------------------------------------------------------------------

    def status(self) -> list[ComponentStatus]:
        supervision = self.supervision()
        rows = []
        for component in self.stack:
            restarts = ""
            if supervision is not None:
                restarts = watch.summary(supervision.components.get(component.name, {}), supervision.watching)
            if self.running_pid(component.name) is None:
                rows.append(
                    ComponentStatus(
                        component.name,
                        component.url,
                        False,
                        "not running",
                        self.log_file(component.name),
                        restarts=restarts,
                    )
                )
                continue
            ready, reason = http_ready(component.ready_url)
            rows.append(
                ComponentStatus(
                    component.name,
                    component.url,
                    ready,
                    "" if ready else reason,
                    self.log_file(component.name),
                    restarts=restarts,
                )
            )
        return rows

    def watcher_line(self) -> str:
        """Whether anything starts again a component that exits, for `stack status`."""
        pid = self.running_pid(watch.WATCHER)
        if pid is not None:
            log = self.log_file(watch.WATCHER)
            return f"watcher: running (pid {pid}): a component that exits is started again (log: {log})"
        return "watcher: NOT running: a component that exits stays down until `make up`"


def format_table(rows: list[ComponentStatus]) -> str:
    header = ("component", "url", "status", "log / detail")
    body = []
    for row in rows:
        note = ""
        if not row.ready:
            first_line = row.detail.splitlines()[0] if row.detail else ""
            note = f"{row.log}  ({first_line})" if row.log else first_line
        state = "ready" if row.ready else "FAILED"
        if row.ready and row.ready_after_s is not None:
            note = f"ready after {row.ready_after_s:.1f}s"
        if row.restarts:
            note = f"{note}  [{row.restarts}]" if note else row.restarts
        body.append((row.name, redact_url(row.url), state, note))
    widths = [max(len(str(line[i])) for line in (header, *body)) for i in range(3)]
    lines = []
    for line in (header, *body):
        lines.append("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(line[:3])) + "  " + str(line[3]))
    details = [f"\n{row.name}: {row.detail}" for row in rows if not row.ready and "\n" in row.detail]
    return "\n".join(lines).rstrip() + "".join(details)
