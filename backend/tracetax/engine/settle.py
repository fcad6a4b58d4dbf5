"""The wait after a phase's services have stopped, before the next phase starts.

The span ledger reads the Collector's own counters as deltas over each round's time window
(diagnostics/ledger.py), so what a phase's services sent must be passed on by the Collector,
and counted in a sample of its counters, before the next window opens. Those counters are
sampled every second (the Collector pushes them to the metrics store over OTLP, in every
deployment), and the Collector holds a batch up to 200 ms: SETTLE_S (2.5 s) covers
both with room for one missed sample (`fixed_settle`).

Where the samples can be read as soon as they are taken (natively: Mimir's Prometheus API,
Settings.collector_telemetry_query_url), `until_drained` ends the wait at the first sample
taken after the services stopped that shows everything passed on: typically 0.3 to 1.3 s after
they stopped, and never later than SETTLE_S (the fixed wait is what it falls back on).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from tracetax.spec.service import SETTLE_S

log = logging.getLogger(__name__)

# Given when (unix seconds) the phase's last service exited; returns once the next phase may start.
Settle = Callable[[float], None]
# How often the scraper is asked: a query takes a few milliseconds of the stack's core.
POLL_S = 0.1


def fixed_settle(stopped_at: float) -> None:
    """SETTLE_S after the services stopped."""
    _sleep_until(stopped_at + SETTLE_S, time.time, time.sleep)


def until_drained(
    drained_since: Callable[[float], bool],
    failures: tuple[type[Exception], ...],
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> Settle:
    """A settle that asks `drained_since(stopped_at)` every POLL_S until it says yes, at most
    SETTLE_S after the stop. One of `failures` from it (the scraper down) is logged and the
    fixed wait is kept: the reading's fault must not stop a measurement, nor shorten the wait."""

    def settle(stopped_at: float) -> None:
        deadline = stopped_at + SETTLE_S
        while clock() < deadline:
            try:
                if drained_since(stopped_at):
                    return
            except failures as error:
                log.warning("could not read the Collector's counters to settle: %s; waiting %.1f s", error, SETTLE_S)
                break
            sleep(min(POLL_S, max(0.0, deadline - clock())))
        _sleep_until(deadline, clock, sleep)

    return settle


def _sleep_until(deadline: float, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
    remaining = deadline - clock()
    if remaining > 0:
        sleep(remaining)
