"""A Collector pipeline's variants over the completed rounds of an experiment: each figure
per round and its median, the span ledger's totals summed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from tracetax.diagnostics.pipeline_figures import CollectorFigures, PipelineRamp, PipelineSideBySide
from tracetax.engine.aggregate import RoundData, median
from tracetax.engine.figures import known_sum
from tracetax.subjects.collector.answers import PipelineAggregates, PipelineSideBySideAggregate

PIPELINE_FIGURES = (
    "cpu_cores",
    "spans_per_s",
    "spans_per_s_per_core",
    "cores_per_10k_spans_s",
    "rss_max_bytes",
    "rss_steady_bytes",
    "downstream_cpu_cores",
)
LEDGER_TOTALS = ("generated", "lost", "not_arrived")


def aggregate_variant(name: str, rounds: Sequence[RoundData]) -> PipelineAggregates:
    """A pipeline variant over its completed rounds: each figure per round and its median,
    the ledger's totals summed (None when a round could not tell)."""
    completed = [r for r in rounds if r.status == "completed"]
    figures = [CollectorFigures.of(r.figures) or CollectorFigures() for r in completed]
    per_round: list[dict[str, Any]] = [
        {
            "round": r.round_index,
            **{key: (r.resources or {}).get(key) for key in PIPELINE_FIGURES},
            "ledger": f.measured.ledger if f.measured is not None else None,
            "generator": f.measured.generator if f.measured is not None else None,
            "max_sustainable_spans_per_s": f.max_sustainable_spans_per_s(),
            "ramp_limited_by": f.limited_by(),
            "ramp": _curve(f.ramp),
        }
        for r, f in zip(completed, figures, strict=True)
    ]
    ledgers: list[dict[str, Any]] = [item["ledger"] or {} for item in per_round]
    totals = {key: known_sum(ledger.get(key) for ledger in ledgers) if ledgers else None for key in LEDGER_TOTALS}
    # The figures' keys are spread from PIPELINE_FIGURES, in the order the stored JSON has them.
    variant = {
        "configuration": name,
        "subject": "collector",
        "rounds_completed": len(completed),
        "rounds_failed": sum(1 for r in rounds if r.status == "failed"),
        **{key: median([item[key] for item in per_round]) for key in PIPELINE_FIGURES},
        "kept_ratio": median([(item["ledger"] or {}).get("kept_ratio") for item in per_round]),
        # From the ramp, when the spec asked for one: None otherwise (not measured, not zero).
        "max_sustainable_spans_per_s": median([item["max_sustainable_spans_per_s"] for item in per_round]),
        "ramp_limited_by": sorted({item["ramp_limited_by"] for item in per_round if item["ramp_limited_by"]}),
        "generator_saturated": any((item["generator"] or {}).get("saturated") for item in per_round),
        "ledger_totals": totals,
        "per_round": per_round,
        "side_by_side": pipeline_side_by_side_summary(completed, figures),
    }
    return cast(PipelineAggregates, variant)


def pipeline_side_by_side_summary(
    completed: Sequence[RoundData], figures: Sequence[CollectorFigures]
) -> PipelineSideBySideAggregate | None:
    """The variant in its rounds' side-by-side phases (every variant's lab Collector live at
    once): medians over the rounds that have it, and each round's figures; None without such a phase."""
    sides: list[tuple[int, PipelineSideBySide]] = [
        (r.round_index, f.side_by_side) for r, f in zip(completed, figures, strict=True) if f.side_by_side
    ]
    if not sides:
        return None
    measured = [(index, side) for index, side in sides if side.error is None]
    return {
        "rounds": len(measured),
        "cores_per_10k_spans_s": median([side.cores_per_10k_spans_s for _, side in measured]),
        "cpu_cores": median([side.cpu_cores for _, side in measured]),
        "spans_per_s": median([side.spans_per_s for _, side in measured]),
        "rss_max_bytes": median([side.rss_max_bytes for _, side in measured]),
        "failed_rounds": [{"round": index, "error": side.error} for index, side in sides if side.error is not None],
        "per_round": [
            {
                "round": index,
                "cores_per_10k_spans_s": side.cores_per_10k_spans_s,
                "cpu_cores": side.cpu_cores,
                "spans_per_s": side.spans_per_s,
                "rss_max_bytes": side.rss_max_bytes,
                "utilisation": side.utilisation,
                "generator_saturated": (side.generator or {}).get("saturated"),
                "note": side.note,
            }
            for index, side in measured
        ],
    }


def _curve(ramp: PipelineRamp | None) -> list[dict[str, Any]]:
    """CPU against rate along a round's ramp: what a capacity plan reads."""
    keys = ("spans_per_s", "achieved_spans_per_s", "cpu_cores", "rss_max_bytes", "sustained", "why")
    return [{key: step.get(key) for key in keys} for step in (ramp.ramp if ramp is not None else [])]


def aggregate_pipeline(configurations: Sequence[str], rounds: Sequence[RoundData]) -> dict[str, PipelineAggregates]:
    return {name: aggregate_variant(name, [r for r in rounds if r.configuration == name]) for name in configurations}
