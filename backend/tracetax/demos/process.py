"""Run one service process: start it with a clean environment, wait for health, stop it
gracefully (so its SDK flushes) and record how it exited.

The engine (and the demo services' tests) go through this module; nothing here uses a shell.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from tracetax.system import processes
from tracetax.system.ports import listening_ports

# Inherited from the parent environment; everything else (OTEL_*, TRACETAX_*) is set explicitly
# so a developer's shell cannot leak configuration into a measurement.
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "JAVA_HOME", "TMPDIR", "USER")


class ServiceError(RuntimeError):
    """The service did not start, or did not become healthy; carries its last log lines."""


class ServiceProcess:
    def __init__(
        self,
        argv: list[str],
        *,
        cwd: Path,
        env: dict[str, str],
        port: int,
        log_path: Path,
        health_path: str = "/healthz",
        name: str = "service",
        cpus: set[int] | None = None,
        track: str | None = "service",
    ) -> None:
        self.argv = argv
        self.cwd = cwd
        self.env = {key: os.environ[key] for key in INHERITED if key in os.environ} | env
        self.port = port
        self.log_path = log_path
        self.health_url = f"http://127.0.0.1:{port}{health_path}"
        self.name = name
        # CPU placement, applied in the child before exec so every thread it creates inherits it.
        self.cpus = cpus
        # Recorded in the measurement state file while it runs (None: not recorded), so a
        # killed engine's service is reaped at the next start.
        self.track = track
        self.process: subprocess.Popen[bytes] | None = None
        self.exit_code: int | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        if self.process is None:
            raise ServiceError(f"{self.name} was never started")
        return self.process.pid

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            try:
                self.process = processes.spawn(
                    self.argv, cwd=self.cwd, env=self.env, stdout=log, cpus=self.cpus, track=self.track
                )
            except OSError as error:
                raise ServiceError(f"{self.name}: cannot start {self.argv[0]}: {error}") from error

    def wait_healthy(self, timeout_s: float = 60.0) -> dict[str, object]:
        """Poll the health URL until 200; return its JSON body (or {})."""
        deadline = time.monotonic() + timeout_s
        reason = "no answer"
        while time.monotonic() < deadline:
            code = self.poll()
            if code is not None:
                raise ServiceError(f"{self.name} exited with code {code} before it was healthy\n{self.last_lines()}")
            try:
                response = httpx.get(self.health_url, timeout=1.0)
                if response.status_code == 200:
                    try:
                        body: dict[str, object] = response.json()
                    except ValueError:
                        body = {}
                    return body
                reason = f"HTTP {response.status_code}"
            except httpx.HTTPError as error:
                reason = type(error).__name__
            time.sleep(0.1)
        elsewhere = sorted(listening_ports(self.pid) - {self.port}) if self.process is not None else []
        self.stop(grace_s=2)
        cause = (
            f": it listens on port {', '.join(map(str, elsewhere))}, not on the declared port {self.port}"
            if elsewhere
            else ""
        )
        raise ServiceError(
            f"{self.name} was not healthy at {self.health_url} within {timeout_s:.0f}s ({reason}){cause}"
            f"\n{self.last_lines()}"
        )

    def poll(self) -> int | None:
        if self.process is None:
            return None
        code = self.process.poll()
        if code is not None:
            self.exit_code = code
        return code

    def stop(self, grace_s: float = 15.0) -> int | None:
        """SIGTERM, wait up to `grace_s` for a graceful exit (SDK flush), then SIGKILL the group.
        Returns the exit code (negative: killed by that signal)."""
        if self.process is None:
            return None
        # Whatever is left of its process group (children, or the service itself) goes too.
        self.exit_code = processes.stop(self.process, grace_s)
        return self.exit_code

    def last_lines(self, count: int = 20) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()[-count:]
        except OSError:
            return ""
        return "\n".join(f"    | {line}" for line in lines)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
