"""The native stack as one object: build what is missing, start, report, stop.

Used by `tracetax stack ...` (and so by `make up` / `make down`) and by the test suite's
session fixture, so tests run against exactly what users run.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from pathlib import Path
from urllib.parse import quote

from tracetax.clients.prometheus import PrometheusClient
from tracetax.core.api_token import TOKEN_FILE_NAME, TOKEN_FILE_SETTING, read_or_create_token_file, read_token_file
from tracetax.core.config import get_settings
from tracetax.core.security import TOKEN_SETTING
from tracetax.native_stack.build import Report, build_all
from tracetax.native_stack.components import Component, Ports, components
from tracetax.native_stack.supervisor import ComponentStatus, Supervisor
from tracetax.system.paths import state_dir


def backend_argv(ports: Ports, shutdown_grace_s: float) -> tuple[str, ...]:
    """The backend runs from the same interpreter (and so the same environment) as the CLI."""
    return (
        sys.executable,
        "-m",
        "uvicorn",
        "tracetax.main:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(ports.backend),
        "--no-access-log",
        # Open connections get this long once `make down` stops it (event streams end at once).
        "--timeout-graceful-shutdown",
        str(math.ceil(shutdown_grace_s)),
    )


def watcher_argv(state: Path) -> tuple[str, ...]:
    """The watcher (`tracetax stack watch`): the same interpreter, and so environment, as the CLI."""
    return (sys.executable, "-m", "tracetax.cli", "stack", "watch", "--state-dir", str(state))


class NativeStack:
    def __init__(self, state: Path | None = None, ports: Ports | None = None, report: Report = print) -> None:
        self.state = state or state_dir()
        self.ports = ports or Ports.from_env()
        self.report = report
        # The stack's backend keeps its generated token here (unless TRACETAX_API_TOKEN is set),
        # named explicitly so that the backend, the link `up` prints and the CLI agree on it.
        configured = os.environ.get(TOKEN_FILE_SETTING, "").strip()
        self.token_file = Path(configured).expanduser() if configured else self.state / TOKEN_FILE_NAME
        # The backend's graceful shutdown, for its uvicorn and for how long `down` waits on it.
        shutdown_grace_s = get_settings().shutdown_grace_s
        stack = components(
            self.ports,
            self.state,
            backend_argv(self.ports, shutdown_grace_s),
            backend_shutdown_grace_s=shutdown_grace_s,
        )
        self.components: tuple[Component, ...] = tuple(
            dataclasses.replace(c, env={**c.env, TOKEN_FILE_SETTING: str(self.token_file)})
            if c.name == "backend"
            else c
            for c in stack
        )
        self.supervisor = Supervisor(self.state, self.components, report, watcher_argv=watcher_argv(self.state))

    def build(self, force: bool = False) -> None:
        self.report("Building what is missing (cached under the tool cache):")
        build_all(self.report, force=force)

    def up(self) -> list[ComponentStatus]:
        started = time.monotonic()
        self.build()
        self.report(f"Starting the stack (state: {self.state}):")
        self.login_token(create=True)  # before the backend starts: it reads the same file
        statuses = self.supervisor.up()
        self.report(f"all ready in {time.monotonic() - started:.1f}s")
        return statuses

    def login_token(self, *, create: bool = False) -> str | None:
        """The token the stack's backend requires: TRACETAX_API_TOKEN when set (the backend
        inherits this environment), else the one generated into the token file (None when
        there is none yet and `create` is False)."""
        operator = os.environ.get(TOKEN_SETTING, "").strip()
        if operator:
            return operator
        if create:
            return read_or_create_token_file(self.token_file)
        try:
            return read_token_file(self.token_file)
        except FileNotFoundError:
            return None

    def ui_link(self) -> str | None:
        """The UI's URL with the token, a link that logs in (the UI keeps the token for the tab
        and removes it from the address bar), the way notebook servers print theirs."""
        token = self.login_token()
        backend = self.component("backend").url
        return f"{backend}/?token={quote(token, safe='')}" if token else None

    def down(self) -> None:
        self.supervisor.down()

    def clean(self) -> None:
        self.supervisor.clean()

    def status(self) -> list[ComponentStatus]:
        return self.supervisor.status()

    def component(self, name: str) -> Component:
        return next(c for c in self.components if c.name == name)

    def metrics_client(self) -> PrometheusClient:
        """A client of the stack's metrics store (Mimir) as the stack's backend reads it."""
        env = self.component("backend").env
        return PrometheusClient(
            env["TRACETAX_METRICS_URL"],
            path_prefix=env["TRACETAX_METRICS_PATH_PREFIX"],
            ready_path=env["TRACETAX_METRICS_READY_PATH"],
        )
