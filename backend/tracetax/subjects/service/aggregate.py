"""A service's configurations over the completed rounds of an experiment.

Latency percentiles come from the merged HDR histogram of all rounds; throughput, CPU per
request, RSS and context switches are reported per round and as their median across rounds
(the diagnostics add confidence intervals on top of the per-round values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from tracetax.diagnostics.service_figures import ServiceFigures, ServiceOpenPhase
from tracetax.engine import histogram as hdr
from tracetax.engine.aggregate import RoundData, median
from tracetax.subjects.service.answers import (
    ConfigurationAggregates,
    LatencySummary,
    PerRoundAggregate,
    SideBySideAggregate,
    ThreadGroupFigures,
)


def thread_groups(rounds: Sequence[RoundData], spans_per_request: float | None) -> dict[str, ThreadGroupFigures]:
    """Each thread group's median CPU and context switches per request over the rounds, and per
    span when the spans a request makes are known (the export worker's cost per span, seed 000)."""
    per_round = [(r.resources or {}).get("thread_groups") or {} for r in rounds]
    groups = {}
    for name in {name for round_groups in per_round for name in round_groups}:
        present = [round_groups[name] for round_groups in per_round if name in round_groups]
        cpu, ctx = median([g["cpu_per_request_us"] for g in present]), median([g["ctx_per_request"] for g in present])
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
) -> ConfigurationAggregates:
    completed = [r for r in rounds if r.status == "completed" and r.histogram]
    merged = hdr.merge(r.histogram for r in completed if r.histogram)
    summary = hdr.summarize(merged)
    figures = [ServiceFigures.of(r.figures) or ServiceFigures() for r in completed]
    opened = [f.open_phase or ServiceOpenPhase() for f in figures]
    per_round: list[PerRoundAggregate] = [
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
        "latency_us": latency_summary(summary),
        "percentile_curve": [(percentile, us) for percentile, us in hdr.percentile_curve(merged)],
        "histogram": hdr.encode(merged) if summary.count else None,
        "max_throughput_rps": median([item["max_throughput_rps"] for item in per_round]),
        # Per round, what limited it: a figure limited by the load generator or the stack is
        # theirs, not the service's.
        "max_throughput_limited_by": sorted({limit for f in figures if (limit := f.limited_by())}),
        "cpu_per_request_us": median([item["cpu_per_request_us"] for item in per_round]),
        "cpu_utilization": median([item["cpu_utilization"] for item in per_round]),
        "rss_max_bytes": median([item["rss_max_bytes"] for item in per_round]),
        "ctx_per_request": median([item["ctx_per_request"] for item in per_round]),
        "thread_groups": thread_groups(completed, spans_per_request),
        "per_round": per_round,
        "side_by_side": side_by_side_summary(completed, figures),
    }


def latency_summary(summary: hdr.LatencySummary) -> LatencySummary:
    """The merged histogram's summary as answered; its percentile keys are the histogram's
    (p50, p90, p99, p99.9, p99.99), named at run time."""
    latency = {
        "count": summary.count,
        "mean": round(summary.mean_us, 1),
        "min": summary.min_us,
        "max": summary.max_us,
        **{f"p{key}": value for key, value in summary.percentiles_us.items()},
    }
    return cast(LatencySummary, latency)


def side_by_side_summary(
    completed: Sequence[RoundData], figures: Sequence[ServiceFigures]
) -> SideBySideAggregate | None:
    """The configuration in its rounds' side-by-side phases (every configuration live at once):
    medians over the rounds that have it, and each round's figures; None without such a phase."""
    sides = [(r.round_index, f.side_by_side) for r, f in zip(completed, figures, strict=True) if f.side_by_side]
    if not sides:
        return None
    measured = [(index, side) for index, side in sides if side.error is None]
    return {
        "rounds": len(measured),
        "cpu_per_request_us": median([side.cpu_per_request_us for _, side in measured]),
        "rss_max_bytes": median([side.rss_max_bytes for _, side in measured]),
        "p50_us": median([side.p50_us for _, side in measured if not side.latency_flagged]),
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
) -> dict[str, ConfigurationAggregates]:
    """Every configuration's figures; `spans_per_request` (by configuration, where its requests
    make spans and how many is known) turns per-request thread figures into per-span ones."""
    return {
        name: aggregate_configuration(
            name, [r for r in rounds if r.configuration == name], (spans_per_request or {}).get(name)
        )
        for name in configurations
    }
