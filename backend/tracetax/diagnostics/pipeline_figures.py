"""A Collector pipeline's figures of one round, typed (`rounds.figures`, engine/figures.py says
how they are stored): its measured window, its ramp and its side-by-side phase.

The pipeline's round (subjects/collector) writes them; they sit here, below it, because the
pipeline's diagnostics (pipeline.py) and its aggregation read them."""

from __future__ import annotations

from typing import Any

from tracetax.engine.figures import Figures, stored_or_none
from tracetax.lab.ledger import PipelineLedger
from tracetax.lab.ramp import RampStep
from tracetax.system.stored_json import Number


class PipelineWindow(Figures):
    """A pipeline's measured window: what telemetrygen sent, the lab Collector's telemetry and
    the span ledger read from it."""

    # telemetrygen's result and whether it saturated or stopped flushing.
    generator: dict[str, Any] | None = None
    window_s: Number | None = None
    telemetry: dict[str, Any] | None = None
    # Where the round's spans went, as tracetax.lab.ledger builds it.
    ledger: PipelineLedger | None = None


class PipelineRamp(Figures):
    """A pipeline's ramp: steps of rising rate until one is not kept up with."""

    ramp: list[RampStep] = []  # noqa: RUF012 - a pydantic field (Figures is a model)
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


# -- The round answer's keys, as a service's round has them (its window, its ramp) ----------------


def collector_phases(figures: CollectorFigures | None) -> dict[str, Any]:
    """The same keys for a pipeline's round: its window in open_phase, its ramp in closed_phase."""
    if figures is None:
        return {"open_phase": None, "closed_phase": None, "max_throughput_rps": None, "requests_total": None}
    return {
        "open_phase": stored_or_none(figures.measured),
        "closed_phase": stored_or_none(figures.ramp),
        "max_throughput_rps": figures.max_sustainable_spans_per_s(),
        "requests_total": figures.spans_total,
    }
