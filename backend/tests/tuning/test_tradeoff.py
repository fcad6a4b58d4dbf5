"""The Pareto front and the choice under budgets: never a setting that was not measured."""

from __future__ import annotations

from tracetax.tuning.tradeoff import Budgets, Outcome, choose, pareto_front


def outcome(name: str, p99: float, kept: float, cpu: float = 5.0, lost: float = 0.0, sampled: bool = False) -> Outcome:
    return Outcome(name, p99_overhead_pct=p99, cpu_overhead_pct=cpu, kept=kept, lost_spans=lost, sampled=sampled)


def test_the_front_keeps_only_undominated_settings() -> None:
    a, b, c, d = outcome("a", 2, 0.90), outcome("b", 4, 1.0), outcome("c", 5, 0.95), outcome("d", 1, 0.5)
    assert [o.name for o in pareto_front([a, b, c, d])] == ["d", "a", "b"]


def test_the_least_overhead_meeting_every_budget_is_recommended() -> None:
    choice = choose(
        [outcome("deep", 3, 1.0), outcome("fast", 1, 0.9, lost=40), outcome("mid", 2, 1.0)], Budgets(10, 10, 0)
    )
    assert choice.recommended is not None and choice.recommended.name == "mid"


def test_sampling_only_when_no_unsampled_setting_meets_the_budgets() -> None:
    unsampled = outcome("q8192", 20, 1.0)
    sampled = outcome("q8192-s0.1", 4, 0.1, sampled=True)
    assert choose([unsampled, sampled], Budgets(30, 10)).recommended == unsampled
    assert choose([unsampled, sampled], Budgets(10, 10)).recommended == sampled


def test_a_budget_out_of_reach_is_named_with_what_came_closest() -> None:
    choice = choose([outcome("a", 12, 1.0), outcome("b", 15, 1.0, cpu=2)], Budgets(10, 10))
    assert choice.recommended is None
    assert (
        "p99_overhead_pct" in choice.out_of_reach and "closest a, over by 2" in choice.out_of_reach["p99_overhead_pct"]
    )
    assert choice.closest is not None and choice.closest.name == "a"


def test_budgets_met_separately_but_never_together_say_so() -> None:
    choice = choose([outcome("a", 1, 1.0, cpu=30), outcome("b", 30, 1.0, cpu=1)], Budgets(10, 10))
    assert choice.recommended is None and "none meets all at once" in choice.out_of_reach["together"]
