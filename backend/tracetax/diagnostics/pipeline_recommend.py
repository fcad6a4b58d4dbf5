"""A recommended Collector pipeline for a span rate the user gives, from measured values only.

- Cores: each variant's cores per 10k spans/s, measured in the constant-rate phase, scaled to
  the target rate; where the ramp measured CPU at rates around the target, the ramp's own
  figure (interpolated) instead. A target above a variant's highest sustainable rate on this
  machine says so: one Collector of this size does not keep up.
- Memory: the peak RSS measured at the closest rate (ramp step or measured phase), and a
  memory_limiter that holds it: limit_mib at that peak plus a quarter, spike_limit_mib a
  fifth of the limit (the memory_limiter's own guidance), for a container of limit / 0.8.
- Batch settings: batch-tuned against batch-default, by their paired change.
- The trace-holding processor: groupbytrace against tail-sampling, by lost spans, then memory.

Every line says which figures it stands on; a variant that was not measured is not guessed.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from pydantic import BaseModel

from tracetax.diagnostics.overhead import Change, format_value

MIB = 2**20
LIMIT_HEADROOM = 1.25
SPIKE_SHARE = 0.2
# The memory_limiter's limit as a share of the container's memory it protects.
LIMIT_SHARE_OF_CONTAINER = 0.8


class VariantSizing(BaseModel):
    variant: str
    cores: float | None
    cores_source: str
    peak_rss_bytes: float | None
    memory_source: str
    memory_limiter: dict[str, int] | None
    container_memory_mib: int | None
    keeps_up: bool | None
    note: str | None = None


class PipelineRecommendation(BaseModel):
    target_spans_per_s: float
    sizing: list[VariantSizing]
    batch: str | None
    trace_holding: str | None
    evidence: list[str]


def _ramp_points(aggregate: dict[str, Any], key: str) -> list[tuple[float, float]]:
    points = []
    for item in aggregate.get("per_round", []):
        for step in item.get("ramp") or []:
            rate, value = step.get("achieved_spans_per_s"), step.get(key)
            if step.get("sustained") and rate and value is not None:
                points.append((float(rate), float(value)))
    return sorted(points)


def _interpolate(points: list[tuple[float, float]], x: float) -> float | None:
    """Linear between the two measured rates around `x`; None outside them (no extrapolation)."""
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def _cores(aggregate: dict[str, Any], target: float) -> tuple[float | None, str]:
    from_ramp = _interpolate(_ramp_points(aggregate, "cpu_cores"), target)
    if from_ramp is not None:
        return from_ramp, "interpolated between the ramp's measured rates"
    per_10k = aggregate.get("cores_per_10k_spans_s")
    if per_10k is None:
        return None, "not measured"
    measured = aggregate.get("spans_per_s")
    return per_10k * target / 10_000, f"cores per 10k spans/s measured at {measured or 0:,.0f} spans/s, scaled"


def _memory(aggregate: dict[str, Any], target: float) -> tuple[float | None, str]:
    points = _ramp_points(aggregate, "rss_max_bytes")
    at_or_above = [(rate, rss) for rate, rss in points if rate >= target]
    if at_or_above:
        rate, rss = at_or_above[0]
        return rss, f"peak RSS in the ramp step at {rate:,.0f} spans/s"
    peak: float | None = aggregate.get("rss_max_bytes")
    measured = aggregate.get("spans_per_s") or 0
    if peak is None:
        return None, "not measured"
    source = f"peak RSS measured at {measured:,.0f} spans/s"
    if measured < target:
        source += " (below the target rate: memory at the target may be higher; run a ramp)"
    return float(peak), source


def size_variant(name: str, aggregate: dict[str, Any], target: float) -> VariantSizing:
    cores, cores_source = _cores(aggregate, target)
    rss, memory_source = _memory(aggregate, target)
    limiter = container = None
    if rss is not None:
        limit = math.ceil(rss * LIMIT_HEADROOM / MIB)
        limiter = {"limit_mib": limit, "spike_limit_mib": max(1, math.ceil(limit * SPIKE_SHARE))}
        container = math.ceil(limit / LIMIT_SHARE_OF_CONTAINER)
    best = aggregate.get("max_sustainable_spans_per_s")
    keeps_up = None if best is None else best >= target
    note = None
    if keeps_up is False:
        note = f"kept up with at most {best:,.0f} spans/s on this machine: split the load over more Collectors"
    return VariantSizing(
        variant=name,
        cores=None if cores is None else round(cores, 4),
        cores_source=cores_source,
        peak_rss_bytes=rss,
        memory_source=memory_source,
        memory_limiter=limiter,
        container_memory_mib=container,
        keeps_up=keeps_up,
        note=note,
    )


def _choose_batch(overhead: dict[str, dict[str, Change]], evidence: list[str]) -> str | None:
    tuned, default = overhead.get("batch-tuned"), overhead.get("batch-default")
    if tuned is None or default is None:
        return None
    a, b = tuned["cores_per_10k_spans_s"], default["cores_per_10k_spans_s"]
    evidence.append(f"batch-tuned: {a.summary}; batch-default: {b.summary}")
    if a.candidate is None or b.candidate is None:
        return None
    return "batch-tuned" if a.candidate < b.candidate else "batch-default"


def _choose_holding(aggregates: dict[str, dict[str, Any]], evidence: list[str]) -> str | None:
    names: tuple[str, ...] = ("groupbytrace", "tail-sampling")
    measured = {name: aggregates[name] for name in names if name in aggregates}
    if len(measured) < 2:
        return None

    def key(name: str) -> tuple[float, float]:
        lost = measured[name]["ledger_totals"].get("lost")
        rss = measured[name].get("rss_max_bytes")
        return (math.inf if lost is None else lost, math.inf if rss is None else rss)

    for name, item in measured.items():
        rss = item.get("rss_max_bytes")
        evidence.append(
            f"{name}: {item['ledger_totals'].get('lost', 'unknown')} spans lost over its rounds, peak RSS "
            f"{format_value(rss, 'bytes') if rss is not None else 'unknown'}"
        )
    return min(measured, key=key)


def recommend_pipeline(
    aggregates: dict[str, dict[str, Any]], overhead: dict[str, dict[str, Change]], target: float
) -> PipelineRecommendation:
    evidence: list[str] = []
    sizing = [size_variant(name, item, target) for name, item in aggregates.items()]
    for item in sizing:
        if item.cores is not None:
            evidence.append(
                f"{item.variant}: {format_value(item.cores, 'cores')} at {target:,.0f} spans/s ({item.cores_source})"
            )
    return PipelineRecommendation(
        target_spans_per_s=target,
        sizing=sizing,
        batch=_choose_batch(overhead, evidence),
        trace_holding=_choose_holding(aggregates, evidence),
        evidence=evidence,
    )
