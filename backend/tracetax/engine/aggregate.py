"""Per-configuration aggregates computed from the completed rounds of an experiment.

Latency percentiles come from the merged HDR histogram of all rounds; throughput, CPU per
request, RSS and context switches are reported per round and as their median across rounds
(the diagnostics add confidence intervals on top of the per-round values).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracetax.engine import histogram as hdr
from tracetax.engine.figures import (
    CollectorFigures,
    PipelineRamp,
    PipelineSideBySide,
    ServiceFigures,
    ServiceOpenPhase,
    known_sum,
)


@dataclass(frozen=True)
class RoundData:
    """What aggregation needs of one stored round."""

    configuration: str
    round_index: int
    status: str
    histogram: str | None
    # The subject's figures as stored (tracetax.engine.figures): each aggregation reads its own.
    figures: dict[str, Any] | None
    resources: dict[str, Any] | None


def _median(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def thread_groups(rounds: Sequence[RoundData], spans_per_request: float | None) -> dict[str, dict[str, Any]]:
    """Each thread group's median CPU and context switches per request over the rounds, and per
    span when the spans a request makes are known (the export worker's cost per span, seed 000)."""
    per_round = [(r.resources or {}).get("thread_groups") or {} for r in rounds]
    groups = {}
    for name in {name for round_groups in per_round for name in round_groups}:
        present = [round_groups[name] for round_groups in per_round if name in round_groups]
        cpu, ctx = _median([g["cpu_per_request_us"] for g in present]), _median([g["ctx_per_request"] for g in present])
        per_span = spans_per_request or None
        groups[name] = {
            "threads": max(g["threads"] for g in present),
            "rounds": len(present),
            "cpu_per_request_us": cpu,
            "ctx_per_request": ctx,
            "cpu_per_span_us": round(cpu / per_span, 4) if cpu is not None and per_span else None,
            "ctx_per_span": round(ctx / per_span, 5) if ctx is not None and per_span else None,
        }
    return dict(sorted(groups.items(), key=lambda item: -(item[1]["cpu_per_request_us"] or 0)))


def aggregate_configuration(
    name: str, rounds: Sequence[RoundData], spans_per_request: float | None = None
) -> dict[str, Any]:
    completed = [r for r in rounds if r.status == "completed" and r.histogram]
    merged = hdr.merge(r.histogram for r in completed if r.histogram)
    summary = hdr.summarize(merged)
    figures = [ServiceFigures.of(r.figures) or ServiceFigures() for r in completed]
    opened = [f.open_phase or ServiceOpenPhase() for f in figures]
    per_round = [
        {
            "round": r.round_index,
            "requests": open_phase.requests,
            "achieved_rps": open_phase.achieved_rps,
            "p99_us": open_phase.p99_us(),
            "max_throughput_rps": f.max_throughput_rps,
            "max_throughput_limited_by": f.limited_by(),
            "cpu_per_request_us": (r.resources or {}).get("cpu_per_request_us"),
            "cpu_utilization": (r.resources or {}).get("cpu_utilization"),
            "rss_max_bytes": (r.resources or {}).get("rss_max_bytes"),
            "ctx_per_request": (r.resources or {}).get("ctx_per_request"),
        }
        for r, f, open_phase in zip(completed, figures, opened, strict=True)
    ]
    return {
        "configuration": name,
        "rounds_completed": len(completed),
        "rounds_failed": sum(1 for r in rounds if r.status == "failed"),
        "requests": sum(item["requests"] or 0 for item in per_round),
        "errors": sum(open_phase.errors for open_phase in opened),
        "latency_us": {
            "count": summary.count,
            "mean": round(summary.mean_us, 1),
            "min": summary.min_us,
            "max": summary.max_us,
            **{f"p{key}": value for key, value in summary.percentiles_us.items()},
        },
        "percentile_curve": hdr.percentile_curve(merged),
        "histogram": hdr.encode(merged) if summary.count else None,
        "max_throughput_rps": _median([item["max_throughput_rps"] for item in per_round]),
        # Per round, what limited it: a figure limited by the load generator or the stack is
        # theirs, not the service's.
        "max_throughput_limited_by": sorted({limit for f in figures if (limit := f.limited_by())}),
        "cpu_per_request_us": _median([item["cpu_per_request_us"] for item in per_round]),
        "cpu_utilization": _median([item["cpu_utilization"] for item in per_round]),
        "rss_max_bytes": _median([item["rss_max_bytes"] for item in per_round]),
        "ctx_per_request": _median([item["ctx_per_request"] for item in per_round]),
        "thread_groups": thread_groups(completed, spans_per_request),
        "per_round": per_round,
        "side_by_side": side_by_side_summary(completed, figures),
    }


def side_by_side_summary(completed: Sequence[RoundData], figures: Sequence[ServiceFigures]) -> dict[str, Any] | None:
    """The configuration in its rounds' side-by-side phases (every configuration live at once):
    medians over the rounds that have it, and each round's figures; None without such a phase."""
    sides = [(r.round_index, f.side_by_side) for r, f in zip(completed, figures, strict=True) if f.side_by_side]
    if not sides:
        return None
    measured = [(index, side) for index, side in sides if side.error is None]
    return {
        "rounds": len(measured),
        "cpu_per_request_us": _median([side.cpu_per_request_us for _, side in measured]),
        "rss_max_bytes": _median([side.rss_max_bytes for _, side in measured]),
        "p50_us": _median([side.p50_us for _, side in measured if not side.latency_flagged]),
        "latency_flagged_rounds": [index for index, side in measured if side.latency_flagged],
        "failed_rounds": [{"round": index, "error": side.error} for index, side in sides if side.error is not None],
        "per_round": [
            {
                "round": index,
                "instances": side.instances,
                "requests": side.requests,
                "achieved_rps": side.achieved_rps,
                "cpu_per_request_us": side.cpu_per_request_us,
                "rss_max_bytes": side.rss_max_bytes,
                "p50_us": side.p50_us,
                "p99_us": side.p99_us,
                "utilisation": side.utilisation,
                "latency_flagged": side.latency_flagged,
            }
            for index, side in measured
        ],
    }


def aggregate(
    configurations: Sequence[str],
    rounds: Sequence[RoundData],
    spans_per_request: Mapping[str, float | None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Every configuration's figures; `spans_per_request` (by configuration, where its requests
    make spans and how many is known) turns per-request thread figures into per-span ones."""
    return {
        name: aggregate_configuration(
            name, [r for r in rounds if r.configuration == name], (spans_per_request or {}).get(name)
        )
        for name in configurations
    }


# -- Collector pipelines -----------------------------------------------------------------------

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


def aggregate_variant(name: str, rounds: Sequence[RoundData]) -> dict[str, Any]:
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
    return {
        "configuration": name,
        "subject": "collector",
        "rounds_completed": len(completed),
        "rounds_failed": sum(1 for r in rounds if r.status == "failed"),
        **{key: _median([item[key] for item in per_round]) for key in PIPELINE_FIGURES},
        "kept_ratio": _median([(item["ledger"] or {}).get("kept_ratio") for item in per_round]),
        # From the ramp, when the spec asked for one: None otherwise (not measured, not zero).
        "max_sustainable_spans_per_s": _median([item["max_sustainable_spans_per_s"] for item in per_round]),
        "ramp_limited_by": sorted({item["ramp_limited_by"] for item in per_round if item["ramp_limited_by"]}),
        "generator_saturated": any((item["generator"] or {}).get("saturated") for item in per_round),
        "ledger_totals": totals,
        "per_round": per_round,
        "side_by_side": pipeline_side_by_side_summary(completed, figures),
    }


def pipeline_side_by_side_summary(
    completed: Sequence[RoundData], figures: Sequence[CollectorFigures]
) -> dict[str, Any] | None:
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
        "cores_per_10k_spans_s": _median([side.cores_per_10k_spans_s for _, side in measured]),
        "cpu_cores": _median([side.cpu_cores for _, side in measured]),
        "spans_per_s": _median([side.spans_per_s for _, side in measured]),
        "rss_max_bytes": _median([side.rss_max_bytes for _, side in measured]),
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


def aggregate_pipeline(configurations: Sequence[str], rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]:
    return {name: aggregate_variant(name, [r for r in rounds if r.configuration == name]) for name in configurations}
