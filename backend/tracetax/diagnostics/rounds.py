"""Facts about stored rounds that every subject's diagnostics read alike."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime

from pydantic import BaseModel

from tracetax.db.models import Round


def round_label(round_: Round) -> str:
    """How a round is named to people: "<configuration> round <n>", counting from 1."""
    return f"{round_.configuration} round {round_.round_index + 1}"


def is_flagged(round_: Round) -> bool:
    """Whether a measured phase of the round was flagged for interference on the measured cores."""
    phases = (round_.resources or {}).get("isolation") or {}  # {"open": record, "closed": record}
    return any(record.get("flagged") for record in phases.values())


def flagged_rounds(rounds: list[Round]) -> list[str]:
    """Rounds with a measured phase flagged for interference on the measured cores."""
    return [round_label(round_) for round_ in rounds if is_flagged(round_)]


def stack_down_during(round_: Round) -> list[str]:
    """The stack's components the engine found not ready before or after the round."""
    record = (round_.resources or {}).get("stack_health") or {}
    return list(record.get("down") or [])


def stack_down_rounds(rounds: list[Round]) -> list[str]:
    """Rounds during which a component of the stack was down: "<round> (collector, tempo)"."""
    return [f"{round_label(round_)} ({', '.join(down)})" for round_ in rounds if (down := stack_down_during(round_))]


def completed_by_end(rounds: Sequence[Round]) -> list[Round]:
    """The completed rounds, the earliest-ended first (one without an end on record last)."""
    done = [r for r in rounds if r.status == "completed"]
    return sorted(done, key=lambda r: (r.finished_at is None, r.finished_at or datetime.min.replace(tzinfo=UTC)))


def last_telemetry_at(round_: Round) -> datetime | None:
    """When the round's last telemetry left its service: when the service had stopped and
    flushed, where the round recorded it (a service's `shutdown.stopped_at`), else when the
    round ended (None when neither is on record)."""
    stopped_at = (round_.shutdown or {}).get("stopped_at")
    if isinstance(stopped_at, int | float):
        return datetime.fromtimestamp(stopped_at, UTC)
    return round_.finished_at


async def settle(round_: Round, settle_s: float) -> None:
    """Wait until `settle_s` after the round's last telemetry (Settings.ledger_settle_s). Each
    round waits for its own, not the experiment's: read in the order they ended, the earlier
    rounds' ledgers are read while the last one settles."""
    since = last_telemetry_at(round_)
    if since is None:
        return
    remaining = settle_s - (datetime.now(UTC) - since).total_seconds()
    if remaining > 0:
        await asyncio.sleep(remaining)


def paired_rounds(completed: Sequence[Round], measured: Callable[[Round], bool]) -> set[int]:
    """The indexes of the rounds whose every completed configuration `measured` its side-by-side
    phase. A round where the phase failed for one configuration pairs every configuration of it
    from the solo figures: a pair never mixes a side-by-side value with a solo one."""
    indexes = {r.round_index for r in completed}
    return {i for i in indexes if all(measured(r) for r in completed if r.round_index == i)}


class SideBySideUse(BaseModel):
    """How the side-by-side phase entered the statistics."""

    metrics: list[str]
    # Rounds (from 1) whose side-by-side metrics were paired side by side; the others' came from
    # the solo phases (the phase failed for one of the round's configurations).
    rounds: list[int]
    # Of those, the rounds whose p50 was too (the phase not flagged for a busy core); a
    # pipeline's phase pairs no latency.
    latency_rounds: list[int]
    note: str


# The one latency a side-by-side phase pairs, in the rounds SideBySideUse.latency_rounds names.
PAIRED_LATENCY_METRIC = "p50"


def flags_that_matter(
    flagged: list[str], rounds: Sequence[Round], metrics: Collection[str], side: SideBySideUse | None
) -> list[str]:
    """The flagged rounds (`flagged`, their labels) a check must report as interference, for a
    check whose lines read `metrics`: none when every metric is paired side by side and every
    round flagged in its solo phases was paired (its latency too when a line reads p50), since
    another process on the measured cores slows every configuration of a side-by-side phase
    alike and cancels in the pair (docs/diagnostics.md, "Side by side"); else all of them. A
    metric the phase does not pair (spans lost, tails) keeps the flags."""
    if side is None or not metrics or not set(metrics) <= set(side.metrics):
        return flagged
    paired = set(side.latency_rounds) if PAIRED_LATENCY_METRIC in metrics else set(side.rounds)
    numbers = {r.round_index + 1 for r in rounds if r.status == "completed" and is_flagged(r)}
    return [] if numbers <= paired else flagged
