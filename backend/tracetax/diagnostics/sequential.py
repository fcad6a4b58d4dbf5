"""Intervals and p-values that stay valid however the experiment decides to stop.

An experiment asking for a precision adds rounds until its intervals are narrow enough, and a
check adds rounds until every budget line is conclusive. Looking at the data after every round
and stopping when an interval excludes 0 is a test repeated at every look: with the fixed-n
Student interval at each of 10 looks, an A/A comes out "significant" in about 15% of runs
instead of 5% (tests/diagnostics/test_sequential.py measures it). Repeated confidence intervals
(Jennison & Turnbull, *Group Sequential Methods*, ch. 9) fix it.

**The design.** A `SequentialDesign` lists the looks: the numbers of paired rounds at which the
data may be read (the spec's `rounds`, then each round the wall-time budget allows). At look k
the interval of the mean log ratio is mean ± c_k · sd / √n_k, with c_k the Student quantile at
the look's own degrees of freedom for one *nominal* two-sided level a, the same at every look
(Pocock's constant nominal level, carried over to t statistics by J&T's significance-level
approach for an unknown variance, here with a exact by simulation). a is
chosen so that, for normal data with no effect,

    P(|T_k| > c_k at some look k) = alpha  (0.05),

the probability taken over the nested looks of one sample. A constant critical value on the t
statistic itself would be ruled by the first look's few degrees of freedom (a t with 1 or 2 df
has enormous tails), so every later look would pay for it; a constant nominal level lets each
look's critical value follow its own df.

**Why it is valid under any stopping rule.** The intervals cover the true mean at *every* look
at once with probability 1 - alpha. Whatever rule picks the look to stop at (a precision
reached, an interval that excludes 0 or a budget, the time spent, the experimenter's mood), the
interval reported at that look is one of them, so it misses the truth with probability at most
alpha, and a test that rejects when it excludes 0 is wrong at most alpha of the time. The
repeated p-value of a look is the smallest alpha whose interval there excludes 0 (J&T ch. 9), so
it reads the same way, and Holm's correction over metrics applies to it as to any p-value.

**What it costs.** Each look's interval is wider than the fixed-n one of the same rounds (a is
below alpha): with looks at 5, 6, ..., 34 rounds, c is 5.1 at 5 rounds against Student's 2.78
and 2.87 at 34 against 2.03. An experiment that will not look again should use a one-look
design, which gives exactly Student's interval (and is what `None` means everywhere).

**How a is found.** The t statistics' joint null law does not depend on the variance, so one
seeded Monte Carlo per design serves every metric: 200,000 normal samples, each built segment by
segment between looks (a segment's sum and its within-segment squared deviations are
independent normal and chi-square draws, so only the looks are simulated), and a found by
bisection so that the fraction of samples crossing at some look is alpha less one Monte Carlo
standard error (0.0005): the design's true error rate is then 0.0495 ± 0.0005, never above
alpha by the luck of the seed.

**What it assumes.** The t statistic's law, as the fixed-n interval does. In an A/A the
engine's shuffled, side-swapped pairs make the log ratio symmetric, and heavy tails (skewed
noise on each side's figure) leave the error rate at 5% (tests/diagnostics/test_sequential.py).
A log ratio skewed in itself (one side alone hit by occasional bursts) makes even the fixed-n
t-test liberal (8% at 5 rounds for skewness 1.7); the repeated interval inherits that (10%
with 10 looks), which is one more reason the side-by-side phase exposes both sides alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats

from tracetax.spec.service import ExperimentSpec

DEFAULT_ALPHA = 0.05
SIMULATIONS = 200_000
SEED = 20_231_123
Sided = Literal["two-sided", "one-sided"]


@dataclass(frozen=True)
class SequentialDesign:
    """The numbers of paired rounds at which the data may be looked at, increasing, from 2."""

    looks: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.looks:
            raise ValueError("looks: a sequential design needs at least one look")
        if self.looks[0] < 2:
            raise ValueError(f"looks: the first look is at {self.looks[0]} rounds; an interval needs at least 2")
        if any(later <= earlier for earlier, later in zip(self.looks, self.looks[1:], strict=False)):
            raise ValueError(f"looks: must increase strictly, got {self.looks}")

    def look_at(self, pairs: int) -> int | None:
        """The largest look at or before `pairs` paired rounds (None before the first look)."""
        done = [look for look in self.looks if look <= pairs]
        return done[-1] if done else None


@dataclass(frozen=True)
class _NullSample:
    """Simulated t statistics at every look of a design, for normal data with mean 0."""

    t: np.ndarray  # (simulations, looks), float32
    df: np.ndarray  # (looks,) degrees of freedom


# A sample is SIMULATIONS x looks float32 (45 MB at 56 looks): the few designs in use are kept.
@lru_cache(maxsize=2)
def _null_sample(design: SequentialDesign) -> _NullSample:
    rng = np.random.default_rng(SEED)
    looks = np.asarray(design.looks, dtype=np.float32)
    segment = np.diff(looks, prepend=np.float32(0))
    # Per segment between looks: its sum ~ N(0, m) and its squared deviations around its own
    # mean ~ chi2(m - 1), independent; the running sum of squares adds sum^2 / m of each segment.
    # Single precision: sums of at most a few dozen unit draws, and twice as fast.
    sums = rng.standard_normal((SIMULATIONS, looks.size), dtype=np.float32)
    sums *= np.sqrt(segment)
    squares = sums * sums
    squares /= segment
    longer = np.flatnonzero(segment > 1)  # a one-round segment has no spread of its own
    squares[:, longer] += rng.chisquare(segment[longer] - 1, (SIMULATIONS, longer.size)).astype(np.float32)
    total = np.cumsum(sums, axis=1, out=sums)
    np.cumsum(squares, axis=1, out=squares)
    mean = total / looks
    # t = mean / sqrt(variance / n), variance = (squares - n mean^2) / (n - 1)
    squares -= looks * mean * mean
    squares /= looks * (looks - 1)
    np.sqrt(squares, out=squares)
    mean /= squares
    return _NullSample(t=mean, df=(looks - 1).astype(float))


def _crossing_fraction(sample: _NullSample, level: float, sided: Sided) -> float:
    """The fraction of null samples whose t crosses the nominal `level`'s quantile at some look."""
    if sided == "two-sided":
        bounds = stats.t.ppf(1 - level / 2, sample.df).astype(np.float32)
        return float(np.mean(np.any(np.abs(sample.t) > bounds, axis=1)))
    bounds = stats.t.ppf(1 - level, sample.df).astype(np.float32)
    return float(np.mean(np.any(sample.t > bounds, axis=1)))


@lru_cache(maxsize=256)
def nominal_level(design: SequentialDesign, alpha: float = DEFAULT_ALPHA, sided: Sided = "two-sided") -> float:
    """The per-look nominal level a whose intervals cover at every look at once with 1 - alpha."""
    if len(design.looks) == 1:
        return alpha  # one look: the fixed-n test itself, exactly
    sample = _null_sample(design)
    # Aim one Monte Carlo standard error below alpha, so that the seed's luck cannot make the
    # design liberal (about 0.0005 at 5%).
    target = alpha - math.sqrt(alpha * (1 - alpha) / SIMULATIONS)
    low, high = alpha / len(design.looks) / 2, alpha  # Bonferroni (halved) crosses less than alpha, alpha more
    for _ in range(16):  # the level to 0.1%: a bisection in the log
        middle = math.sqrt(low * high)
        if _crossing_fraction(sample, middle, sided) > target:
            high = middle
        else:
            low = middle
    return low


def critical_value(
    design: SequentialDesign, pairs: int, alpha: float = DEFAULT_ALPHA, sided: Sided = "two-sided"
) -> float:
    """The t critical value at `pairs` paired rounds (the look's own df, the design's level)."""
    if pairs < 2:
        raise ValueError(f"pairs: an interval needs at least 2 paired rounds, got {pairs}")
    level = nominal_level(design, alpha, sided)
    tail = level / 2 if sided == "two-sided" else level
    return float(stats.t.ppf(1 - tail, pairs - 1))


def repeated_interval(
    values: np.ndarray, design: SequentialDesign, alpha: float = DEFAULT_ALPHA
) -> tuple[float, float, float]:
    """Mean and its repeated (1 - alpha) interval, mean ± c · sd / √n, for the sample's own n."""
    n = values.size
    mean = float(values.mean())
    half = critical_value(design, n, alpha) * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def _repeated(design: SequentialDesign, naive_p: float, sided: Sided) -> float:
    """The smallest alpha whose repeated interval at this look excludes the null: the null
    probability that some look is at least as extreme (on the nominal scale) as this one."""
    if len(design.looks) == 1 or naive_p >= 1.0:
        return naive_p
    sample = _null_sample(design)
    crossings = _crossing_fraction(sample, naive_p, sided) * SIMULATIONS
    # (count + 1) / (N + 1): never 0, and conservative by one simulation.
    return min(1.0, (crossings + 1) / (SIMULATIONS + 1))


def repeated_p_value(values: np.ndarray, design: SequentialDesign) -> float:
    """Two-sided repeated p-value of mean == 0 at the sample's look (n >= 2)."""
    n = values.size
    sd = float(values.std(ddof=1))
    mean = float(values.mean())
    if sd == 0.0:
        return 1.0 if mean == 0.0 else 0.0
    naive = float(2 * stats.t.sf(abs(mean) / (sd / math.sqrt(n)), n - 1))
    return _repeated(design, naive, "two-sided")


def repeated_one_sided_p(values: np.ndarray, bound: float, design: SequentialDesign) -> float:
    """One-sided repeated p-value of "mean <= bound" against "mean > bound" (n >= 2)."""
    n = values.size
    sd = float(values.std(ddof=1))
    excess = float(values.mean()) - bound
    if sd == 0.0:
        return 0.0 if excess > 0 else 1.0
    naive = float(stats.t.sf(excess / (sd / math.sqrt(n)), n - 1))
    return _repeated(design, naive, "one-sided")


def half_width(sd: float, pairs: int, design: SequentialDesign, alpha: float = DEFAULT_ALPHA) -> float:
    """The repeated interval's half-width (in the data's scale) a spread `sd` gives at `pairs`."""
    return critical_value(design, pairs, alpha) * sd / math.sqrt(pairs)


__all__ = [
    "DEFAULT_ALPHA",
    "SequentialDesign",
    "critical_value",
    "half_width",
    "nominal_level",
    "repeated_interval",
    "repeated_one_sided_p",
    "repeated_p_value",
]


def design_of(spec: ExperimentSpec) -> SequentialDesign | None:
    """The design an experiment's statistics use: its planned looks when it asked for a
    precision (it may have stopped at any of them), None (a fixed number of rounds) otherwise."""
    return SequentialDesign(spec.planned_looks()) if spec.precision is not None else None
