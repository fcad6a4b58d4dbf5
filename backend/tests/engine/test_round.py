"""The one round skeleton and the one phase-hold loop every subject's round runs in."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import tracetax.engine.round as round_module
from tracetax.diagnostics.service_figures import ServiceFigures
from tracetax.engine.round import (
    RoundCancelledError,
    RoundNotStartedError,
    RoundOutcome,
    RoundRun,
    hold_phase,
    run_round,
)


class ServiceDiedError(RuntimeError):
    pass


@dataclass
class ScriptedRound:
    raises: Exception | None = None
    failures: tuple[type[Exception], ...] = (ServiceDiedError,)
    calls: list[str] = field(default_factory=list)

    def phases(self, outcome: RoundOutcome) -> None:
        self.calls.append("phases")
        assert isinstance(outcome.figures, ServiceFigures)
        outcome.figures.requests_total = 7
        if self.raises is not None:
            raise self.raises

    def clean_up(self, outcome: RoundOutcome) -> None:
        self.calls.append(f"clean_up {outcome.status}")


def report(phase: str, seconds: float | None, extra: dict[str, Any]) -> None:
    return None


def test_a_round_runs_in_a_fresh_workdir_and_completes(tmp_path: Path) -> None:
    workdir = tmp_path / "round"
    workdir.mkdir()
    (workdir / "left-over").write_text("")
    run = ScriptedRound()
    outcome = run_round(workdir, report, lambda: run, ServiceFigures())
    assert outcome.status == "completed" and outcome.figures == ServiceFigures(requests_total=7)
    assert run.calls == ["phases", "clean_up completed"]
    assert list(workdir.iterdir()) == []


@pytest.mark.parametrize(
    ("raised", "status", "error"),
    [
        (RoundCancelledError(), "cancelled", "cancelled"),
        (ServiceDiedError("the service exited"), "failed", "the service exited"),
    ],
)
def test_a_stopped_or_failed_round_is_cleaned_up(tmp_path: Path, raised: Exception, status: str, error: str) -> None:
    run = ScriptedRound(raises=raised)
    outcome = run_round(tmp_path / "round", report, lambda: run, ServiceFigures())
    assert (outcome.status, outcome.error) == (status, error)
    assert run.calls == ["phases", f"clean_up {status}"]


def test_an_unexpected_error_is_raised_after_the_clean_up(tmp_path: Path) -> None:
    run = ScriptedRound(raises=KeyError("bug"))
    with pytest.raises(KeyError):
        run_round(tmp_path / "round", report, lambda: run, ServiceFigures())
    assert run.calls == ["phases", "clean_up failed"]


def test_a_round_that_cannot_begin_fails_with_its_reason_alone(tmp_path: Path) -> None:
    def begin() -> RoundRun:
        raise RoundNotStartedError("port 8080 is already in use")

    outcome = run_round(tmp_path / "round", report, begin, ServiceFigures())
    # Its figures are the subject's, empty: it measured nothing.
    assert outcome == RoundOutcome(status="failed", error="port 8080 is already in use", figures=ServiceFigures())


def test_a_phase_is_held_for_its_seconds_reporting_progress() -> None:
    events: list[tuple[str, float | None, dict[str, Any]]] = []
    hold_phase(
        threading.Event(),
        lambda *event: events.append(event),
        "warmup",
        0.2,
        watch=lambda _elapsed: None,
        live=lambda: {"current_rps": 1.0},
    )
    assert events and all(phase == "warmup" and seconds == 0.2 for phase, seconds, _ in events)
    assert events[0][2]["current_rps"] == 1.0 and "phase_elapsed_s" in events[0][2]


def test_a_phase_ends_when_its_load_has_ended() -> None:
    polls = iter([False, False, True])
    hold_phase(threading.Event(), report, "measuring", 60, watch=lambda _elapsed: None, until=lambda _e: next(polls))


class VirtualClock:
    """time.monotonic and time.sleep for hold_phase, on a clock that moves only when slept."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


def test_a_phase_ends_with_its_load_not_a_step_later(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = VirtualClock()
    monkeypatch.setattr(round_module, "time", clock)
    events: list[tuple[str, float | None, dict[str, Any]]] = []
    # A 2 s phase whose load generator exits 0.12 s after its time is up.
    hold_phase(
        threading.Event(),
        lambda *event: events.append(event),
        "measuring",
        2,
        watch=lambda _elapsed: None,
        until=lambda elapsed: elapsed >= 2.12,
    )
    # Whole seconds up to the phase's time, then 50 ms looks: over 0.15 s after, not 0.5.
    assert clock.sleeps == [1.0, 1.0, 0.05, 0.05, 0.05], clock.sleeps
    # Progress about once a second, not at every look.
    assert [event[2]["phase_elapsed_s"] for event in events] == [0.0, 1.0, 2.0]


def test_a_cancelled_or_failing_phase_stops_its_load_first() -> None:
    stopped: list[str] = []
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RoundCancelledError):
        hold_phase(cancel, report, "measuring", 5, watch=lambda _e: None, stop=lambda: stopped.append("cancel"))

    def died(_elapsed: float) -> None:
        raise ServiceDiedError("exited with code 1 during measuring")

    with pytest.raises(ServiceDiedError):
        hold_phase(threading.Event(), report, "measuring", 5, watch=died, stop=lambda: stopped.append("died"))
    assert stopped == ["cancel", "died"]
