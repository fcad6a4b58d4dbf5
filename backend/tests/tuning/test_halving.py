"""A wall-time budget spent by successive halving, and the least budget that fits one candidate."""

from __future__ import annotations

import itertools

import pytest

from tracetax.tuning.halving import MIN_MEASURE_S, BudgetTooSmallError, Costs, minimum_wall_time_s, plan, total_s

COSTS = Costs(per_round_overhead_s=6.0, rounds=3)


def test_a_plan_fits_its_budget_and_halves() -> None:
    rungs = plan(8, wall_time_s=1800, costs=COSTS, reserved_s=300)
    # Down to the last pair: a rung of the survivor alone would compare it with nothing.
    assert [r.candidates for r in rungs] == [8, 4, 2]
    assert all(
        later.measure_s == pytest.approx(2 * earlier.measure_s, abs=0.2) for earlier, later in itertools.pairwise(rungs)
    )
    assert rungs[0].measure_s >= MIN_MEASURE_S
    assert total_s(rungs, COSTS, 300) <= 1800 + 1


@pytest.mark.parametrize(("candidates", "counts"), [(1, [1]), (2, [2]), (3, [3, 2]), (5, [5, 3, 2])])
def test_rungs_halve_down_to_a_pair(candidates: int, counts: list[int]) -> None:
    rungs = plan(candidates, wall_time_s=3600, costs=COSTS, reserved_s=300)
    assert [r.candidates for r in rungs] == counts


def test_a_tight_budget_measures_fewer_candidates() -> None:
    rungs = plan(8, wall_time_s=500, costs=COSTS, reserved_s=150)
    assert rungs[0].candidates < 8
    assert total_s(rungs, COSTS, 150) <= 500 + 1


def test_a_budget_too_small_for_one_candidate_names_the_minimum() -> None:
    minimum = minimum_wall_time_s(COSTS, 300)
    with pytest.raises(BudgetTooSmallError) as raised:
        plan(8, wall_time_s=minimum - 1, costs=COSTS, reserved_s=300)
    assert raised.value.minimum_s == minimum
    assert f"at least {int(minimum)} s" in str(raised.value) or f"at least {int(minimum) + 1} s" in str(raised.value)
    assert plan(8, wall_time_s=minimum, costs=COSTS, reserved_s=300)[0].candidates == 1


@pytest.mark.parametrize("together_s", [None, 4.0])
def test_a_side_by_side_phase_per_round_is_planned_and_fits(together_s: float | None) -> None:
    # Each round of a rung starts with every configuration at once: a plan that left it out ran
    # about a fifth over its budget once the phase came in (issue 23).
    with_phase = Costs(per_round_overhead_s=6.0, rounds=3, together_overhead_s=6.0, together_s=together_s)
    rungs = plan(8, wall_time_s=1800, costs=with_phase, reserved_s=300)
    assert total_s(rungs, with_phase, 300) == pytest.approx(1800, abs=3)  # phases are rounded to 0.1 s
    assert rungs[0].measure_s < plan(8, wall_time_s=1800, costs=COSTS, reserved_s=300)[0].measure_s
    phase = 6.0 + (10.0 if together_s is None else together_s)
    assert with_phase.rung_s(3, 10.0) == COSTS.rung_s(3, 10.0) + 3 * phase
