"""Interleaved rounds: every round runs every configuration once, in an order shuffled with
the experiment's seed (A B C, C A B, ...), so drift and noisy neighbours hit all alike."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    round_index: int
    order_index: int
    configuration: str


def round_robin_schedule(configurations: list[str], rounds: int, seed: int) -> list[Slot]:
    rng = random.Random(seed)  # noqa: S311 - scheduling, not security
    slots = []
    for round_index in range(rounds):
        order = list(configurations)
        rng.shuffle(order)
        slots += [Slot(round_index, position, name) for position, name in enumerate(order)]
    return slots
