"""How a wall-time budget is spent: successive halving. Every candidate is measured briefly,
the better half again for twice as long, and so on until two are left, the last rung's pair
compared at the longest phase. A rung of the one survivor alone would compare it with nothing:
the confirmation measures the winner again anyway, so that time goes to candidates instead (it
was a fifth of a small run). The baseline (no SDK)
and the SDK defaults run in every rung, interleaved with the candidates, because each figure
is a paired change against the baseline of the same round. Each rung is an ordinary
experiment, so a cancelled tuning keeps every rung it finished.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Configurations measured in every rung beside the candidates: the baseline and the defaults.
REFERENCES = 2
# A measured phase shorter than this resolves nothing at the rates the harness measures.
MIN_MEASURE_S = 3.0


@dataclass(frozen=True)
class Costs:
    """Seconds one configuration's round takes beyond its measured phase (start, warm-up,
    stop, settle), and the rounds per rung."""

    per_round_overhead_s: float
    rounds: int = 3
    # Once per experiment: the wait for the stores before the ledger is read, and the reading.
    per_experiment_s: float = 0.0
    # Each round's side-by-side phase, all of a rung's configurations at once (None: no such
    # phase): its seconds beyond the measured ones, and its measured seconds (None: as long as
    # the rung's own phase, as a load that leaves side_by_side_s unset has it).
    together_overhead_s: float | None = None
    together_s: float | None = None

    def rung_s(self, configurations: int, measure_s: float) -> float:
        return self.per_experiment_s + self.rounds * (
            configurations * (self.per_round_overhead_s + measure_s) + self._together_s(measure_s)
        )

    def measured_seconds_per_second(self, configurations: int) -> float:
        """How much a rung's wall time grows per second of its measured phase."""
        follows = self.together_overhead_s is not None and self.together_s is None
        return self.rounds * (configurations + int(follows))

    def _together_s(self, measure_s: float) -> float:
        if self.together_overhead_s is None:
            return 0.0
        return self.together_overhead_s + (measure_s if self.together_s is None else self.together_s)


@dataclass(frozen=True)
class Rung:
    candidates: int
    measure_s: float


class BudgetTooSmallError(ValueError):
    """Not even one candidate fits; `minimum_s` is the least wall time that does."""

    def __init__(self, minimum_s: float) -> None:
        super().__init__(f"too small for even one candidate: at least {math.ceil(minimum_s)} s")
        self.minimum_s = minimum_s


def minimum_wall_time_s(costs: Costs, reserved_s: float) -> float:
    """One candidate in one rung at the shortest phase, plus what is reserved (the probe and
    the confirmation)."""
    return costs.rung_s(1 + REFERENCES, MIN_MEASURE_S) + reserved_s


def plan(candidates: int, wall_time_s: float, costs: Costs, reserved_s: float) -> list[Rung]:
    """The rungs that fit the budget once `reserved_s` is set aside: as many candidates as fit
    at the shortest phase, halved each rung with the phase doubled down to the last pair, the
    first rung's phase as long as the budget allows."""
    if candidates < 1:
        raise ValueError("need at least one candidate")
    available = wall_time_s - reserved_s
    if available < costs.rung_s(1 + REFERENCES, MIN_MEASURE_S):
        raise BudgetTooSmallError(minimum_wall_time_s(costs, reserved_s))
    for count in range(candidates, 0, -1):
        counts = _halvings(count)
        # Total time is linear in the first phase d: sum over rungs of rung_s(n_k, d * 2^k).
        fixed = sum(costs.rung_s(n + REFERENCES, 0.0) for n in counts)
        per_second = sum(costs.measured_seconds_per_second(n + REFERENCES) * 2**k for k, n in enumerate(counts))
        first = (available - fixed) / per_second
        if first >= MIN_MEASURE_S:
            return [Rung(n, round(first * 2**k, 1)) for k, n in enumerate(counts)]
    return [Rung(1, MIN_MEASURE_S)]


def _halvings(count: int) -> list[int]:
    """The candidates per rung: halved until two are left (one candidate: one rung)."""
    counts = [count]
    while counts[-1] > 2:
        counts.append(math.ceil(counts[-1] / 2))
    return counts


def total_s(rungs: list[Rung], costs: Costs, reserved_s: float) -> float:
    return sum(costs.rung_s(r.candidates + REFERENCES, r.measure_s) for r in rungs) + reserved_s
