"""Each subject's figures of one round, typed: what its phases measured, stored as one JSON
column (`rounds.figures`, migration 0009) instead of columns one subject named and the other
overloaded (a pipeline's ledger in `open_phase`, its ramp in `closed_phase`, its span rate in
`max_throughput_rps`, its spans in `requests_total`).

They sit in the engine, below the subjects that write them, because the engine's aggregation
and the diagnostics read them. The engine itself never picks one: a subject's round hands its
empty figures to the round skeleton, and each reader knows which subject's rounds it reads.

The models describe the stored JSON and keep it as it is: phases keep keys they do not declare
(`extra="allow"`), numbers stay int or float as written, and `stored()` writes only the fields
a round set, so that a figure read back and written again is the same JSON."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict

# An int stays an int and a float a float: a figure answers as it was measured.
Number = int | float
NumberT = TypeVar("NumberT", int, float)


def known_sum(values: Iterable[NumberT | None]) -> NumberT | None:
    """The sum of figures that add up to one (parts, instances, rounds); unknown when any part
    is unknown, never the sum of the known ones as if the missing one were 0."""
    parts = list(values)
    if any(part is None for part in parts):
        return None
    return sum(part for part in parts if part is not None)


class Figures(BaseModel):
    """What every subject's figures share: they round-trip their stored JSON unchanged."""

    model_config = ConfigDict(extra="allow")

    def stored(self) -> dict[str, Any]:
        """The JSON the column keeps: the fields that were set, nested ones too, as values the
        column serializes itself (as it did the dicts before: a float stays what json writes)."""
        return self.model_dump(exclude_unset=True)

    @classmethod
    def of(cls, stored: dict[str, Any] | None) -> Self | None:
        """The figures of a stored round; None for a round that never ran."""
        return cls.model_validate(stored) if stored is not None else None


def _stored_or_none(figures: Figures | None) -> dict[str, Any] | None:
    return figures.stored() if figures is not None else None


# -- A service under HTTP load (subjects/service) -------------------------------------------------


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


# -- A Collector pipeline under span load (subjects/collector) ------------------------------------


class PipelineWindow(Figures):
    """A pipeline's measured window: what telemetrygen sent, the lab Collector's telemetry and
    the span ledger read from it."""

    # telemetrygen's result and whether it saturated or stopped flushing.
    generator: dict[str, Any] | None = None
    window_s: Number | None = None
    telemetry: dict[str, Any] | None = None
    ledger: dict[str, Any] | None = None


class PipelineRamp(Figures):
    """A pipeline's ramp: steps of rising rate until one is not kept up with."""

    ramp: list[dict[str, Any]] = []
    max_sustainable_spans_per_s: Number | None = None
    limited_by: str | None = None
    why: str | None = None


class PipelineSideBySide(Figures):
    """This variant in its round's side-by-side phase: every variant's lab Collector live at once
    on the lab core, each fed by its own telemetrygen at the spec's rate
    (subjects/collector/side_by_side.py). Cores per 10k spans/s and peak RSS are paired from
    here (docs/diagnostics.md); lost spans and the ramp never are (a neighbour's queueing would
    bias them)."""

    # Spans the lab Collector's receiver accepted between the window's two counter readings,
    # and over how many seconds.
    spans_accepted: Number | None = None
    spans_window_s: Number | None = None
    # The lab Collector's CPU over the window (per-thread run time from schedstat).
    cpu_s: Number | None = None
    cpu_source: str | None = None
    cpu_cores: Number | None = None
    spans_per_s: Number | None = None
    cores_per_10k_spans_s: Number | None = None
    rss_max_bytes: Number | None = None
    # telemetrygen's result over its whole run (warm-up and window) and whether it saturated.
    generator: dict[str, Any] | None = None
    # The phase's busy shares of the lab core and of the load generator's (0-1), and each
    # variant's own share of a core.
    utilisation: dict[str, Any] | None = None
    note: str | None = None
    # Why this variant has no side-by-side figures in this round (the phase failed).
    error: str | None = None


class CollectorFigures(Figures):
    """A pipeline's round: its measured window and, when the spec asked for one, its ramp."""

    # Every span telemetrygen sent in this round (the measured window and the ramp's steps;
    # never the side-by-side phase's, whose spans carry their own run id).
    spans_total: int = 0
    measured: PipelineWindow | None = None
    ramp: PipelineRamp | None = None
    side_by_side: PipelineSideBySide | None = None

    def max_sustainable_spans_per_s(self) -> float | None:
        """The ramp's highest sustainable rate, a float (as the column it was copied into before
        read it back); None without a ramp."""
        rate = self.ramp.max_sustainable_spans_per_s if self.ramp is not None else None
        return float(rate) if rate is not None else None

    def limited_by(self) -> str | None:
        return self.ramp.limited_by if self.ramp is not None else None


# -- The round answer's keys, as they were before the figures had a column of their own ------------


def service_phases(figures: ServiceFigures | None) -> dict[str, Any]:
    """open_phase, closed_phase, max_throughput_rps and requests_total of a service's round."""
    if figures is None:
        return {"open_phase": None, "closed_phase": None, "max_throughput_rps": None, "requests_total": None}
    return {
        "open_phase": _stored_or_none(figures.open_phase),
        "closed_phase": _stored_or_none(figures.closed_phase),
        "max_throughput_rps": figures.max_throughput_rps,
        "requests_total": figures.requests_total,
    }


def collector_phases(figures: CollectorFigures | None) -> dict[str, Any]:
    """The same keys for a pipeline's round: its window in open_phase, its ramp in closed_phase."""
    if figures is None:
        return {"open_phase": None, "closed_phase": None, "max_throughput_rps": None, "requests_total": None}
    return {
        "open_phase": _stored_or_none(figures.measured),
        "closed_phase": _stored_or_none(figures.ramp),
        "max_throughput_rps": figures.max_sustainable_spans_per_s(),
        "requests_total": figures.spans_total,
    }
