"""A service's figures of one round, typed (`rounds.figures`, engine/figures.py says how they
are stored): what its open-model, closed-loop and side-by-side phases measured.

The service's round (subjects/service) writes them; they sit here, below it, because the
service's diagnostics (report.py, cost_report.py) and its aggregation read them. A subject
whose diagnostics are its own keeps its figures in its own folder."""

from __future__ import annotations

from typing import Any

from tracetax.engine.figures import Figures, stored_or_none
from tracetax.system.stored_json import Number


class ServiceOpenPhase(Figures):
    """The measured open-model phase, as the load driver (oha) summarised it."""

    requests: int | None = None
    achieved_rps: Number | None = None
    errors: int = 0
    # {percentiles_us: {"99": µs, ...}, ...}
    summary: dict[str, Any] | None = None

    def p99_us(self) -> Any:
        return (self.summary or {}).get("percentiles_us", {}).get("99")


class ServiceClosedPhase(Figures):
    """The closed-loop phase: the highest throughput found and what limited it."""

    # service, load generator, stack, none or unknown (with `why` and the utilisations).
    limited_by: str | None = None


class ServiceSideBySide(Figures):
    """This configuration in its round's side-by-side phase: every configuration of the round
    live at once on the service cores, each under its own load (subjects/service/side_by_side.py).
    CPU per request, RSS and p50 are paired from here (docs/diagnostics.md); tails never are."""

    requests: int | None = None
    # Its live instances in the phase (load.side_by_side_instances), each under its own load at
    # the spec's rate; the figures below pool them.
    instances: int = 1
    # The rates its (first instance's) load was asked for, in the phase's halves: the spec's, a
    # step apart from the neighbours' so that their request schedules slide past one another,
    # swapped at half time (engine/rate_schedules.py, staggered).
    rates_rps: list[Number] | None = None
    achieved_rps: Number | None = None
    errors: int = 0
    # The phase's latencies, encoded like the round's own histogram.
    histogram: str | None = None
    p50_us: Number | None = None
    p99_us: Number | None = None
    # CPU of the process tree in the phase (per-thread run time from schedstat), per request.
    cpu_s: Number | None = None
    cpu_per_request_us: Number | None = None
    cpu_source: str | None = None
    rss_max_bytes: Number | None = None
    # The phase's busy shares of the service cores and of the load generator's (0-1).
    utilisation: dict[str, Any] | None = None
    # Too busy for its latencies to be paired (queueing behind a neighbour): p50 then comes from
    # the round's solo phases, for every configuration of that round alike. Configurations that
    # took unlike shares of the core are judged per pair instead (diagnostics/overhead.py).
    latency_flagged: bool = False
    note: str | None = None
    # Why this configuration has no side-by-side figures in this round (the phase failed).
    error: str | None = None


class ServiceFigures(Figures):
    """A service's round: its measured phase, its maximum throughput and every request it answered."""

    # Every request the service answered successfully in this round (warm-up, measured,
    # stacks and closed-loop phases): what the span ledger expects telemetry for.
    requests_total: int = 0
    open_phase: ServiceOpenPhase | None = None
    # A float, as the column it was kept in before read it back.
    max_throughput_rps: float | None = None
    closed_phase: ServiceClosedPhase | None = None
    side_by_side: ServiceSideBySide | None = None

    def limited_by(self) -> str | None:
        return self.closed_phase.limited_by if self.closed_phase is not None else None


# -- The round answer's keys, as they were before the figures had a column of their own ------------


def service_phases(figures: ServiceFigures | None) -> dict[str, Any]:
    """open_phase, closed_phase, max_throughput_rps and requests_total of a service's round."""
    if figures is None:
        return {"open_phase": None, "closed_phase": None, "max_throughput_rps": None, "requests_total": None}
    return {
        "open_phase": stored_or_none(figures.open_phase),
        "closed_phase": stored_or_none(figures.closed_phase),
        "max_throughput_rps": figures.max_throughput_rps,
        "requests_total": figures.requests_total,
    }
