"""A Collector pipeline's variants over the completed rounds of an experiment: each figure
per round and its median, the span ledger's totals summed."""

from __future__ import annotations

from collections.abc import Sequence

from tracetax.diagnostics.pipeline_figures import CollectorFigures, PipelineRamp, PipelineSideBySide
from tracetax.engine.aggregate import RoundData, median
from tracetax.engine.figures import known_sum
from tracetax.lab.ledger import PipelineLedger
from tracetax.subjects.collector.answers import (
    LedgerTotals,
    PipelineAggregates,
    PipelinePerRound,
    PipelineSideBySideAggregate,
    RampPoint,
)


def per_round(round_: RoundData, figures: CollectorFigures) -> PipelinePerRound:
    """One completed round's figures (its resources), ledger, generator and ramp."""
    resources = round_.resources or {}
    measured = figures.measured
    return {
        "round": round_.round_index,
        "cpu_cores": resources.get("cpu_cores"),
        "spans_per_s": resources.get("spans_per_s"),
        "spans_per_s_per_core": resources.get("spans_per_s_per_core"),
        "cores_per_10k_spans_s": resources.get("cores_per_10k_spans_s"),
        "rss_max_bytes": resources.get("rss_max_bytes"),
        "rss_steady_bytes": resources.get("rss_steady_bytes"),
        "downstream_cpu_cores": resources.get("downstream_cpu_cores"),
        "ledger": measured.ledger if measured is not None else None,
        "generator": measured.generator if measured is not None else None,
        "max_sustainable_spans_per_s": figures.max_sustainable_spans_per_s(),
        "ramp_limited_by": figures.limited_by(),
        "ramp": _curve(figures.ramp),
    }


def ledger_totals(ledgers: Sequence[PipelineLedger]) -> LedgerTotals:
    """The rounds' ledgers summed; a total is None when a round could not tell (or there is no round)."""
    if not ledgers:
        return {"generated": None, "lost": None, "not_arrived": None}
    return {
        "generated": known_sum(ledger.get("generated") for ledger in ledgers),
        "lost": known_sum(ledger.get("lost") for ledger in ledgers),
        "not_arrived": known_sum(ledger.get("not_arrived") for ledger in ledgers),
    }


def aggregate_variant(name: str, rounds: Sequence[RoundData]) -> PipelineAggregates:
    """A pipeline variant over its completed rounds: each figure per round and its median,
    the ledger's totals summed (None when a round could not tell)."""
    completed = [r for r in rounds if r.status == "completed"]
    figures = [CollectorFigures.of(r.figures) or CollectorFigures() for r in completed]
    rows = [per_round(r, f) for r, f in zip(completed, figures, strict=True)]
    ledgers = [row["ledger"] or {} for row in rows]
    # The keys in the order the stored JSON has them.
    return {
        "configuration": name,
        "subject": "collector",
        "rounds_completed": len(completed),
        "rounds_failed": sum(1 for r in rounds if r.status == "failed"),
        "cpu_cores": median([row["cpu_cores"] for row in rows]),
        "spans_per_s": median([row["spans_per_s"] for row in rows]),
        "spans_per_s_per_core": median([row["spans_per_s_per_core"] for row in rows]),
        "cores_per_10k_spans_s": median([row["cores_per_10k_spans_s"] for row in rows]),
        "rss_max_bytes": median([row["rss_max_bytes"] for row in rows]),
        "rss_steady_bytes": median([row["rss_steady_bytes"] for row in rows]),
        "downstream_cpu_cores": median([row["downstream_cpu_cores"] for row in rows]),
        "kept_ratio": median([ledger.get("kept_ratio") for ledger in ledgers]),
        # From the ramp, when the spec asked for one: None otherwise (not measured, not zero).
        "max_sustainable_spans_per_s": median([row.get("max_sustainable_spans_per_s") for row in rows]),
        "ramp_limited_by": sorted({limit for row in rows if (limit := row.get("ramp_limited_by"))}),
        "generator_saturated": any((row["generator"] or {}).get("saturated") for row in rows),
        "ledger_totals": ledger_totals(ledgers),
        "per_round": rows,
        "side_by_side": pipeline_side_by_side_summary(completed, figures),
    }


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


def _curve(ramp: PipelineRamp | None) -> list[RampPoint]:
    """CPU against rate along a round's ramp: what a capacity plan reads."""
    return [
        {
            # Every step the ramp ran held a rate (tracetax.lab.ramp).
            "spans_per_s": step["spans_per_s"],
            "achieved_spans_per_s": step.get("achieved_spans_per_s"),
            "cpu_cores": step.get("cpu_cores"),
            "rss_max_bytes": step.get("rss_max_bytes"),
            "sustained": step.get("sustained"),
            "why": step.get("why"),
        }
        for step in (ramp.ramp if ramp is not None else [])
    ]


def aggregate_pipeline(configurations: Sequence[str], rounds: Sequence[RoundData]) -> dict[str, PipelineAggregates]:
    return {name: aggregate_variant(name, [r for r in rounds if r.configuration == name]) for name in configurations}
