"""Repeated confidence intervals: exact where there is one look, and an A/A error rate that
stays at 5% however the experiment decides to stop (where the fixed-n interval does not)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from tracetax.diagnostics.checks import Budget, judge
from tracetax.diagnostics.overhead import (
    METRICS,
    RoundSample,
    change,
    compare,
    precision_status,
    resolution_pct,
    rounds_to_resolve,
    t_interval,
)
from tracetax.diagnostics.sequential import (
    SequentialDesign,
    critical_value,
    repeated_interval,
    repeated_one_sided_p,
    repeated_p_value,
)

LOOKS = tuple(range(5, 15))  # the default 5 rounds, then up to 9 added: 10 looks
RUNS = 20_000  # A/A experiments per case: the rate's standard error is 0.0015 at 5%


def test_one_look_is_students_t() -> None:
    design = SequentialDesign((5,))
    values = np.asarray([0.03, -0.01, 0.05, 0.02, -0.02])
    assert critical_value(design, 5) == pytest.approx(float(stats.t.ppf(0.975, 4)), rel=1e-12)
    mean, low, high, p = t_interval(values)
    assert repeated_interval(values, design) == pytest.approx((mean, low, high), rel=1e-12)
    assert repeated_p_value(values, design) == pytest.approx(p, rel=1e-12)
    assert repeated_one_sided_p(values, 0.0, design) == pytest.approx(float(stats.ttest_1samp(values, 0).pvalue) / 2)


def test_a_one_look_design_leaves_todays_figures_unchanged() -> None:
    pairs = [(100.0, 103.0), (100.0, 99.0), (100.0, 104.0), (100.0, 101.0), (100.0, 102.5)]
    fixed = change(METRICS["p50"], pairs)
    one_look = change(METRICS["p50"], pairs, SequentialDesign((5,)))
    assert one_look == fixed


def test_the_critical_value_grows_with_looks() -> None:
    values = [critical_value(SequentialDesign(tuple(range(5, 5 + looks))), 5) for looks in (1, 2, 5, 10, 30)]
    assert values == sorted(values)
    assert values[0] < values[1] < values[-1]
    # Later looks pay less than the first: each look's value follows its own degrees of freedom.
    design = SequentialDesign(LOOKS)
    assert critical_value(design, 14) < critical_value(design, 5)
    assert critical_value(design, 14) > float(stats.t.ppf(0.975, 13))


def test_calibration_is_fast_and_cached() -> None:
    design = SequentialDesign(tuple(range(7, 37)))  # 30 looks, not used by another test
    started = time.perf_counter()
    critical_value(design, 7)
    assert time.perf_counter() - started < 1.0  # 0.3 s here; slack for a shared CI runner
    started = time.perf_counter()
    critical_value(design, 20)
    assert time.perf_counter() - started < 0.01


@pytest.mark.parametrize("looks", [(), (1, 2), (5, 5), (6, 5)])
def test_a_bad_design_is_refused(looks: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="looks"):
        SequentialDesign(looks)


def _normal(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.normal(0.0, 0.1, shape)


def _skewed(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """An A/A's log ratio when each side's figure carries right-skewed noise (a CPU figure that
    a busy second pushes up now and then): ln((1 + L1) / (1 + L2)), L log-normal (sigma 0.5).
    Symmetric, as the engine's shuffled, side-swapped pairs make an A/A, but heavy-tailed."""
    return np.log1p(rng.lognormal(0.0, 0.5, shape)) - np.log1p(rng.lognormal(0.0, 0.5, shape))


def _intervals(data: np.ndarray, factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per run and look: the interval's centre and half-width (data: runs x last look)."""
    looks = np.asarray(LOOKS)
    means = np.stack([data[:, :n].mean(axis=1) for n in looks], axis=1)
    sds = np.stack([data[:, :n].std(axis=1, ddof=1) for n in looks], axis=1)
    return means, factors * sds / np.sqrt(looks)


def _false_positive_rates(
    draw: Callable[[np.random.Generator, tuple[int, int]], np.ndarray], factors: np.ndarray, seed: int
) -> tuple[float, float]:
    """A/A false-positive rates under (a) stop when the half-width reaches a target (or at the
    last look) and (b) stop as soon as the interval excludes 0 (a check's "until conclusive")."""
    data = draw(np.random.default_rng(seed), (RUNS, LOOKS[-1]))
    means, halves = _intervals(data, factors)
    excludes = np.abs(means) > halves
    # (a) a target about the median half-width at the middle look, so runs stop all along.
    reached = halves <= np.median(halves[:, len(LOOKS) // 2])
    stop = np.where(reached.any(axis=1), reached.argmax(axis=1), len(LOOKS) - 1)
    precision_rule = float(excludes[np.arange(RUNS), stop].mean())
    conclusive_rule = float(excludes.any(axis=1).mean())
    return precision_rule, conclusive_rule


@pytest.mark.parametrize(("draw", "seed"), [(_normal, 1), (_skewed, 2)])
def test_stopping_on_the_data_keeps_false_positives_at_5_percent(
    draw: Callable[[np.random.Generator, tuple[int, int]], np.ndarray], seed: int
) -> None:
    design = SequentialDesign(LOOKS)
    repeated = np.asarray([critical_value(design, n) for n in LOOKS])
    precision_rule, conclusive_rule = _false_positive_rates(draw, repeated, seed)
    assert precision_rule <= 0.055
    assert conclusive_rule <= 0.055
    # ...and the test can fail: the fixed-n interval read at every look is wrong far more often.
    fixed = np.asarray([float(stats.t.ppf(0.975, n - 1)) for n in LOOKS])
    _, naive = _false_positive_rates(draw, fixed, seed)
    assert naive > 0.08


def test_the_repeated_p_value_agrees_with_the_interval() -> None:
    design = SequentialDesign(LOOKS)
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.05, 0.1, 0.2):
        values = rng.normal(shift, 0.1, 8)
        _, low, high = repeated_interval(values, design)
        p = repeated_p_value(values, design)
        naive = t_interval(values)[3]
        assert naive is not None and p >= naive
        if abs(p - 0.05) > 0.01:  # away from the Monte Carlo's resolution at the boundary
            assert (p < 0.05) == (low > 0 or high < 0)


def test_one_sided_repeated_p_is_above_the_fixed_one() -> None:
    design = SequentialDesign(LOOKS)
    values = np.asarray([0.12, 0.08, 0.15, 0.11, 0.09, 0.13])
    fixed = float(stats.t.sf((values.mean() - 0.05) / (values.std(ddof=1) / np.sqrt(6)), 5))
    assert fixed < repeated_one_sided_p(values, 0.05, design) < 1


def test_change_reads_the_design_at_its_look_and_says_when_off_it() -> None:
    design = SequentialDesign((4, 5, 6))
    rng = np.random.default_rng(4)
    ratios = np.exp(rng.normal(0.02, 0.05, 6))
    pairs = [(100.0, 100.0 * r) for r in ratios]
    at_look = change(METRICS["cpu_per_request_us"], pairs[:5], design)
    fixed = change(METRICS["cpu_per_request_us"], pairs[:5])
    assert at_look.note is None
    assert at_look.p_value == pytest.approx(repeated_p_value(np.log(ratios[:5]), design), abs=1e-6)
    assert at_look.relative_pct.high is not None and fixed.relative_pct.high is not None
    assert at_look.relative_pct.high > fixed.relative_pct.high  # the price of looking often
    early = change(METRICS["cpu_per_request_us"], pairs[:3], design)
    assert early.note is not None and "before the sequential design's first look at 4" in early.note
    assert early == change(METRICS["cpu_per_request_us"], pairs[:3]).model_copy(update={"note": early.note})
    off = change(METRICS["cpu_per_request_us"], pairs, SequentialDesign((4, 5, 7)))
    assert off.note is not None and "not a planned look" in off.note and "look 5" in off.note


def test_compare_applies_holm_to_the_repeated_p_values() -> None:
    design = SequentialDesign((3, 4, 5))
    baseline = [RoundSample(i, cpu_per_request_us=100.0, rss_max_bytes=1e6) for i in range(5)]
    candidate = [
        RoundSample(i, cpu_per_request_us=100.0 * (1.3 + 0.01 * i), rss_max_bytes=1e6 * (1 + 0.001 * (i - 2)))
        for i in range(5)
    ]
    changes = compare(baseline, candidate, {k: METRICS[k] for k in ("cpu_per_request_us", "rss_max_bytes")}, design)
    cpu = changes["cpu_per_request_us"]
    assert cpu.significant and cpu.direction == "worse"
    assert cpu.p_adjusted is not None and cpu.p_value is not None
    assert cpu.p_adjusted >= cpu.p_value
    assert not changes["rss_max_bytes"].significant


def _rounds(values: list[float]) -> list[RoundSample]:
    return [RoundSample(i, cpu_per_request_us=v, rss_max_bytes=1e6) for i, v in enumerate(values)]


def test_precision_status_is_the_widest_candidate_at_the_look() -> None:
    design = SequentialDesign((4, 5, 6))
    baseline = _rounds([100.0] * 5)
    candidates = {
        "tight": _rounds([101.0, 100.5, 101.5, 100.8, 101.2]),
        "loose": _rounds([110.0, 92.0, 105.0, 97.0, 104.0]),
    }
    status = precision_status(baseline, candidates, ["cpu_per_request_us", "rss_max_bytes"], 5.0, design)
    cpu = status.metrics["cpu_per_request_us"]
    assert cpu.configuration == "loose" and cpu.pairs == 5 and not cpu.reached
    loose = np.log(np.asarray([110.0, 92.0, 105.0, 97.0, 104.0]) / 100)
    expected = 100 * np.expm1(critical_value(design, 5) * loose.std(ddof=1) / np.sqrt(5))
    assert cpu.half_width_pct == pytest.approx(expected, abs=0.01)
    assert status.metrics["rss_max_bytes"].half_width_pct == 0.0 and status.metrics["rss_max_bytes"].reached
    assert not status.reached
    assert status.summary.startswith("still wider than ±5%: CPU per request ±")
    assert "loose, 5 paired rounds" in status.summary and "RSS" not in status.summary
    only_tight = precision_status(baseline, {"tight": candidates["tight"]}, ["cpu_per_request_us"], 5.0, design)
    assert only_tight.reached and only_tight.summary.startswith("every metric within ±5%: CPU per request ±")


def test_precision_status_unknown_is_never_reached() -> None:
    design = SequentialDesign((2, 3))
    baseline = _rounds([100.0, 100.0])
    status = precision_status(baseline, {"a": _rounds([101.0])}, ["cpu_per_request_us", "p99"], 50.0, design)
    assert not status.reached
    assert status.metrics["cpu_per_request_us"].half_width_pct is None
    assert "CPU per request unknown (a, 1 paired rounds" in status.summary
    assert status.metrics["p99"].half_width_pct is None  # no histogram: unknown, not 0
    none = precision_status(baseline, {}, ["cpu_per_request_us"], 5.0, design)
    assert not none.reached and "no configuration besides the baseline" in none.summary
    with pytest.raises(ValueError, match="unknown metric 'p42'"):
        precision_status(baseline, {}, ["p42"], 5.0, design)


def test_resolution_and_rounds_to_resolve_speak_of_the_design() -> None:
    design = SequentialDesign(tuple(range(5, 21)))
    fixed = resolution_pct(0.1, 20, 10)
    repeated = resolution_pct(0.1, 20, 10, design)
    assert fixed is not None and repeated is not None and repeated > fixed
    assert resolution_pct(0.1, 20, 3, design) == resolution_pct(0.1, 20, 3)  # before the first look
    needed = rounds_to_resolve(0.1, 20, 8.0, design=design)
    assert needed is not None and needed in design.looks
    assert needed > (rounds_to_resolve(0.1, 20, 8.0) or 0)
    assert rounds_to_resolve(0.1, 20, 1.0, design=design) is None  # beyond the last look


def test_judge_uses_the_repeated_one_sided_test() -> None:
    design = SequentialDesign((5, 6, 7, 8))
    baseline = _rounds([100.0] * 5)
    candidate = _rounds([112.0, 109.0, 113.0, 110.0, 111.0])
    budget = Budget(cpu_overhead_pct=5)
    fixed = judge(budget, compare(baseline, candidate), None, baseline=baseline, candidate=candidate)
    repeated = judge(
        budget, compare(baseline, candidate, design=design), None, baseline=baseline, candidate=candidate, design=design
    )
    [fixed_line], [repeated_line] = fixed.lines, repeated.lines
    assert fixed_line.p_adjusted is not None and repeated_line.p_adjusted is not None
    assert repeated_line.p_adjusted > fixed_line.p_adjusted
    values = np.log(np.asarray([112.0, 109.0, 113.0, 110.0, 111.0]) / 100)
    assert repeated_line.p_adjusted == pytest.approx(repeated_one_sided_p(values, np.log1p(0.05), design), abs=1e-6)
    # An inconclusive line's hint counts rounds on the design's looks.
    wide = _rounds([106.0, 99.0, 108.0, 101.0, 104.0])
    verdict = judge(
        budget, compare(baseline, wide, design=design), None, baseline=baseline, candidate=wide, design=design
    )
    assert verdict.lines[0].verdict == "inconclusive"
    assert verdict.lines[0].reason.endswith("; more than the 8 rounds the time budget allows would be needed")
