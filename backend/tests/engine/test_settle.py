"""The wait after a phase's services stop: ended by the Collector's counters where they can be
read, never later than the fixed SETTLE_S, and the fixed wait when they cannot be read."""

from __future__ import annotations

import logging

import pytest

from tracetax.clients.base import BackendError
from tracetax.engine.settle import POLL_S, until_drained
from tracetax.spec.service import SETTLE_S

STOPPED_AT = 1_000.0


class Clock:
    """A fake wall clock that only `sleep` moves."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.now += seconds


def asked_until(answers: list[bool | Exception], clock: Clock) -> list[float]:
    """Run a settle whose reading gives `answers` in turn (the last one from then on); the
    moments it was asked at, relative to the stop."""
    asked: list[float] = []

    def drained_since(stopped_at: float) -> bool:
        assert stopped_at == STOPPED_AT
        asked.append(round(clock() - STOPPED_AT, 3))
        answer = answers[min(len(asked), len(answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    until_drained(drained_since, (BackendError,), clock=clock, sleep=clock.sleep)(STOPPED_AT)
    return asked


def test_it_ends_at_the_first_reading_that_says_drained() -> None:
    clock = Clock(STOPPED_AT + 0.01)
    asked = asked_until([False, False, True], clock)
    assert len(asked) == 3
    assert clock() == pytest.approx(STOPPED_AT + 0.01 + 2 * POLL_S)


def test_never_drained_waits_the_fixed_settle_and_no_longer() -> None:
    clock = Clock(STOPPED_AT)
    asked = asked_until([False], clock)
    assert clock() == pytest.approx(STOPPED_AT + SETTLE_S)
    assert len(asked) == pytest.approx(SETTLE_S / POLL_S, abs=1)


def test_a_reading_that_fails_keeps_the_fixed_settle(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock(STOPPED_AT)
    with caplog.at_level(logging.WARNING):
        asked = asked_until([BackendError("metrics store", "a query", "connection refused")], clock)
    assert asked == [0.0]
    assert clock() == pytest.approx(STOPPED_AT + SETTLE_S)
    assert "connection refused" in caplog.text


def test_a_stop_long_past_is_not_waited_for() -> None:
    clock = Clock(STOPPED_AT + SETTLE_S + 5)
    assert asked_until([False], clock) == []
    assert clock() == STOPPED_AT + SETTLE_S + 5
