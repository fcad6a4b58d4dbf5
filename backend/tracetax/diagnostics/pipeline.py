"""Diagnostics of a Collector pipeline experiment: what each variant costs against the
baseline pipeline (cores per 10k spans/s, cores, memory, lost spans) with the same paired
per-round statistics and Holm correction as a service's overhead, the noise floor, the
ledger of every round, and the rounds that cannot be trusted (interference on the lab
Collector's cores, a load telemetrygen could not deliver). Knows nothing of HTTP.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel
from sqlalchemy.orm import Session

from tracetax.clients.readback import RunReadback
from tracetax.db import repository as repo
from tracetax.db.models import Experiment, LedgerReading, Round
from tracetax.diagnostics.base import ExperimentDiagnostics
from tracetax.diagnostics.overhead import (
    PIPELINE_METRICS,
    RoundSample,
    compare,
    noise_floor,
)
from tracetax.diagnostics.pipeline_figures import CollectorFigures, PipelineSideBySide, PipelineWindow
from tracetax.diagnostics.pipeline_recommend import PipelineRecommendation, recommend_pipeline
from tracetax.diagnostics.pipeline_traces import StoredTraces, round_traces
from tracetax.diagnostics.rounds import (
    SideBySideUse,
    completed_by_end,
    flagged_rounds,
    paired_rounds,
    round_label,
    settle,
    stack_down_rounds,
)
from tracetax.lab.ledger import PipelineLedger
from tracetax.spec.collector import PipelineSpec

# The metrics that come from what reached Tempo rather than from the round's own record.
STORED_METRICS = ("delay_p50_us", "delay_p99_us")
# The figures the side-by-side phase gives (every variant's lab Collector live at once on the
# lab core); lost spans, delays and the ramp come from each variant alone, where no neighbour's
# queueing biases them.
PIPELINE_SIDE_BY_SIDE_METRICS = ("cores_per_10k_spans_s", "rss_max_bytes")
# Where they are paired from: each round's side-by-side phase (the default), or the variants'
# solo windows (as before the phase; the solo figures stay in the aggregates either way).
Design = Literal["side_by_side", "solo"]


class SpanDelay(BaseModel):
    """A variant's delay from a span's end in telemetrygen to its arrival downstream, medians
    over the rounds that measured it (None: no round did)."""

    p50_us: float | None
    p99_us: float | None
    rounds: int


class PipelineRoundLedger(BaseModel):
    configuration: str
    round: int
    run_id: str
    # generated -> receiver -> processors -> exporter -> downstream (see tracetax.lab.ledger)
    ledger: PipelineLedger
    # What reached Tempo, read after the run (pipeline_traces.py): stored spans, complete
    # traces, traces whole on one downstream. None until collected; {"error": ...} when Tempo
    # did not answer.
    stored: StoredTraces | None = None


class PipelineDiagnostics(ExperimentDiagnostics):
    """A Collector pipeline experiment's diagnostics: what every subject's have, and its saturated
    rounds, span ledger, span delay and sizing recommendation."""

    subject: Literal["collector"] = "collector"
    # Rounds where telemetrygen delivered under 95% of the asked rate: the rate is the
    # generator's limit there, never the Collector's.
    saturated_rounds: list[str]
    ledger: list[PipelineRoundLedger]
    # Span end to arrival downstream per variant, from the Tempo read-back.
    span_delay: dict[str, SpanDelay]
    # Sizing for a span rate (by default the measured one), batch settings, trace holding.
    recommendation: PipelineRecommendation


def _window(round_: Round) -> PipelineWindow:
    """The round's measured window (empty for a round that never measured one)."""
    figures = CollectorFigures.of(round_.figures)
    return figures.measured if figures is not None and figures.measured is not None else PipelineWindow()


def _ledger(round_: Round) -> PipelineLedger:
    return _window(round_).ledger or {}


def _side_by_side(round_: Round) -> PipelineSideBySide | None:
    """The round's side-by-side figures when the phase measured them (None: it failed or did not run)."""
    figures = CollectorFigures.of(round_.figures)
    side = figures.side_by_side if figures is not None else None
    return side if side is not None and side.error is None and side.cores_per_10k_spans_s is not None else None


def _sample(round_: Round, stored: StoredTraces | None, side: PipelineSideBySide | None = None) -> RoundSample:
    resources = round_.resources or {}
    ledger = _ledger(round_)
    values = {name: resources.get(name) for name in PIPELINE_METRICS if name not in ("lost_spans", *STORED_METRICS)}
    if side is not None:
        values.update({name: getattr(side, name) for name in PIPELINE_SIDE_BY_SIDE_METRICS})
    values["lost_spans"] = ledger.get("lost")
    for name in STORED_METRICS:
        values[name] = (stored or {}).get(name)
    return RoundSample(round_index=round_.round_index, values=values)


def stored_by_run(readings: Sequence[LedgerReading]) -> dict[str, StoredTraces | None]:
    return {reading.run_id: reading.ledger.get("stored") for reading in readings}


def pipeline_samples(
    experiment: Experiment,
    spec: PipelineSpec,
    readings: Sequence[LedgerReading] = (),
    design: Design = "side_by_side",
) -> dict[str, list[RoundSample]]:
    """Each variant's completed rounds as the paired statistics need them: cores per 10k spans/s
    and peak RSS from the side-by-side phase where every variant of the round measured it
    (`design="side_by_side"`), else from the solo window."""
    stored = stored_by_run(readings)
    completed = [r for r in experiment.rounds if r.status == "completed"]
    paired = paired_rounds(completed, lambda r: _side_by_side(r) is not None) if design == "side_by_side" else set()
    return {
        c.name: [
            _sample(r, stored.get(r.run_id), _side_by_side(r) if r.round_index in paired else None)
            for r in completed
            if r.configuration == c.name
        ]
        for c in spec.configurations
    }


def pipeline_side_by_side_use(completed: list[Round]) -> SideBySideUse | None:
    """Which rounds' cores per 10k spans/s and peak RSS were paired side by side; None without the phase."""
    if not any((f := CollectorFigures.of(r.figures)) is not None and f.side_by_side is not None for r in completed):
        return None
    paired = paired_rounds(completed, lambda r: _side_by_side(r) is not None)
    return SideBySideUse(
        metrics=list(PIPELINE_SIDE_BY_SIDE_METRICS),
        rounds=sorted(i + 1 for i in paired),
        latency_rounds=[],
        note="cores per 10k spans/s and peak RSS are paired from each round's side-by-side phase (every variant's "
        "lab Collector live at once on the lab core, each under its own telemetrygen); lost spans, span delay and "
        "the ramp from each variant alone",
    )


def span_delay(samples: Sequence[RoundSample]) -> SpanDelay:
    def median(name: str) -> float | None:
        values = [v for s in samples if (v := s.values.get(name)) is not None]
        return round(float(np.median(values)), 1) if values else None

    measured = sum(s.values.get("delay_p50_us") is not None for s in samples)
    return SpanDelay(p50_us=median("delay_p50_us"), p99_us=median("delay_p99_us"), rounds=measured)


async def collect_pipeline_traces(
    session: Session, experiment: Experiment, readback: RunReadback, settle_s: float = 0.0
) -> None:
    """Read (or read again) what each completed round left in Tempo, each no sooner than
    `settle_s` after it ended."""
    spec = PipelineSpec.model_validate(experiment.spec)
    readings = []
    for round_ in completed_by_end(experiment.rounds):
        if round_.started_at is None or round_.finished_at is None:
            continue
        await settle(round_, settle_s)
        stored = await round_traces(
            readback,
            round_.run_id,
            int(round_.started_at.timestamp()) - 60,
            int(round_.finished_at.timestamp()) + 60,
            spec.load.spans_per_trace,
        )
        readings.append(
            LedgerReading(
                run_id=round_.run_id,
                experiment_id=experiment.id,
                ledger={"stored": stored},
                sample_trace_ids=stored.get("sample_trace_ids", []),
            )
        )
    repo.replace_ledger_readings(session, experiment.id, readings)


# An experiment's diagnostics at its own span rate, by what they are computed from (as
# report.build keeps a service's): the bootstrap takes a while, and a new target rate is only a
# new recommendation.
_CACHE: dict[tuple[Any, ...], PipelineDiagnostics] = {}
_CACHE_SIZE = 64
_CACHE_LOCK = threading.Lock()


def diagnostics_for(
    experiment: Experiment,
    spec: PipelineSpec,
    readings: Sequence[LedgerReading] = (),
    target_spans_per_s: float | None = None,
) -> PipelineDiagnostics:
    """build_pipeline's answer, computed once per finished experiment and its readings; the
    recommendation sized for `target_spans_per_s` (default the measured rate) after it."""
    key = (experiment.id, experiment.status, tuple(sorted((r.run_id, str(r.collected_at)) for r in readings)))
    with _CACHE_LOCK:
        built = _CACHE.get(key)
    if built is None:
        built = build_pipeline(experiment, spec, readings)
        if experiment.status in repo.FINAL_EXPERIMENT_STATES:
            with _CACHE_LOCK:
                if key not in _CACHE and len(_CACHE) >= _CACHE_SIZE:
                    _CACHE.pop(next(iter(_CACHE)))
                _CACHE[key] = built
    if target_spans_per_s is None:
        return built
    aggregates = {result.configuration: result.aggregates for result in experiment.results}
    recommendation = recommend_pipeline(aggregates, built.overhead, target_spans_per_s)
    return built.model_copy(update={"recommendation": recommendation})


def build_pipeline(
    experiment: Experiment,
    spec: PipelineSpec,
    readings: Sequence[LedgerReading] = (),
    target_spans_per_s: float | None = None,
    samples: dict[str, list[RoundSample]] | None = None,
) -> PipelineDiagnostics:
    """The lab's diagnostics; `samples`, when the caller already has pipeline_samples of the
    same readings (a check judges with them), saves computing them again."""
    baseline = spec.baseline.name
    completed = [r for r in experiment.rounds if r.status == "completed"]
    by_variant = samples if samples is not None else pipeline_samples(experiment, spec, readings)
    others = {name: samples for name, samples in by_variant.items() if name != baseline}
    stored = stored_by_run(readings)
    overhead = {name: compare(by_variant[baseline], samples, PIPELINE_METRICS) for name, samples in others.items()}
    aggregates = {result.configuration: result.aggregates for result in experiment.results}
    return PipelineDiagnostics(
        experiment_id=experiment.id,
        baseline=baseline,
        overhead=overhead,
        noise_floor=noise_floor(by_variant[baseline], list(others.values()), metrics=PIPELINE_METRICS),
        flagged_rounds=flagged_rounds(completed),
        stack_down_rounds=stack_down_rounds(completed),
        saturated_rounds=[round_label(r) for r in completed if (_window(r).generator or {}).get("saturated")],
        ledger=[
            PipelineRoundLedger(
                configuration=r.configuration,
                round=r.round_index,
                run_id=r.run_id,
                ledger=_ledger(r),
                stored=stored.get(r.run_id),
            )
            for r in completed
        ],
        span_delay={name: span_delay(samples) for name, samples in by_variant.items()},
        recommendation=recommend_pipeline(aggregates, overhead, target_spans_per_s or spec.load.spans_per_s),
        side_by_side=pipeline_side_by_side_use(completed),
    )
