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


@dataclass(frozen=True)
class RoundData:
    """What aggregation needs of one stored round."""

    configuration: str
    round_index: int
    status: str
    histogram: str | None
    open_phase: dict[str, Any] | None
    max_throughput_rps: float | None
    resources: dict[str, Any] | None
    # What limited the closed-loop phase (service, load generator, stack, none, unknown).
    limited_by: str | None = None
    # A pipeline's ramp: {ramp: [steps], max_sustainable_spans_per_s, limited_by, why}.
    closed_phase: dict[str, Any] | None = None


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
    per_round = [
        {
            "round": r.round_index,
            "requests": (r.open_phase or {}).get("requests"),
            "achieved_rps": (r.open_phase or {}).get("achieved_rps"),
            "p99_us": ((r.open_phase or {}).get("summary") or {}).get("percentiles_us", {}).get("99"),
            "max_throughput_rps": r.max_throughput_rps,
            "max_throughput_limited_by": r.limited_by,
            "cpu_per_request_us": (r.resources or {}).get("cpu_per_request_us"),
            "cpu_utilization": (r.resources or {}).get("cpu_utilization"),
            "rss_max_bytes": (r.resources or {}).get("rss_max_bytes"),
            "ctx_per_request": (r.resources or {}).get("ctx_per_request"),
        }
        for r in completed
    ]
    return {
        "configuration": name,
        "rounds_completed": len(completed),
        "rounds_failed": sum(1 for r in rounds if r.status == "failed"),
        "requests": sum(item["requests"] or 0 for item in per_round),
        "errors": sum((r.open_phase or {}).get("errors", 0) for r in completed),
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
        "max_throughput_limited_by": sorted({r.limited_by for r in completed if r.limited_by}),
        "cpu_per_request_us": _median([item["cpu_per_request_us"] for item in per_round]),
        "cpu_utilization": _median([item["cpu_utilization"] for item in per_round]),
        "rss_max_bytes": _median([item["rss_max_bytes"] for item in per_round]),
        "ctx_per_request": _median([item["ctx_per_request"] for item in per_round]),
        "thread_groups": thread_groups(completed, spans_per_request),
        "per_round": per_round,
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
    per_round: list[dict[str, Any]] = [
        {
            "round": r.round_index,
            **{key: (r.resources or {}).get(key) for key in PIPELINE_FIGURES},
            "ledger": (r.open_phase or {}).get("ledger"),
            "generator": (r.open_phase or {}).get("generator"),
            "max_sustainable_spans_per_s": r.max_throughput_rps,
            "ramp_limited_by": r.limited_by,
            "ramp": _curve(r.closed_phase),
        }
        for r in completed
    ]
    ledgers: list[dict[str, Any]] = [item["ledger"] or {} for item in per_round]
    totals = {
        key: (
            None
            if not ledgers or any(ledger.get(key) is None for ledger in ledgers)
            else sum(entry[key] for entry in ledgers)
        )
        for key in LEDGER_TOTALS
    }
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
    }


def _curve(closed_phase: dict[str, Any] | None) -> list[dict[str, Any]]:
    """CPU against rate along a round's ramp: what a capacity plan reads."""
    keys = ("spans_per_s", "achieved_spans_per_s", "cpu_cores", "rss_max_bytes", "sustained", "why")
    return [{key: step.get(key) for key in keys} for step in (closed_phase or {}).get("ramp", [])]


def aggregate_pipeline(configurations: Sequence[str], rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]:
    return {name: aggregate_variant(name, [r for r in rounds if r.configuration == name]) for name in configurations}
