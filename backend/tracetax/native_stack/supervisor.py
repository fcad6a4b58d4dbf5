"""Start, watch and stop the native stack as local processes under one state directory.

Layout of the state directory:
    run/<component>.json   pid, process start time and argv of a running component
    logs/<component>.log   its stdout and stderr
    data/<component>/      its data (kept by `down`, wiped by `clean`)

Each component runs in its own session (process group), so `down` stops it with everything
it spawned and nothing outlives it. A pid file is trusted only if the pid still belongs to
the same process (its start time matches), so a recycled pid is never signalled. Every
component is pinned to the stack's cores (tracetax/system/placement.py) in the child before
exec, so none of its threads ever runs on the cores kept for the measured service.
Only the standard library is used (procfs, processes and placement are standard-library
only too): `make down` must work even if the backend's environment is broken.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tracetax.core.urls import redact_url
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
        self, state: Path, stack: Iterable[Component], report: Report = print, cpus: set[int] | None = None
    ) -> None:
        self.state = state
        self.stack = tuple(stack)
        self.report = report
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
        log = self.log_file(component.name)
        with log.open("ab") as out:
            out.write(f"\n--- {time.strftime('%Y-%m-%dT%H:%M:%S')} starting {' '.join(component.argv)}\n".encode())
            out.flush()
            # Own process group (`down` stops it and its children), on the stack's cores.
            process = processes.spawn(
                component.argv, env={**os.environ, **component.env}, stdout=out, cwd=self.state, cpus=cpus
            )
        record = {"pid": process.pid, "start_time": procfs.start_time(process.pid), "argv": list(component.argv)}
        self._pid_file(component.name).write_text(json.dumps(record))
        return process.pid

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
        pid = self.running_pid(name)
        pid_file = self._pid_file(name)
        if pid is not None:
            grace = self.stop_grace_s(name)
            processes.stop_group(pid, grace, lambda: self.report(self._kill_message(name, grace)))
        pid_file.unlink(missing_ok=True)

    def _kill_message(self, name: str, grace: float) -> str:
        """What `down` says when it kills `name`, with why when that is known to be harmless."""
        component = self._component(name)
        why = f" ({component.known_stop_hang})" if component is not None and component.known_stop_hang else ""
        return f"  {name} did not stop within {grace:.0f}s: killing it{why}"

    def down(self) -> None:
        """Stop every component, last started first; data stays."""
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
        rows = []
        for component in self.stack:
            if self.running_pid(component.name) is None:
                rows.append(
                    ComponentStatus(component.name, component.url, False, "not running", self.log_file(component.name))
                )
                continue
            ready, reason = http_ready(component.ready_url)
            rows.append(
                ComponentStatus(
                    component.name, component.url, ready, "" if ready else reason, self.log_file(component.name)
                )
            )
        return rows


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
        body.append((row.name, redact_url(row.url), state, note))
    widths = [max(len(str(line[i])) for line in (header, *body)) for i in range(3)]
    lines = []
    for line in (header, *body):
        lines.append("  ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(line[:3])) + "  " + str(line[3]))
    details = [f"\n{row.name}: {row.detail}" for row in rows if not row.ready and "\n" in row.detail]
    return "\n".join(lines).rstrip() + "".join(details)
