"""Change points in a series of overheads, each point an estimate with its own 95% interval.

Run-to-run noise fools change-point detectors that see only the estimates (conbench raised its
threshold to z = 30 after false alarms). Here every point carries its interval, so a break is
judged against the noise the points themselves declare, in two steps:

1. **Proposal**: ruptures' PELT with an l2 cost on the estimates (segments of at least 2 points,
   so a lone spike is never a segment of its own) and a BIC-like penalty scaled by the noise,
   `2 s² ln n`, where s² is the median per-point variance. Splitting n points in halves at a step
   d lowers the l2 cost by about n d² / 4, so a step of the points' own noise (d = s) is not
   proposed in a series of fewer than about 26 points, and a step of several s is.
2. **Test**: each proposed break compares the segments on either side. A segment's mean is the
   inverse-variance weighted mean of its points; its standard error is the larger of the one
   the points' own intervals give (1 / sqrt(Σ w)) and the one the scatter within the segment
   gives (the same, scaled by the Birge ratio sqrt(χ² / (n - 1)) when above 1). The shift is
   kept when |shift| / SE > z*, two-sided, with z* = 3 for one proposal and Bonferroni over the
   proposals (a family-wise 0.27% for the whole series: z* = Φ⁻¹(1 - 0.0027 / (2m)) for m
   proposals). The shift must also be larger than the points' own noise (the median standard
   error of the points on either side), so that a long series cannot make a shift smaller than
   one point's noise significant. The weakest failing break is dropped and its neighbours
   merged, then the remaining ones are tested again, until every remaining break passes.
   Bonferroni counts the proposals, not every position PELT searched, so the level holds for
   short series: measured on flat series with their true intervals, about 1% of 12-point
   series and about 5% of 100-point ones show a false change point.

A point's standard error is its interval's half-width / 1.96. Points without an interval (or
with an empty one) take the series' scatter instead: the median absolute first difference /
(0.6745 · √2), which a step does not inflate. That scatter is itself estimated from the few
points there are, so a break with such points on either side is tested against Student's t
with n - (segments) degrees of freedom at the same level instead of the normal: a series
without any interval is judged on its own scatter, and is not fooled by an unlucky estimate of
it. Fewer than 4 points have no change points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import ruptures
from scipy import stats

Z95 = 1.959963984540054
# Two-sided family-wise level over a series' proposals: that of z > 3 for a single one.
FAMILY_ALPHA = 2 * float(stats.norm.sf(3.0))
MIN_POINTS = 4
MIN_SEGMENT = 2
# Normal-consistent scale of the median absolute first difference (differences have √2 s).
MAD_SCALE = 0.6744897501960817 * math.sqrt(2)


@dataclass(frozen=True)
class SeriesPoint:
    """One check's value of a metric: the estimate and its 95% interval (None when unknown)."""

    estimate: float
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        if not math.isfinite(self.estimate):
            raise ValueError(f"SeriesPoint.estimate must be a finite number, not {self.estimate!r}")
        for name in ("low", "high"):
            bound = getattr(self, name)
            if bound is not None and not math.isfinite(bound):
                raise ValueError(f"SeriesPoint.{name} must be a finite number or None, not {bound!r}")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"SeriesPoint.low ({self.low}) must not exceed SeriesPoint.high ({self.high})")

    @property
    def standard_error(self) -> float | None:
        """The interval's half-width / 1.96; None without a (non-empty) interval."""
        if self.low is None or self.high is None or self.high <= self.low:
            return None
        return (self.high - self.low) / (2 * Z95)


@dataclass(frozen=True)
class ChangePoint:
    index: int  # position in the series of the first point after the change
    before: float  # the mean of the segment before it
    after: float  # the mean of the segment after it
    shift: float  # after - before
    low: float  # the shift's 95% interval
    high: float


@dataclass(frozen=True)
class _Segment:
    mean: float
    standard_error: float


def series_scatter(estimates: Sequence[float]) -> float:
    """A robust per-point noise of the estimates: a step between two points moves one first
    difference only, which the median ignores. 0 for fewer than 2 points."""
    if len(estimates) < 2:
        return 0.0
    differences = np.abs(np.diff(np.asarray(estimates, dtype=float)))
    return float(np.median(differences)) / MAD_SCALE


def point_variances(points: Sequence[SeriesPoint]) -> np.ndarray:
    """Each point's variance: its own interval's, else the series' scatter (never exactly 0, so
    that weights stay finite; a tiny floor relative to the values' scale)."""
    estimates = [point.estimate for point in points]
    scale = max((abs(value) for value in estimates), default=1.0) or 1.0
    floor = (1e-9 * scale) ** 2
    scatter = series_scatter(estimates)
    variances = [(point.standard_error if point.standard_error is not None else scatter) ** 2 for point in points]
    return np.asarray(np.maximum(np.asarray(variances, dtype=float), floor), dtype=float)


def weighted_segment(values: np.ndarray, variances: np.ndarray) -> _Segment:
    """The inverse-variance weighted mean and its standard error, widened by the Birge ratio when
    the points scatter more than their own intervals say."""
    weights = 1.0 / variances
    mean = float(np.sum(weights * values) / np.sum(weights))
    own = math.sqrt(1.0 / float(np.sum(weights)))
    if values.size < 2:
        return _Segment(mean, own)
    chi2 = float(np.sum(weights * (values - mean) ** 2))
    birge = math.sqrt(chi2 / (values.size - 1))
    return _Segment(mean, own * max(1.0, birge))


def _proposals(values: np.ndarray, variances: np.ndarray) -> list[int]:
    """PELT's breaks (indices of the first point after each), the noise-scaled penalty deciding."""
    noise = float(np.median(variances))
    penalty = 2.0 * noise * math.log(values.size)
    algorithm = ruptures.Pelt(model="l2", min_size=MIN_SEGMENT, jump=1).fit(values.reshape(-1, 1))
    ends: list[int] = algorithm.predict(pen=penalty)
    return [int(end) for end in ends[:-1]]  # the last "break" is the series' end


@dataclass(frozen=True)
class _Series:
    values: np.ndarray
    variances: np.ndarray
    with_interval: np.ndarray  # per point: True when its own interval gave its variance
    proposals: int  # how many breaks PELT proposed (the Bonferroni family)


@dataclass(frozen=True)
class _Tested:
    excess: float  # |z| over its threshold (> 1 keeps the break), 0 when below the points' noise
    point: ChangePoint


def _threshold(series: _Series, start: int, end: int, segments: int) -> float:
    """The two-sided critical value at the family's level: normal when every point on either side
    has its own interval, Student's t when the series' estimated scatter stands in for some."""
    tail = FAMILY_ALPHA / (2 * max(1, series.proposals))
    if bool(np.all(series.with_interval[start:end])):
        return float(stats.norm.isf(tail))
    return float(stats.t.isf(tail, max(1, series.values.size - segments)))


def _tested(series: _Series, breaks: list[int]) -> list[_Tested]:
    """Each break's change point and how far it clears its test, between its neighbouring breaks."""
    bounds = [0, *breaks, series.values.size]
    tested = []
    for position, index in enumerate(breaks, start=1):
        start, end = bounds[position - 1], bounds[position + 1]
        before = weighted_segment(series.values[start:index], series.variances[start:index])
        after = weighted_segment(series.values[index:end], series.variances[index:end])
        shift = after.mean - before.mean
        error = math.hypot(before.standard_error, after.standard_error)
        point_noise = math.sqrt(float(np.median(series.variances[start:end])))
        z = abs(shift) / error if error > 0 else math.inf
        excess = z / _threshold(series, start, end, len(breaks) + 1) if abs(shift) > point_noise else 0.0
        point = ChangePoint(
            index=index,
            before=before.mean,
            after=after.mean,
            shift=shift,
            low=shift - Z95 * error,
            high=shift + Z95 * error,
        )
        tested.append(_Tested(excess, point))
    return tested


def change_points(points: Sequence[SeriesPoint]) -> list[ChangePoint]:
    """The significant changes in a series (oldest first), in order; see the module's docstring."""
    if len(points) < MIN_POINTS:
        return []
    values = np.asarray([point.estimate for point in points], dtype=float)
    variances = point_variances(points)
    breaks = _proposals(values, variances)
    with_interval = np.asarray([point.standard_error is not None for point in points], dtype=bool)
    series = _Series(values, variances, with_interval, len(breaks))
    while breaks:
        tested = _tested(series, breaks)
        weakest = min(tested, key=lambda item: item.excess)
        if weakest.excess > 1.0:
            return [item.point for item in tested]
        breaks.remove(weakest.point.index)
    return []


__all__ = ["ChangePoint", "SeriesPoint", "change_points", "series_scatter", "weighted_segment"]
