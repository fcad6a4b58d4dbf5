from __future__ import annotations

from tracetax.engine.schedule import round_robin_schedule


def test_every_round_runs_every_configuration_once_in_shuffled_order() -> None:
    slots = round_robin_schedule(["a", "b", "c"], rounds=6, seed=7)
    by_round: dict[int, list[str]] = {}
    for slot in slots:
        by_round.setdefault(slot.round_index, []).append(slot.configuration)
    assert all(sorted(order) == ["a", "b", "c"] for order in by_round.values())
    assert len({tuple(order) for order in by_round.values()}) > 1, "orders must differ between rounds"
    assert [s.order_index for s in slots[:3]] == [0, 1, 2]


def test_same_seed_same_schedule_other_seed_other_schedule() -> None:
    names = ["none", "simple", "batch-default", "batch-tuned"]
    assert round_robin_schedule(names, 5, 1) == round_robin_schedule(names, 5, 1)
    assert round_robin_schedule(names, 5, 1) != round_robin_schedule(names, 5, 2)
