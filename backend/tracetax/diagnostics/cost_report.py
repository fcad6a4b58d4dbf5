"""The cost of a stored service experiment at the user's traffic: its rounds' CPU and telemetry
volume (from the ledger readings) through the cost model. Knows nothing of HTTP; the API and
CLI call it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel

from tracetax.db.models import Experiment, LedgerReading, Round
from tracetax.diagnostics.cost import (
    DOCUMENTED_COLLECTOR_CORES_PER_10K,
    DOCUMENTED_COLLECTOR_SOURCE,
    SIGNALS,
    SOURCES,
    ConfigurationCost,
    CostInputs,
    CostRound,
    Figure,
    VolumeSignal,
    configuration_cost,
)
from tracetax.diagnostics.ledger import RoundLedger
from tracetax.diagnostics.overhead import format_value
from tracetax.diagnostics.service_figures import ServiceFigures, service_phases
from tracetax.diagnostics.volume import SOURCE as VOLUME_SOURCE
from tracetax.diagnostics.volume import SignalVolume
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec


class CollectorFigure(BaseModel):
    cores_per_10k_spans_s: float
    source: str
    measured: bool


class RecommendedCost(BaseModel):
    configuration: str
    usd_per_month: Figure
    vs_baseline: Figure
    summary: str


class CostReport(BaseModel):
    subject: Literal["service"] = "service"
    experiment_id: str
    baseline: str
    inputs: CostInputs
    # Where each default input comes from (public list prices).
    sources: dict[str, str]
    collector: CollectorFigure
    volume_source: str
    configurations: list[ConfigurationCost]
    recommended: RecommendedCost | None
    note: str | None = None


class PipelineChoiceError(ValueError):
    """A pipeline experiment that cannot give the Collector's cost per span."""


def collector_figure(
    pipeline: Experiment | None, variant: str | None, *, spec: PipelineSpec | None = None
) -> CollectorFigure:
    """Cores per 10k spans/s: a pipeline experiment's measured variant, or the documented figure.
    `spec`: the pipeline's spec when the caller has parsed it already."""
    if pipeline is None:
        return CollectorFigure(
            cores_per_10k_spans_s=DOCUMENTED_COLLECTOR_CORES_PER_10K, source=DOCUMENTED_COLLECTOR_SOURCE, measured=False
        )
    spec = spec or PipelineSpec.model_validate(pipeline.spec)
    names = [v.name for v in spec.configurations]
    chosen = variant or spec.baseline.name
    if chosen not in names:
        raise PipelineChoiceError(
            f"pipeline experiment {pipeline.id} has no variant {chosen!r}; it has {', '.join(names)}"
        )
    aggregates = {result.configuration: result.aggregates for result in pipeline.results}
    per_10k = (aggregates.get(chosen) or {}).get("cores_per_10k_spans_s")
    if per_10k is None:
        raise PipelineChoiceError(
            f"variant {chosen} of pipeline experiment {pipeline.id} has no measured cores per 10k spans/s"
        )
    return CollectorFigure(
        cores_per_10k_spans_s=float(per_10k),
        source=f"measured: variant {chosen} of pipeline experiment {pipeline.id} (median of its rounds)",
        measured=True,
    )


def _cost_round(round_: Round, ledger: RoundLedger | None) -> CostRound:
    volume = ledger.volume if ledger else None
    signals = {s.signal: s for s in volume.signals} if volume else {}

    def by_signal(read: Callable[[SignalVolume], float | None]) -> dict[VolumeSignal, float | None]:
        """One reading per signal; unknown where the round has no volume for it."""
        return {s: read(signals[s]) if s in signals else None for s in SIGNALS}

    return CostRound(
        round_index=round_.round_index,
        requests=service_phases(ServiceFigures.of(round_.figures))["requests_total"],
        cpu_per_request_us=(round_.resources or {}).get("cpu_per_request_us"),
        sent_bytes=by_signal(lambda v: v.sent_bytes),
        items=by_signal(lambda v: v.items),
        store_bytes=by_signal(SignalVolume.ingested_bytes),
        store_items=by_signal(lambda v: v.stored_items),
    )


def build_cost(
    experiment: Experiment,
    readings: Sequence[LedgerReading],
    inputs: CostInputs,
    collector: CollectorFigure,
    recommended: str | None,
    *,
    spec: ExperimentSpec | None = None,
) -> CostReport:
    """The experiment's cost report; `spec`: its spec when the caller has parsed it already."""
    spec = spec or ExperimentSpec.model_validate(experiment.spec)
    ledgers = {r.run_id: RoundLedger.model_validate(r.ledger) for r in readings}
    completed = [r for r in experiment.rounds if r.status == "completed"]
    rounds = {
        c.name: [_cost_round(r, ledgers.get(r.run_id)) for r in completed if r.configuration == c.name]
        for c in spec.configurations
    }
    baseline = spec.baseline.name
    costs = [
        configuration_cost(
            c.name, c.baseline, rounds[c.name], rounds[baseline], inputs, collector.cores_per_10k_spans_s
        )
        for c in spec.configurations
    ]
    missing = [r for r in completed if r.run_id not in ledgers or ledgers[r.run_id].volume is None]
    note = (
        f"{len(missing)} of {len(completed)} rounds have no telemetry volume yet: collect the ledger "
        "(POST /api/v1/experiments/{id}/ledger) to read it"
        if missing
        else None
    )
    return CostReport(
        experiment_id=experiment.id,
        baseline=baseline,
        inputs=inputs,
        sources=SOURCES,
        collector=collector,
        volume_source=VOLUME_SOURCE,
        configurations=costs,
        recommended=_recommended(costs, recommended, baseline, inputs),
        note=note,
    )


def _money(figure: Figure) -> str:
    if figure.estimate is None:
        return "unknown"
    text = f"${figure.estimate:,.2f}"
    if figure.low is not None and figure.high is not None:
        text += f" (95% interval ${figure.low:,.2f} to ${figure.high:,.2f})"
    return text


def _recommended(
    costs: list[ConfigurationCost], name: str | None, baseline: str, inputs: CostInputs
) -> RecommendedCost | None:
    chosen = next((c for c in costs if c.configuration == name), None)
    if chosen is None:
        return None
    rate = format_value(inputs.requests_per_s, "req/s")
    summary = f"{chosen.configuration} costs {_money(chosen.usd_per_month)} a month at {rate}"
    difference = chosen.usd_per_month_vs_baseline
    base = next(c for c in costs if c.configuration == baseline).usd_per_month
    # Against a baseline that costs nothing (none) the difference is the cost itself: not said twice.
    free = base.estimate == 0 and base.high == 0
    if chosen.configuration != baseline and difference.estimate is not None and not free:
        direction = "more" if difference.estimate >= 0 else "less"
        magnitude = difference
        if difference.estimate < 0:  # say "less" with a positive amount: flip the interval too
            flip = [None if v is None else -v for v in (difference.estimate, difference.high, difference.low)]
            magnitude = Figure(estimate=flip[0], low=flip[1], high=flip[2], rounds=difference.rounds)
        summary += f": {_money(magnitude)} {direction} than the baseline {baseline}"
    dearer = [c for c in costs if (c.usd_per_month.estimate or 0.0) > (chosen.usd_per_month.estimate or 0.0)]
    if dearer and chosen.usd_per_month.estimate is not None:
        top = max(dearer, key=lambda c: c.usd_per_month.estimate or 0.0)
        saving = top.vs(chosen)
        if saving.estimate is not None:
            summary += f"; it saves {_money(saving)} a month against {top.configuration}"
    return RecommendedCost(
        configuration=chosen.configuration,
        usd_per_month=chosen.usd_per_month,
        vs_baseline=difference,
        summary=summary,
    )
