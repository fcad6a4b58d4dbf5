"""The trade-off and the choice: each measured setting as (overhead, spans kept, memory); the
Pareto front of low overhead and many spans kept; the setting that meets every budget at the
least overhead, or, when none does, which budget is out of reach and what came closest."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Outcome:
    name: str
    p99_overhead_pct: float
    cpu_overhead_pct: float
    # Of the spans the service produced, the share that reached the store (1.0: none lost);
    # None when what it produced is unknown (it then ranks below every known share).
    kept: float | None
    lost_spans: float
    rss_mib: float | None = None
    sampled: bool = False


@dataclass(frozen=True)
class Budgets:
    p99_overhead_pct: float
    cpu_overhead_pct: float
    max_lost_spans: float = 0.0


def kept_or_least(outcome: Outcome) -> float:
    return outcome.kept if outcome.kept is not None else -1.0


def dominates(a: Outcome, b: Outcome) -> bool:
    """a is no worse than b on overhead and spans kept, and better on one."""
    a_kept, b_kept = kept_or_least(a), kept_or_least(b)
    no_worse = a.p99_overhead_pct <= b.p99_overhead_pct and a_kept >= b_kept
    return no_worse and (a.p99_overhead_pct < b.p99_overhead_pct or a_kept > b_kept)


def pareto_front(outcomes: list[Outcome]) -> list[Outcome]:
    """The settings no other beats on both overhead and spans kept, by overhead."""
    front = [o for o in outcomes if not any(dominates(other, o) for other in outcomes)]
    return sorted(front, key=lambda o: (o.p99_overhead_pct, -kept_or_least(o)))


def misses(outcome: Outcome, budgets: Budgets) -> dict[str, float]:
    """By how much each budget is missed (absent: met)."""
    over = {
        "p99_overhead_pct": outcome.p99_overhead_pct - budgets.p99_overhead_pct,
        "cpu_overhead_pct": outcome.cpu_overhead_pct - budgets.cpu_overhead_pct,
        "max_lost_spans": outcome.lost_spans - budgets.max_lost_spans,
    }
    return {name: value for name, value in over.items() if value > 0}


@dataclass(frozen=True)
class Choice:
    recommended: Outcome | None
    # When nothing meets the budgets: each budget no setting met, and the setting closest to it.
    out_of_reach: dict[str, str]
    closest: Outcome | None


def choose(outcomes: list[Outcome], budgets: Budgets) -> Choice:
    """The unsampled setting meeting every budget at the least p99 overhead; a sampled one only
    when no unsampled one does; never a setting that was not measured."""
    for pool in ([o for o in outcomes if not o.sampled], [o for o in outcomes if o.sampled]):
        meeting = [o for o in pool if not misses(o, budgets)]
        if meeting:
            best = min(meeting, key=lambda o: (o.p99_overhead_pct, o.cpu_overhead_pct, -kept_or_least(o)))
            return Choice(best, {}, None)
    if not outcomes:
        return Choice(None, {"measurements": "no setting was measured"}, None)
    unmet = sorted({name for o in outcomes for name in misses(o, budgets)})
    out_of_reach = {}
    for name in unmet:
        if all(name in misses(o, budgets) for o in outcomes):
            nearest = min(outcomes, key=lambda o: misses(o, budgets)[name])
            out_of_reach[name] = (
                f"no setting met it; closest {nearest.name}, over by {misses(nearest, budgets)[name]:g}"
            )
    if not out_of_reach:
        out_of_reach["together"] = f"each of {', '.join(unmet)} is met by some setting, but none meets all at once"
    closest = min(outcomes, key=lambda o: (len(misses(o, budgets)), sum(misses(o, budgets).values())))
    return Choice(None, out_of_reach, closest)
