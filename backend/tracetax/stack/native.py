"""The native stack as one object: build what is missing, start, report, stop.

Used by `tracetax stack ...` (and so by `make up` / `make down`) and by the test suite's
session fixture, so tests run against exactly what users run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tracetax.stack.build import Report, build_all
from tracetax.stack.components import Component, Ports, components, state_dir
from tracetax.stack.supervisor import ComponentStatus, Supervisor


def backend_argv(ports: Ports) -> tuple[str, ...]:
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
    )


class NativeStack:
    def __init__(self, state: Path | None = None, ports: Ports | None = None, report: Report = print) -> None:
        self.state = state or state_dir()
        self.ports = ports or Ports.from_env()
        self.report = report
        self.components: tuple[Component, ...] = components(self.ports, self.state, backend_argv(self.ports))
        self.supervisor = Supervisor(self.state, self.components, report)

    def build(self, force: bool = False) -> None:
        self.report("Building what is missing (cached under the tool cache):")
        build_all(self.report, force=force)

    def up(self) -> list[ComponentStatus]:
        started = time.monotonic()
        self.build()
        self.report(f"Starting the stack (state: {self.state}):")
        statuses = self.supervisor.up()
        self.report(f"all ready in {time.monotonic() - started:.1f}s")
        return statuses

    def down(self) -> None:
        self.supervisor.down()

    def clean(self) -> None:
        self.supervisor.clean()

    def status(self) -> list[ComponentStatus]:
        return self.supervisor.status()

    def component(self, name: str) -> Component:
        return next(c for c in self.components if c.name == name)
