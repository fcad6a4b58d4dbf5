"""Overhead of each configuration against the baseline, with 95% bootstrap intervals.

Latency percentiles: a two-level (hierarchical) bootstrap. Each resample draws rounds with
replacement (round-to-round drift is the larger noise) and then requests within each drawn
round (a Poisson redraw of its histogram counts, the standard large-sample form of the
multinomial), merges them and takes the percentile of the merged distribution, exactly as
the point estimate does. Per-round metrics (maximum throughput, CPU per request, RSS) have
one value per round: scipy's bootstrap of the relative difference of means.

With a handful of rounds a plain percentile interval is too narrow (the bootstrap variance of
n rounds is (n-1)/n of the real one, and quantiles of few draws are optimistic). So the
interval is estimate +/- t(df) x the bootstrap standard error (corrected by n/(n-1)), with
df = rounds of both sides - 2: wider with few rounds, as it should be when a CI gate must
never fail a build on noise. An overhead is significant when its interval excludes zero.

The noise floor compares the baseline with itself (both sides resampled from the baseline's
own rounds): its interval is the smallest overhead this experiment can tell from noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel
from scipy import stats

from tracetax.engine import histogram as hdr

CONFIDENCE = 0.95
RESAMPLES = 1000
LATENCY_METRICS: dict[str, float] = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p99.9": 99.9}
# metric -> whether a higher value is worse (throughput: a drop is the overhead)
ROUND_METRICS: dict[str, bool] = {"max_throughput_rps": False, "cpu_per_request_us": True, "rss_max_bytes": True}


class Interval(BaseModel):
    """Overhead in percent of the baseline: positive means worse than the baseline."""

    estimate: float | None
    low: float | None = None
    high: float | None = None
    significant: bool = False
    note: str | None = None


@dataclass(frozen=True)
class RoundSample:
    """One completed round of one configuration, as the statistics need it."""

    histogram: str | None
    max_throughput_rps: float | None
    cpu_per_request_us: float | None
    rss_max_bytes: float | None


def histogram_arrays(encoded: str) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values in µs, their counts) of an encoded HDR histogram."""
    histogram = hdr.decode(encoded)
    values, counts = [], []
    for item in histogram.get_recorded_iterator():
        values.append(histogram.get_highest_equivalent_value(item.value_iterated_to))
        counts.append(item.count_added_in_this_iter_step)
    return np.asarray(values, dtype=np.int64), np.asarray(counts, dtype=np.int64)


def percentile_of(grid: np.ndarray, counts: np.ndarray, percentile: float) -> np.ndarray:
    """HDR-style percentile along the last axis: the lowest value with that share at or below it."""
    cumulative = np.cumsum(counts, axis=-1)
    total = cumulative[..., -1:]
    target = np.maximum(np.ceil(total * percentile / 100.0), 1)
    index = (cumulative < target).sum(axis=-1)
    return np.asarray(grid[np.minimum(index, grid.size - 1)])


class _LatencyRounds:
    """Rounds' histograms on one shared value grid, for fast resampling."""

    def __init__(self, encoded: Sequence[str], grid: np.ndarray) -> None:
        self.matrix = np.zeros((len(encoded), grid.size), dtype=np.int64)
        for row, text in enumerate(encoded):
            values, counts = histogram_arrays(text)
            self.matrix[row, np.searchsorted(grid, values)] = counts

    def point(self, grid: np.ndarray, percentile: float) -> float:
        return float(percentile_of(grid, self.matrix.sum(axis=0), percentile))

    def resample(self, grid: np.ndarray, percentile: float, rng: np.random.Generator, n: int) -> np.ndarray:
        rounds = rng.integers(0, self.matrix.shape[0], size=(n, self.matrix.shape[0]))
        redrawn = rng.poisson(self.matrix[rounds]).sum(axis=1)  # (n, grid)
        return percentile_of(grid, redrawn, percentile).astype(float)

    @property
    def rounds(self) -> int:
        return int(self.matrix.shape[0])


def _relative(candidate: np.ndarray | float, baseline: np.ndarray | float, higher_is_worse: bool = True) -> np.ndarray:
    difference = np.subtract(candidate, baseline) if higher_is_worse else np.subtract(baseline, candidate)
    return np.asarray(100.0 * difference / np.maximum(baseline, 1e-12))


def _interval(
    estimate: float, draws: np.ndarray, base_rounds: int, candidate_rounds: int, higher_is_worse: bool = True
) -> Interval:
    """estimate +/- t x SE, clipped to what is possible: a latency or cost cannot fall by more
    than 100%, and a throughput cannot lose more than 100%."""
    smallest = min(base_rounds, candidate_rounds)
    correction = np.sqrt(smallest / (smallest - 1)) if smallest > 1 else 1.0
    error = float(np.std(draws, ddof=1)) * correction
    df = max(base_rounds + candidate_rounds - 2, 1)
    half_width = float(stats.t.ppf(0.5 + CONFIDENCE / 2, df)) * error
    low, high = estimate - half_width, estimate + half_width
    if higher_is_worse:
        low = max(low, -100.0)
    else:
        high = min(high, 100.0)
    return Interval(
        estimate=round(estimate, 2), low=round(low, 2), high=round(high, 2), significant=bool(low > 0 or high < 0)
    )


def latency_overhead(
    baseline: Sequence[str], candidate: Sequence[str], percentile: float, seed: int = 0, resamples: int = RESAMPLES
) -> Interval:
    if not baseline or not candidate:
        return Interval(estimate=None, note="no completed round with latencies")
    grid = np.unique(np.concatenate([histogram_arrays(text)[0] for text in (*baseline, *candidate)]))
    base, cand = _LatencyRounds(baseline, grid), _LatencyRounds(candidate, grid)
    rng = np.random.default_rng(seed)
    estimate = float(_relative(cand.point(grid, percentile), base.point(grid, percentile)))
    draws = _relative(cand.resample(grid, percentile, rng, resamples), base.resample(grid, percentile, rng, resamples))
    return _interval(estimate, draws, base.rounds, cand.rounds)


def round_metric_overhead(
    baseline: Sequence[float],
    candidate: Sequence[float],
    higher_is_worse: bool,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Interval:
    if not baseline or not candidate:
        return Interval(estimate=None, note="not measured in a completed round")
    estimate = float(_relative(float(np.mean(candidate)), float(np.mean(baseline)), higher_is_worse))
    if len(baseline) < 2 or len(candidate) < 2:
        return Interval(estimate=round(estimate, 2), note="an interval needs at least 2 rounds per configuration")

    def statistic(base: np.ndarray, cand: np.ndarray, axis: int = -1) -> np.ndarray:
        return _relative(np.mean(cand, axis=axis), np.mean(base, axis=axis), higher_is_worse)

    result = stats.bootstrap(
        (np.asarray(baseline, float), np.asarray(candidate, float)),
        statistic,
        n_resamples=resamples,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=True,
        random_state=seed,
    )
    distribution = np.asarray(result.bootstrap_distribution)
    return _interval(estimate, distribution, len(baseline), len(candidate), higher_is_worse)


def _values(rounds: Sequence[RoundSample], metric: str) -> list[float]:
    return [float(v) for r in rounds if (v := getattr(r, metric)) is not None]


def _histograms(rounds: Sequence[RoundSample]) -> list[str]:
    return [r.histogram for r in rounds if r.histogram]


def overhead(baseline: Sequence[RoundSample], candidate: Sequence[RoundSample], seed: int = 0) -> dict[str, Interval]:
    result = {
        name: latency_overhead(_histograms(baseline), _histograms(candidate), p, seed)
        for name, p in LATENCY_METRICS.items()
    }
    for metric, higher_is_worse in ROUND_METRICS.items():
        result[metric] = round_metric_overhead(
            _values(baseline, metric), _values(candidate, metric), higher_is_worse, seed
        )
    return result


def noise_floor(baseline: Sequence[RoundSample], seed: int = 0) -> dict[str, Interval]:
    """The baseline against itself: both sides resampled from the same rounds (estimate 0)."""
    result: dict[str, Interval] = {}
    histograms = _histograms(baseline)
    if histograms:
        grid = np.unique(np.concatenate([histogram_arrays(text)[0] for text in histograms]))
        rounds = _LatencyRounds(histograms, grid)
        rng = np.random.default_rng(seed)
        for name, p in LATENCY_METRICS.items():
            draws = _relative(rounds.resample(grid, p, rng, RESAMPLES), rounds.resample(grid, p, rng, RESAMPLES))
            result[name] = _interval(0.0, draws, rounds.rounds, rounds.rounds)
    for metric, higher_is_worse in ROUND_METRICS.items():
        values = _values(baseline, metric)
        if len(values) < 2:
            result[metric] = Interval(estimate=0.0, note="an interval needs at least 2 rounds")
            continue
        rng = np.random.default_rng(seed)
        a = rng.choice(values, size=(RESAMPLES, len(values))).mean(axis=1)
        b = rng.choice(values, size=(RESAMPLES, len(values))).mean(axis=1)
        result[metric] = _interval(0.0, _relative(b, a, higher_is_worse), len(values), len(values), higher_is_worse)
    return result
