"""What each configuration changes against the baseline, from the interleaved design.

Rounds are blocks: every configuration runs once per round, in a shuffled order, so that all
of a round's configurations see the same machine state. The statistics use that design:

- per round, the candidate's value is paired with the baseline's value *of the same round*
  (a latency percentile from each side's own histogram of that round; CPU per request, RSS
  and maximum throughput as measured in that round);
- the relative change is the geometric mean of the paired ratios, exp(mean ln(c/b)) - 1,
  and the absolute change the mean of the paired differences c - b;
- both get Student-t intervals over the rounds (df = pairs - 1). Rounds, not requests, are
  the independent units: request-level noise is inside each round's value, and drift between
  rounds cancels in the pair. With 3 to 10 rounds a bootstrap interval of a mean is too
  narrow (it misses (n-1)/n of the variance and the t-distribution's tails), which is why
  the earlier unpaired bootstrap let an A/A come out significant (docs/diagnostics.md);
- a metric's p-value is the paired t-test of the log ratios, and "significant" is decided
  after Holm's step-down correction over every metric of the configuration, so an A/A shows
  nothing significant in at least 95 of 100 runs whatever the number of metrics shown.

Figures never ratio against nothing: a baseline value that is zero or unmeasured leaves the
relative change unknown (the absolute one may stand), and a missing value is unknown, not 0.

The noise floor is the interval half-width the experiment's own paired residuals imply: the
pooled spread of every candidate's log ratios around its own mean. In an A/A experiment it is
exactly the A/A configuration's interval, which is how `tracetax calibrate` measures it.

An experiment that adds rounds until it is precise enough (or a check until it is conclusive)
passes its `SequentialDesign`: every interval and p-value here is then the repeated one of
diagnostics/sequential.py, valid whenever the experiment stops; without one (None) they are
the fixed-n Student ones above.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy import stats

from tracetax.diagnostics import sequential
from tracetax.diagnostics.sequential import SequentialDesign
from tracetax.engine import histogram as hdr

CONFIDENCE = 0.95
ALPHA = 1 - CONFIDENCE

Direction = Literal["worse", "better", "unchanged", "unknown"]


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    unit: Literal["us", "req/s", "bytes", "cores", "spans"]
    higher_is_worse: bool
    percentile: float | None = None
    # Decimals kept of absolute values: 2 for µs, bytes and req/s; more for cores.
    digits: int = 2


METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        Metric("p50", "p50", "us", True, 50.0),
        Metric("p90", "p90", "us", True, 90.0),
        Metric("p99", "p99", "us", True, 99.0),
        Metric("p99.9", "p99.9", "us", True, 99.9),
        # Wide at a few thousand requests per round (tens of samples above it): where eBPF and
        # SDK instrumentation part (seed 002), minutes at a high rate resolve it.
        Metric("p99.99", "p99.99", "us", True, 99.99),
        Metric("cpu_per_request_us", "CPU per request", "us", True),
        Metric("rss_max_bytes", "RSS", "bytes", True),
        Metric("max_throughput_rps", "max throughput", "req/s", False),
    )
}
# A Collector pipeline's metrics (diagnostics/pipeline.py), kept beside the services' so that a
# budget line can read either without loading the pipeline diagnostics (and their database).
PIPELINE_METRICS: dict[str, Metric] = {
    metric.name: metric
    for metric in (
        Metric("cores_per_10k_spans_s", "per 10k spans/s", "cores", True, digits=5),
        Metric("cpu_cores", "Collector CPU", "cores", True, digits=5),
        Metric("rss_max_bytes", "peak RSS", "bytes", True),
        Metric("rss_steady_bytes", "steady RSS", "bytes", True),
        Metric("lost_spans", "lost", "spans", True),
        # From the Tempo read-back (pipeline_traces.py): unknown until it ran.
        Metric("delay_p50_us", "span delay p50", "us", True),
        Metric("delay_p99_us", "span delay p99", "us", True),
    )
}
LATENCY_METRICS = {name: m.percentile for name, m in METRICS.items() if m.percentile is not None}
# A latency measured side by side pairs only configurations whose shares of the service cores
# differ by at most this: each request waits behind the others' work, so the lighter of two
# waits behind more than the heavier one does and their p50 difference shrinks. Two
# configurations of a like share wait behind the same neighbours, however heavy a third one is.
# Measured on Go at 300 req/s: a configuration spinning 1 ms per request (30% of the core beside
# 3%) read +808 µs p50 (+262 µs to +1.35 ms) side by side against +1.02 ms alone; an A/A (shares
# within 1%) reads p50 to ±3.8% side by side. Pairs further apart take each side's solo phase.
SIDE_BY_SIDE_MAX_SHARE_GAP = 0.05
# The figures a service's side-by-side phase gives; every other metric comes from the solo phases.
SIDE_BY_SIDE_METRICS = ("cpu_per_request_us", "rss_max_bytes", "p50")


class Interval(BaseModel):
    """A point estimate with its 95% interval (None where it could not be computed)."""

    estimate: float | None
    low: float | None = None
    high: float | None = None


def _publish_direction_words(schema: dict[str, Any]) -> None:
    """Change's `x-direction-words` in the OpenAPI: how each direction reads (`describe`'s
    words), which the UI writes a change with instead of a copy."""
    schema["x-direction-words"] = dict(WORDS)


class Change(BaseModel):
    """How one metric of a configuration differs from the baseline's."""

    model_config = ConfigDict(json_schema_extra=_publish_direction_words)

    metric: str
    label: str
    unit: str
    higher_is_worse: bool
    pairs: int
    baseline: float | None
    candidate: float | None
    absolute: Interval
    relative_pct: Interval
    p_value: float | None = None
    # Holm-adjusted over the configuration's metrics; `significant` reads this one.
    p_adjusted: float | None = None
    significant: bool = False
    direction: Direction = "unknown"
    summary: str
    note: str | None = None

    def worse_pct(self) -> Interval:
        """The relative change oriented so that positive is worse (a throughput drop is > 0)."""
        return _oriented(self.relative_pct, self.higher_is_worse)

    def worse_absolute(self) -> Interval:
        return _oriented(self.absolute, self.higher_is_worse)


class NoiseFloor(BaseModel):
    """The smallest change of a metric this experiment can tell from noise (95%)."""

    metric: str
    label: str
    unit: str
    # +/- half-width of the relative interval, in % (and in the metric's unit at the baseline's level)
    relative_pct: float | None
    absolute: float | None
    pairs: int
    # Pooled standard deviation of ln(candidate / baseline) per round, and its degrees of
    # freedom: what a check needs to predict the resolution at another number of rounds.
    sd_log: float | None
    df: int
    note: str | None = None


@dataclass(frozen=True)
class RoundSample:
    """One completed round of one configuration, as the statistics need it: a service's
    latency histogram and measured figures, or any subject's figures by metric name in
    `values` (a Collector pipeline's cores, memory, lost spans)."""

    round_index: int
    histogram: str | None = None
    max_throughput_rps: float | None = None
    cpu_per_request_us: float | None = None
    rss_max_bytes: float | None = None
    values: Mapping[str, float | None] = field(default_factory=dict)
    # The configuration's share of the service cores in the round's side-by-side phase, when a
    # latency in `values` was measured there: it pairs only with a partner of a like share.
    side_share: float | None = None


def _oriented(interval: Interval, higher_is_worse: bool) -> Interval:
    if higher_is_worse or interval.estimate is None:
        return interval
    flip = [None if v is None else -v for v in (interval.estimate, interval.high, interval.low)]
    return Interval(estimate=flip[0], low=flip[1], high=flip[2])


@lru_cache(maxsize=1024)
def _percentile(encoded: str, percentile: float) -> float | None:
    """A percentile of an encoded round histogram. Cached: every configuration's comparison,
    the noise floor and a check's lines read the same rounds' percentiles again."""
    histogram = hdr.decode(encoded)
    if histogram.get_total_count() == 0:
        return None
    return float(histogram.get_value_at_percentile(percentile))


def round_value(sample: RoundSample, metric: Metric, *, side: bool = True) -> float | None:
    """The round's own value of a metric: a figure given in `values` (a service's side-by-side
    p50; not with `side` False), a percentile of its histogram, or a measured figure."""
    if side and metric.name in sample.values:
        given = sample.values[metric.name]
        return None if given is None else float(given)
    if metric.percentile is not None:
        if not sample.histogram:
            return None
        return _percentile(sample.histogram, metric.percentile)
    value = sample.values[metric.name] if metric.name in sample.values else getattr(sample, metric.name, None)
    return None if value is None else float(value)


def paired_values(
    baseline: Sequence[RoundSample], candidate: Sequence[RoundSample], metric: Metric
) -> list[tuple[float, float]]:
    """(baseline, candidate) values of the rounds where both sides measured the metric."""
    base = {s.round_index: s for s in baseline}
    pairs = []
    for sample in candidate:
        partner = base.get(sample.round_index)
        if partner is None:
            continue
        side = alike_shares(partner, sample) or metric.percentile is None
        b, c = round_value(partner, metric, side=side), round_value(sample, metric, side=side)
        if b is not None and c is not None:
            pairs.append((b, c))
    return pairs


def alike_shares(first: RoundSample, second: RoundSample) -> bool:
    """Whether two samples' side-by-side latencies may pair: neither measured side by side, or
    both with shares of the service cores at most SIDE_BY_SIDE_MAX_SHARE_GAP apart."""
    if first.side_share is None or second.side_share is None:
        return first.side_share is None and second.side_share is None
    return abs(first.side_share - second.side_share) <= SIDE_BY_SIDE_MAX_SHARE_GAP


def t_interval(values: np.ndarray) -> tuple[float, float, float, float | None]:
    """Mean, its 95% t-interval and the two-sided p-value of mean == 0 (n >= 2)."""
    n = values.size
    mean = float(values.mean())
    sd = float(values.std(ddof=1))
    if sd == 0.0:
        return mean, mean, mean, (1.0 if mean == 0.0 else 0.0)
    se = sd / math.sqrt(n)
    half = float(stats.t.ppf(1 - ALPHA / 2, n - 1)) * se
    p = float(2 * stats.t.sf(abs(mean) / se, n - 1))
    return mean, mean - half, mean + half, p


def interval_at_look(
    values: np.ndarray, design: SequentialDesign | None
) -> tuple[float, float, float, float | None, str | None]:
    """Mean, its 95% interval, the two-sided p-value of mean == 0 and a note (n >= 2): the
    fixed-n t without a design, else the design's repeated interval and p-value at this look."""
    if design is None:
        return (*t_interval(values), None)
    n = values.size
    look = design.look_at(n)
    if look is None:
        early = f"{n} paired rounds, before the sequential design's first look at {design.looks[0]}: fixed-n interval"
        return (*t_interval(values), early)
    note = None
    if look != n:
        note = f"{n} paired rounds is not a planned look (a round failed): read at the design's level as look {look}"
    if float(values.std(ddof=1)) == 0.0:
        return (*t_interval(values), note)
    mean, low, high = sequential.repeated_interval(values, design, ALPHA)
    return mean, low, high, sequential.repeated_p_value(values, design), note


def _pct(log_value: float) -> float:
    return 100.0 * math.expm1(log_value)


def _r(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def change(metric: Metric, pairs: list[tuple[float, float]], design: SequentialDesign | None = None) -> Change:
    """The paired change of one metric; significance is set later (Holm, see `compare`). With a
    `design`, the interval and p-value are the repeated ones at this look."""
    n = len(pairs)
    base = np.asarray([b for b, _ in pairs], dtype=float)
    cand = np.asarray([c for _, c in pairs], dtype=float)
    common = {
        "metric": metric.name,
        "label": metric.label,
        "unit": metric.unit,
        "higher_is_worse": metric.higher_is_worse,
    }
    if n == 0:
        note = "not measured in any round that both the baseline and this configuration completed"
        return Change(
            **common,
            pairs=0,
            baseline=None,
            candidate=None,
            absolute=Interval(estimate=None),
            relative_pct=Interval(estimate=None),
            summary=f"{metric.label}: unknown ({note})",
            note=note,
        )
    notes = []
    difference = cand - base
    digits = metric.digits
    absolute = Interval(estimate=_r(float(difference.mean()), digits))
    relative = Interval(estimate=None)
    p_value = None
    positive = bool(np.all(base > 0) and np.all(cand > 0))
    if not positive:
        notes.append("no relative change: a baseline or candidate value is zero")
    if n >= 2:
        mean, low, high, p_abs, look_note = interval_at_look(difference, design)
        absolute = Interval(estimate=_r(mean, digits), low=_r(low, digits), high=_r(high, digits))
        p_value = p_abs
        if positive:
            log_mean, log_low, log_high, p_value, look_note = interval_at_look(np.log(cand / base), design)
            relative = Interval(estimate=_r(_pct(log_mean)), low=_r(_pct(log_low)), high=_r(_pct(log_high)))
        if look_note:
            notes.append(look_note)
    else:
        notes.append("an interval needs at least 2 paired rounds")
        if positive:
            relative = Interval(estimate=_r(_pct(float(np.log(cand / base).mean()))))
    result = Change(
        **common,
        pairs=n,
        baseline=_r(float(base.mean()), digits),
        candidate=_r(float(cand.mean()), digits),
        absolute=absolute,
        relative_pct=relative,
        p_value=_r(p_value, 6),
        summary="",
        note="; ".join(notes) or None,
    )
    return result


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None and does not count in m).

    Our own on purpose: SciPy (already a dependency) offers only Benjamini-Hochberg
    (`false_discovery_control`), which bounds the false discovery rate, not the family-wise
    error an A/A must keep under 5%; statsmodels' `multipletests` has Holm but would bring
    pandas and patsy into the backend for these eight lines, and it does not take the unknown
    (None) p-values we leave out of m."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(indexed)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def decide(item: Change, p_adjusted: float | None) -> Change:
    item.p_adjusted = _r(p_adjusted, 6)
    item.significant = p_adjusted is not None and p_adjusted < ALPHA
    estimate = item.relative_pct.estimate if item.relative_pct.estimate is not None else item.absolute.estimate
    if estimate is None:
        item.direction = "unknown"
    elif item.significant:
        item.direction = "worse" if (estimate > 0) == item.higher_is_worse else "better"
    else:
        item.direction = "unchanged"
    item.summary = describe(item)
    return item


def compare(
    baseline: Sequence[RoundSample],
    candidate: Sequence[RoundSample],
    metrics: Mapping[str, Metric] = METRICS,
    design: SequentialDesign | None = None,
) -> dict[str, Change]:
    """Every metric's paired change, significance decided with Holm over the metrics (on the
    repeated p-values when a sequential `design` is given)."""
    changes = {
        name: change(metric, paired_values(baseline, candidate, metric), design) for name, metric in metrics.items()
    }
    adjusted = holm([c.p_value for c in changes.values()])
    for item, p in zip(changes.values(), adjusted, strict=True):
        decide(item, p)
    m = sum(p is not None for p in adjusted)
    for item in changes.values():
        if item.p_value is not None and item.p_value < ALPHA and not item.significant:
            extra = f"p = {item.p_value:.3f} alone, not significant after Holm's correction over {m} metrics"
            item.note = f"{item.note}; {extra}" if item.note else extra
    return changes


def noise_floor(
    baseline: Sequence[RoundSample],
    candidates: Sequence[Sequence[RoundSample]],
    rounds: int | None = None,
    metrics: Mapping[str, Metric] = METRICS,
    design: SequentialDesign | None = None,
) -> dict[str, NoiseFloor]:
    """Per metric, the 95% half-width at `rounds` pairs (default: the experiment's own) from the
    pooled spread of every candidate's paired log ratios around its own mean; with a sequential
    `design`, the repeated interval's half-width at that look."""
    result = {}
    for name, metric in metrics.items():
        residuals: list[float] = []
        df = 0
        counts = []
        for candidate in candidates:
            pairs = [(b, c) for b, c in paired_values(baseline, candidate, metric) if b > 0 and c > 0]
            if len(pairs) < 2:
                continue
            logs = np.log([c / b for b, c in pairs])
            residuals += list(logs - logs.mean())
            df += len(pairs) - 1
            counts.append(len(pairs))
        base_values = [v for s in baseline if (v := round_value(s, metric)) is not None]
        level = float(np.mean(base_values)) if base_values else None
        if df == 0:
            note = (
                "needs a second configuration with at least 2 rounds paired with the baseline "
                "(an A/A: tracetax calibrate)"
            )
            result[name] = NoiseFloor(
                metric=name,
                label=metric.label,
                unit=metric.unit,
                relative_pct=None,
                absolute=None,
                pairs=0,
                sd_log=None,
                df=0,
                note=note,
            )
            continue
        sd = math.sqrt(float(np.sum(np.square(residuals))) / df)
        pairs_at = rounds or max(counts)
        half = resolution_pct(sd, df, pairs_at, design)
        result[name] = NoiseFloor(
            metric=name,
            label=metric.label,
            unit=metric.unit,
            relative_pct=_r(half),
            absolute=_r(level * half / 100, metric.digits) if level is not None and half is not None else None,
            pairs=pairs_at,
            sd_log=round(sd, 6),
            df=df,
        )
    return result


def resolution_pct(sd_log: float, df: int, pairs: int, design: SequentialDesign | None = None) -> float | None:
    """95% half-width, in %, of a paired relative change over `pairs` rounds, given the pooled
    log-ratio spread `sd_log` estimated with `df` degrees of freedom: fixed-n, or the repeated
    interval's at that look of a sequential `design` (fixed-n before its first look, as `change`)."""
    if pairs < 2 or df < 1:
        return None
    if design is not None and design.look_at(pairs) is not None:
        return _pct(sequential.half_width(sd_log, pairs, design, ALPHA))
    return _pct(float(stats.t.ppf(1 - ALPHA / 2, pairs - 1)) * sd_log / math.sqrt(pairs))


def rounds_to_resolve(
    sd_log: float, df: int, target_pct: float, most: int = 50, design: SequentialDesign | None = None
) -> int | None:
    """The fewest paired rounds whose half-width is within `target_pct`, or None beyond `most`;
    with a sequential `design`, the first of its looks (up to `most`) that resolves it."""
    candidates = range(2, most + 1) if design is None else [look for look in design.looks if look <= most]
    for pairs in candidates:
        half = resolution_pct(sd_log, df, pairs, design)
        if half is not None and half <= target_pct:
            return pairs
    return None


class MetricPrecision(BaseModel):
    """How wide one metric's interval is now: the widest over the candidates."""

    metric: str
    label: str
    # + half-width of the relative interval, in % (the upper side, the wider); None: unknown
    half_width_pct: float | None
    # The configuration with that widest (or unknown) interval, and its paired rounds.
    configuration: str | None
    pairs: int
    reached: bool


class PrecisionStatus(BaseModel):
    """Whether every metric a spec's `precision` names is as narrow as asked, after a round."""

    target_pct: float
    metrics: dict[str, MetricPrecision]
    reached: bool
    summary: str


def _candidate_half_width(
    baseline: Sequence[RoundSample], candidate: Sequence[RoundSample], metric: Metric, design: SequentialDesign | None
) -> tuple[float | None, int]:
    pairs = [(b, c) for b, c in paired_values(baseline, candidate, metric) if b > 0 and c > 0]
    if len(pairs) < 2:
        return None, len(pairs)
    logs = np.log([c / b for b, c in pairs])
    return resolution_pct(float(np.std(logs, ddof=1)), len(pairs) - 1, len(pairs), design), len(pairs)


def _metric_precision(
    name: str,
    baseline: Sequence[RoundSample],
    candidates: Mapping[str, Sequence[RoundSample]],
    half_width_pct: float,
    design: SequentialDesign | None,
    catalog: Mapping[str, Metric],
) -> MetricPrecision:
    if name not in catalog:
        raise ValueError(f"metrics: unknown metric {name!r}; accepted: {', '.join(catalog)}")
    metric = catalog[name]
    items = []
    for configuration, rounds in candidates.items():
        half, pairs = _candidate_half_width(baseline, rounds, metric, design)
        items.append(
            MetricPrecision(
                metric=name,
                label=metric.label,
                half_width_pct=_r(half),
                configuration=configuration,
                pairs=pairs,
                reached=half is not None and half <= half_width_pct,
            )
        )
    if not items:
        return MetricPrecision(
            metric=name, label=metric.label, half_width_pct=None, configuration=None, pairs=0, reached=False
        )
    # Unknown is the widest of all: a metric is reached only when every candidate's is.
    unknown = [item for item in items if item.half_width_pct is None]
    worst = unknown[0] if unknown else max(items, key=lambda item: item.half_width_pct or 0.0)
    return worst.model_copy(update={"reached": all(item.reached for item in items)})


def precision_status(
    baseline: Sequence[RoundSample],
    candidates: Mapping[str, Sequence[RoundSample]],
    metrics: Sequence[str],
    half_width_pct: float,
    design: SequentialDesign | None,
    catalog: Mapping[str, Metric] = METRICS,
) -> PrecisionStatus:
    """After a round: per named metric, the widest relative half-width over the candidates (by
    configuration name) at the current look of `design`, and whether all are within
    `half_width_pct`. The engine stops adding rounds when `reached`."""
    status = {name: _metric_precision(name, baseline, candidates, half_width_pct, design, catalog) for name in metrics}
    wide = [item for item in status.values() if not item.reached]
    target = f"±{half_width_pct:g}%"
    if not wide:
        shown = ", ".join(f"{item.label} ±{item.half_width_pct:.1f}%" for item in status.values())
        summary = f"every metric within {target}: {shown}"
    else:
        summary = f"still wider than {target}: " + "; ".join(_wide_text(item) for item in wide)
    return PrecisionStatus(target_pct=half_width_pct, metrics=status, reached=not wide, summary=summary)


def _wide_text(item: MetricPrecision) -> str:
    if item.configuration is None:
        return f"{item.label} unknown (no configuration besides the baseline)"
    where = f"{item.configuration}, {item.pairs} paired rounds"
    if item.half_width_pct is None:
        return f"{item.label} unknown ({where}: an interval needs 2 rounds with positive values on both sides)"
    return f"{item.label} ±{item.half_width_pct:.1f}% ({where})"


# -- words -----------------------------------------------------------------------------------


MINUS = "\N{MINUS SIGN}"  # a typeset minus: a drop reads as one at a glance


def _sign(value: float) -> str:
    return "+" if value > 0 else MINUS if value < 0 else "±"


def _scaled(size: float, unit: str) -> str:
    if unit == "us":
        for factor, name in ((1e6, "s"), (1e3, "ms")):
            if size >= factor:
                return f"{size / factor:.2f} {name}"
        return f"{size:.0f} µs"
    if unit == "cores":
        return f"{size:.2f} cores" if size >= 1 else f"{size * 1000:.1f} millicores"
    if unit == "bytes":
        for factor, name in ((2**20, "MiB"), (2**10, "KiB")):
            if size >= factor:
                return f"{size / factor:.1f} {name}"
        return f"{size:.0f} B"
    return f"{size:,.0f} {unit}"


def format_value(value: float, unit: str, signed: bool = False) -> str:
    """A value in its unit at a readable scale: µs -> ms -> s, bytes -> KiB/MiB, req/s."""
    sign = _sign(value) if signed else (MINUS if value < 0 else "")
    return f"{sign}{_scaled(abs(value), unit)}"


def format_optional(value: float | None, unit: str) -> str:
    """format_value, or "-" for a figure that does not apply (a variant without downstreams)."""
    return "-" if value is None else format_value(float(value), unit)


def format_count(value: float | None) -> str:
    """A count of spans or records; "unknown" (never 0) where it could not be read."""
    return "unknown" if value is None else f"{value:,.0f}"


def format_pct(value: float) -> str:
    return f"{_sign(value)}{abs(value):.1f}%"


WORDS: dict[Direction, str] = {
    "worse": "worse",
    "better": "better",
    "unchanged": "no significant change",
    "unknown": "unknown",
}


def describe(item: Change) -> str:
    """One line that reads the same in the API, CLI, UI and JUnit:
    "+1.02 ms p50 (+0.95 ms to +1.09 ms), +4.1% — worse"."""
    absolute, relative = item.absolute, item.relative_pct
    if absolute.estimate is None:
        return f"{item.label}: unknown" + (f" ({item.note})" if item.note else "")
    text = f"{format_value(absolute.estimate, item.unit, signed=True)} {item.label}"
    if absolute.low is not None and absolute.high is not None:
        low, high = format_value(absolute.low, item.unit, True), format_value(absolute.high, item.unit, True)
        text += f" ({low} to {high})"
    if relative.estimate is not None:
        text += f", {format_pct(relative.estimate)}"
    return f"{text} — {WORDS[item.direction]}"
