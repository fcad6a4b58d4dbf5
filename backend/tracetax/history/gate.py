"""A check's verdict against history: "the overhead did not grow beyond X against the last N
points of this branch" (`--against-history main:10`).

growth = the current point's estimate - the history's mean, with its 95% interval:

- **every history point has an interval**: a random-effects mean (DerSimonian-Laird). τ², the
  variance between points beyond their own intervals (runner drift, the machine of the day), is
  estimated from the history; the mean weights each point by 1 / (its variance + τ²), and the
  growth's variance is the current point's own + τ² + the mean's. A history that scatters more
  than its intervals say therefore widens the growth's interval, and a calm one does not. A
  current point without an interval takes the history points' median variance as its own.
- **some history point has no interval**: the plain mean; the growth's variance is the larger
  of the current point's own variance and the history's sample variance s², plus s² / n, read
  against Student's t with n - 1 degrees of freedom. A single such point shows no scatter: the
  growth is then reported without an interval (inconclusive).

fail when the interval's lower bound exceeds `max_growth`, pass when its upper bound is within
it, inconclusive otherwise. `max_growth` is in the metric's unit: percentage points for the
relative metrics (p50, p99, CPU per request), bytes, or dollars.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from tracetax.history.changepoints import Z95, SeriesPoint
from tracetax.history.metrics import HistoryMetricText, format_bound, format_growth

HistoryVerdict = Literal["pass", "fail", "inconclusive", "no_history"]
# A check's verdict with its judgements against history: what CI's exit code says (0, 1, 2).
OverallVerdict = Literal["pass", "fail", "error"]
# The judgements against history from the worst to the best: the order they are counted in.
HISTORY_VERDICT_ORDER: tuple[HistoryVerdict, ...] = ("fail", "inconclusive", "no_history", "pass")
# What a judgement against history may say and still let the check pass: a branch's first checks
# have no history yet, and that does not fail or err.
_PASSING_HISTORY = frozenset({"pass", "no_history"})


@dataclass(frozen=True)
class HistoryJudgement:
    metric: str
    verdict: HistoryVerdict
    growth: float | None  # current - the history's mean, in the metric's unit (None: unknown)
    low: float | None  # its 95% interval (None: unknown)
    high: float | None
    points: int  # history points compared with
    reason: str


@dataclass(frozen=True)
class _Growth:
    estimate: float
    low: float | None
    high: float | None


def _random_effects(current: SeriesPoint, history: Sequence[SeriesPoint], errors: list[float]) -> _Growth:
    values = np.asarray([point.estimate for point in history], dtype=float)
    variances = np.asarray(errors, dtype=float) ** 2
    weights = 1.0 / variances
    fixed_mean = float(np.sum(weights * values) / np.sum(weights))
    q = float(np.sum(weights * (values - fixed_mean) ** 2))
    spread = float(np.sum(weights) - np.sum(weights**2) / np.sum(weights))
    between = max(0.0, (q - (values.size - 1)) / spread) if spread > 0 else 0.0
    weights = 1.0 / (variances + between)
    mean = float(np.sum(weights * values) / np.sum(weights))
    own = current.standard_error
    current_variance = own**2 if own is not None else float(np.median(variances))
    error = math.sqrt(current_variance + between + 1.0 / float(np.sum(weights)))
    growth = current.estimate - mean
    return _Growth(growth, growth - Z95 * error, growth + Z95 * error)


def _plain(current: SeriesPoint, history: Sequence[SeriesPoint]) -> _Growth:
    values = np.asarray([point.estimate for point in history], dtype=float)
    growth = current.estimate - float(values.mean())
    if values.size < 2:
        return _Growth(growth, None, None)
    scatter = float(values.var(ddof=1))
    own = current.standard_error
    error = math.sqrt(max(scatter, own**2 if own is not None else 0.0) + scatter / values.size)
    quantile = float(stats.t.isf(0.025, values.size - 1))
    return _Growth(growth, growth - quantile * error, growth + quantile * error)


def _growth(current: SeriesPoint, history: Sequence[SeriesPoint]) -> _Growth:
    errors = [point.standard_error for point in history]
    known = [error for error in errors if error is not None]
    if len(known) == len(history):
        return _random_effects(current, history, known)
    return _plain(current, history)


def history_growth(current: SeriesPoint, history: Sequence[SeriesPoint]) -> tuple[float, float | None, float | None]:
    """current - the history's mean, and its 95% interval (see the module's docstring)."""
    growth = _growth(current, history)
    return growth.estimate, growth.low, growth.high


def _reason(
    text: HistoryMetricText, growth: _Growth, points: int, where: str, max_growth: float
) -> tuple[HistoryVerdict, str]:
    grew = "grew by" if growth.estimate > 0 else "changed by"
    change = f"{text.label} {grew} {format_growth(growth.estimate, text.unit)}"
    limit = f"limit {format_bound(max_growth, text.unit)}"
    against = f"against the last {points} point{'s' if points != 1 else ''} of {where}"
    if growth.low is None or growth.high is None:
        return "inconclusive", (
            f"{change} {against}; {limit}: no interval, the only earlier point has none and shows no scatter"
        )
    interval = f"({format_bound(growth.low, text.unit)} to {format_bound(growth.high, text.unit)})"
    if growth.low > max_growth:
        return "fail", f"{change} {interval} {against}; {limit}: over it beyond noise"
    if growth.high <= max_growth:
        return "pass", f"{change} {interval} {against}; {limit}: within it"
    return "inconclusive", f"{change} {interval} {against}; {limit}: the interval straddles it, cannot tell"


def judge_against_history(
    metric: str,
    text: HistoryMetricText,
    current: SeriesPoint | None,
    history: Sequence[SeriesPoint],
    max_growth: float,
    branch: str | None = None,
) -> HistoryJudgement:
    """Judge the current check's `metric` (named for people by `text`) against `history` (its
    branch's last points, any order). `current` None means the check could not measure the
    metric. `branch` only names the history in the reason."""
    if not math.isfinite(max_growth):
        raise ValueError(f"max_growth must be a finite number in the metric's unit, not {max_growth!r}")
    where = branch or "this branch"
    if not history:
        return HistoryJudgement(
            metric, "no_history", None, None, None, 0, f"no earlier point of {text.label} on {where} to compare with"
        )
    points = len(history)
    if current is None:
        return HistoryJudgement(
            metric,
            "inconclusive",
            None,
            None,
            None,
            points,
            f"{text.label} of this check is unknown: nothing to compare with the last {points} points of {where}",
        )
    growth = _growth(current, history)
    verdict, reason = _reason(text, growth, points, where, max_growth)
    return HistoryJudgement(metric, verdict, growth.estimate, growth.low, growth.high, points, reason)


def overall_verdict(same_run: str, history: Iterable[str] = ()) -> OverallVerdict:
    """The same-run verdict (`pass`, `fail`, `error`) and the judgements against history
    (their verdicts) together: fail when either fails, error when the run errs or a judgement
    cannot tell (inconclusive, or a verdict this version does not know), pass otherwise."""
    verdicts = set(history)
    if same_run == "fail" or "fail" in verdicts:
        return "fail"
    if same_run != "pass" or not verdicts <= _PASSING_HISTORY:
        return "error"
    return "pass"


def history_verdict_counts(history: Iterable[str]) -> list[tuple[str, int]]:
    """How many judgements against history say each verdict, the worst first (HISTORY_VERDICT_ORDER;
    a verdict this version does not know after them); verdicts no judgement says are left out."""
    verdicts = list(history)
    known = [level for level in HISTORY_VERDICT_ORDER if level in verdicts]
    unknown = sorted(set(verdicts) - set(HISTORY_VERDICT_ORDER))
    return [(level, verdicts.count(level)) for level in [*known, *unknown]]


__all__ = [
    "HISTORY_VERDICT_ORDER",
    "HistoryJudgement",
    "HistoryVerdict",
    "OverallVerdict",
    "history_growth",
    "history_verdict_counts",
    "judge_against_history",
    "overall_verdict",
]
