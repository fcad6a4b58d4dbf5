"""`make down` waits for the backend's graceful shutdown: the supervisor gives the backend its
TRACETAX_SHUTDOWN_GRACE_S plus a margin before SIGKILL, Tempo its shorter grace (it hangs on
SIGTERM once it has answered a query), other components the usual grace. No process is started:
the stop itself is recorded."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tracetax.core.config import get_settings
from tracetax.native_stack.components import (
    BACKEND_STOP_MARGIN_S,
    TEMPO_STOP_GRACE_S,
    TEMPO_STOP_HANG,
    Component,
    Ports,
    components,
)
from tracetax.native_stack.native import NativeStack
from tracetax.native_stack.supervisor import STOP_GRACE_S, Supervisor


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_the_backend_waits_longer_than_its_shutdown_grace() -> None:
    stack = {c.name: c for c in components(Ports(), Path("/state"), ("backend",), backend_shutdown_grace_s=20)}
    assert stack["backend"].stop_grace_s == 20 + BACKEND_STOP_MARGIN_S
    assert BACKEND_STOP_MARGIN_S >= 10
    assert stack["tempo"].stop_grace_s == TEMPO_STOP_GRACE_S < STOP_GRACE_S
    assert all(c.stop_grace_s is None for name, c in stack.items() if name not in ("backend", "tempo"))


def test_the_native_stack_reads_the_grace_from_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_SHUTDOWN_GRACE_S", "45")
    stack = NativeStack(state=tmp_path / "state", report=lambda _: None)
    backend = stack.component("backend")
    assert stack.supervisor.stop_grace_s("backend") == 45 + BACKEND_STOP_MARGIN_S
    # The backend's own uvicorn gets the grace itself, the supervisor more.
    assert backend.argv[backend.argv.index("--timeout-graceful-shutdown") + 1] == "45"
    assert stack.supervisor.stop_grace_s("collector") == STOP_GRACE_S
    assert stack.supervisor.stop_grace_s("a-component-no-longer-in-the-stack") == STOP_GRACE_S


def test_down_gives_each_component_its_grace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stack = components(Ports(), tmp_path, ("backend",), backend_shutdown_grace_s=30)
    supervisor = Supervisor(tmp_path, stack, report=lambda _: None)
    pids = {component.name: 1000 + index for index, component in enumerate(stack)}
    names = {pid: name for name, pid in pids.items()}
    monkeypatch.setattr(supervisor, "running_pid", pids.get)
    stopped: list[tuple[str, float]] = []

    def stop_group(pid: int, grace_s: float, on_kill: Callable[[], None] | None = None) -> bool:
        stopped.append((names[pid], grace_s))
        return True

    monkeypatch.setattr("tracetax.system.processes.stop_group", stop_group)
    supervisor.down()
    # The backend first (last started), given its graceful shutdown and the margin.
    assert stopped[0] == ("backend", 30 + BACKEND_STOP_MARGIN_S)
    assert dict(stopped)["tempo"] == TEMPO_STOP_GRACE_S
    assert {grace for name, grace in stopped[1:] if name != "tempo"} == {STOP_GRACE_S}


def test_a_component_may_set_its_own_grace(tmp_path: Path) -> None:
    quick = Component(name="quick", url="", ready_url="", argv=("quick",), ports=(), stop_grace_s=2.5)
    assert Supervisor(tmp_path, [quick], report=lambda _: None).stop_grace_s("quick") == 2.5


def test_a_kill_that_is_known_to_be_harmless_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stack = components(Ports(), tmp_path, ("backend",), backend_shutdown_grace_s=30)
    said: list[str] = []
    supervisor = Supervisor(tmp_path, stack, report=said.append)
    monkeypatch.setattr(supervisor, "running_pid", {"tempo": 1001, "loki": 1002}.get)

    def stop_group(pid: int, grace_s: float, on_kill: Callable[[], None] | None = None) -> bool:
        assert on_kill is not None
        on_kill()  # as if neither had stopped within its grace
        return True

    monkeypatch.setattr("tracetax.system.processes.stop_group", stop_group)
    supervisor.down()
    assert f"  tempo did not stop within 3s: killing it ({TEMPO_STOP_HANG})" in said
    assert "  loki did not stop within 20s: killing it" in said
