"""Rate schedules that slide past other grids: the side-by-side loads' staggered, mirrored ones and
the stacks phase's (tracetax.engine.rate_schedules)."""

from __future__ import annotations

import itertools

import pytest

from tracetax.engine.rate_schedules import STEP_RPS, sliding, staggered


def test_one_load_keeps_the_specs_rate() -> None:
    assert staggered(1, 300.0, 10.0, 4) == [[(10.0, 300.0)]]


@pytest.mark.parametrize("count", [2, 3, 4, 6])
def test_each_half_has_rates_a_step_apart_centred_on_the_specs(count: int) -> None:
    schedules = staggered(count, 300.0, 10.0, 0)
    for half in (0, 1):
        rates = [schedule[half][1] for schedule in schedules]
        assert sum(rates) / count == pytest.approx(300.0)
        steps = [b - a for a, b in itertools.pairwise(sorted(rates))]
        assert steps == pytest.approx([STEP_RPS] * (count - 1))
    assert all([seconds for seconds, _rate in schedule] == [5.0, 5.0] for schedule in schedules)


def test_over_the_phase_each_load_runs_at_the_specs_rate_and_each_pair_swaps_the_faster() -> None:
    schedules = staggered(4, 300.0, 10.0, 1)
    for schedule in schedules:
        assert sum(seconds * rate for seconds, rate in schedule) == pytest.approx(300.0 * 10.0)
    for a, b in itertools.combinations(schedules, 2):
        first, second = a[0][1] - b[0][1], a[1][1] - b[1][1]
        assert first == pytest.approx(-second)
        assert first != 0


def test_the_positions_rotate_each_round() -> None:
    firsts = [[schedule[0][1] for schedule in staggered(4, 300.0, 10.0, index)] for index in range(4)]
    for configuration in range(4):
        assert sorted(rates[configuration] for rates in firsts) == sorted(firsts[0])


def test_a_low_rate_is_staggered_by_a_hundredth_of_itself() -> None:
    rates = sorted(schedule[0][1] for schedule in staggered(2, 10.0, 10.0, 0))
    assert rates == pytest.approx([9.95, 10.05])


def test_a_sliding_load_keeps_the_specs_rate_on_average_and_never_sits_on_one_rate() -> None:
    schedule = sliding(499.0, 5.0)
    assert [seconds for seconds, _rate in schedule] == [2.5, 2.5]
    assert sum(seconds * rate for seconds, rate in schedule) == pytest.approx(499.0 * 5.0)
    assert {rate for _seconds, rate in schedule} == {500.0, 498.0}  # one half off any grid 500 is on


def test_a_low_rate_slides_by_a_hundredth_of_itself() -> None:
    assert sliding(10.0, 4.0) == [(2.0, pytest.approx(10.1)), (2.0, pytest.approx(9.9))]
