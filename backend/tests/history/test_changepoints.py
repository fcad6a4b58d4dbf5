"""Change points on synthetic series of paired overheads (estimates with 95% intervals), and on
a real run's stored series (make bench-history)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tracetax.history.changepoints import SeriesPoint, change_points, series_scatter, weighted_segment

Z95 = 1.96


def _series(
    seed: int,
    steps: list[tuple[int, float]],
    sd: float = 3.0,
    points: int = 12,
    half_width: float | None = None,
    with_intervals: bool = True,
) -> list[SeriesPoint]:
    """`points` overheads (%) around 10 with noise `sd`, each with the 95% interval its own noise
    gives (or `half_width`), stepping by `size` from index `at` for each step."""
    rng = np.random.default_rng(seed)
    level = np.full(points, 10.0)
    for at, size in steps:
        level[at:] += size
    estimates = level + rng.normal(0.0, sd, points)
    half = Z95 * sd if half_width is None else half_width
    if not with_intervals:
        return [SeriesPoint(float(value)) for value in estimates]
    return [SeriesPoint(float(value), float(value - half), float(value + half)) for value in estimates]


def test_a_step_of_30_points_at_the_7th_check_is_one_change_point_at_index_6() -> None:
    found = change_points(_series(seed=1, steps=[(6, 30.0)]))
    assert [point.index for point in found] == [6]
    point = found[0]
    assert point.before == pytest.approx(10.0, abs=3.0)
    assert point.after == pytest.approx(40.0, abs=3.0)
    assert point.shift == pytest.approx(point.after - point.before)
    assert point.low < 30.0 < point.high
    assert point.low > 20.0 and point.high < 40.0


def test_the_step_is_found_at_index_6_for_nearly_every_seed() -> None:
    exact = sum([point.index for point in change_points(_series(seed, [(6, 30.0)]))] == [6] for seed in range(200))
    assert exact >= 195


def test_flat_series_with_realistic_intervals_have_almost_no_false_change_points() -> None:
    false_alarms = sum(bool(change_points(_series(seed, []))) for seed in range(200))
    assert false_alarms <= 6  # at most 3% of 200 series (measured: about 1%)


def test_flat_series_without_intervals_are_judged_on_their_own_scatter() -> None:
    false_alarms = sum(bool(change_points(_series(seed, [], with_intervals=False))) for seed in range(200))
    assert false_alarms <= 6
    assert [p.index for p in change_points(_series(3, [(6, 30.0)], with_intervals=False))] == [6]


def test_a_step_smaller_than_the_points_intervals_is_not_a_change_point() -> None:
    # The points scatter by 1 but declare intervals of ±10: a step of 4 is within their noise.
    for seed in range(50):
        assert change_points(_series(seed, [(6, 4.0)], sd=1.0, half_width=10.0)) == []


def test_two_steps_are_two_change_points() -> None:
    found = change_points(_series(seed=2, steps=[(4, 30.0), (8, -25.0)]))
    assert [point.index for point in found] == [4, 8]
    assert found[0].shift > 20.0
    assert found[1].shift < -15.0
    assert found[0].after == found[1].before


def test_a_single_outlier_spike_is_not_a_change_point() -> None:
    # Segments have at least 2 points and a spike's segment scatters far beyond its intervals.
    for seed in range(50):
        series = _series(seed, [])
        spiked = series[5].estimate + 40.0
        series[5] = SeriesPoint(spiked, spiked - Z95 * 3.0, spiked + Z95 * 3.0)
        assert change_points(series) == []


def test_points_with_huge_intervals_hide_a_step_they_cannot_resolve() -> None:
    assert change_points(_series(seed=4, steps=[(6, 30.0)], half_width=200.0)) == []


def test_a_few_points_with_huge_intervals_do_not_hide_a_clear_step() -> None:
    series = _series(seed=5, steps=[(6, 30.0)])
    for index in (2, 9):
        value = series[index].estimate
        series[index] = SeriesPoint(value, value - 500.0, value + 500.0)
    assert [point.index for point in change_points(series)] == [6]


def test_fewer_than_four_points_have_no_change_points() -> None:
    assert change_points([SeriesPoint(0.0, -1.0, 1.0), SeriesPoint(50.0, 49.0, 51.0), SeriesPoint(50.0)]) == []
    assert change_points([]) == []


def test_a_noiseless_step_without_intervals_is_found_and_a_constant_series_is_not() -> None:
    assert [point.index for point in change_points([SeriesPoint(v) for v in [1.0] * 6 + [5.0] * 6])] == [6]
    assert change_points([SeriesPoint(2.0)] * 12) == []


def test_bad_points_are_refused_with_the_field_named() -> None:
    with pytest.raises(ValueError, match="estimate"):
        SeriesPoint(float("nan"))
    with pytest.raises(ValueError, match="low"):
        SeriesPoint(1.0, 3.0, 2.0)


def test_segment_standard_error_widens_when_points_scatter_beyond_their_intervals() -> None:
    tight = weighted_segment(np.array([0.0, 10.0, 0.0, 10.0]), np.full(4, 1.0))
    assert tight.mean == pytest.approx(5.0)
    assert tight.standard_error > 0.5 * 2  # the scatter (sd ~5.8) rules, not the intervals (1)
    calm = weighted_segment(np.array([0.0, 0.5, 0.0, 0.5]), np.full(4, 1.0))
    assert calm.standard_error == pytest.approx(0.5)  # the intervals rule: 1 / sqrt(4)


def test_series_scatter_ignores_a_step() -> None:
    assert series_scatter([0.0, 1.0, 0.0, 1.0, 100.0, 101.0, 100.0, 101.0]) == pytest.approx(
        1.0 / 0.6745 / 2**0.5, rel=1e-3
    )


# -- the detection replayed on a real run's stored results ---------------------------------------

BENCH_RUN = Path(__file__).parent / "fixtures" / "bench-history.json"


def _stored_series(scenario: str, metric: str) -> list[SeriesPoint]:
    stored = json.loads(BENCH_RUN.read_text())[scenario]["series"][metric]["points"]
    return [SeriesPoint(p["estimate"], p["low"], p["high"]) for p in stored if p["estimate"] is not None]


def test_a_real_runs_step_is_one_change_point_at_the_seventh_commit_and_its_flat_run_none() -> None:
    # `make bench-history BENCH_ARGS="--save ..."` on the real stack: 12 checks of Go's
    # batch-default against none, the demo's 300 µs busy-wait added from the 7th; then 12 unchanged.
    [change] = change_points(_stored_series("step", "cpu_per_request_us"))
    assert change.index == 6 and change.low > 0, change
    assert change_points(_stored_series("flat", "cpu_per_request_us")) == []
    assert change_points(_stored_series("flat", "p50")) == []
