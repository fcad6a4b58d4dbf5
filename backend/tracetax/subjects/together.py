"""What every subject's side-by-side phase does alike: the order its loads start in, the busy
shares of the cores it ran on, and the run id its telemetry carries.

A round's side-by-side phase (a service's configurations, a pipeline's variants) has every
configuration live at once on the measured cores, each under its own load, so that all of them
see the same core speed at every instant (docs/diagnostics.md, "Side by side"). The subjects
start different processes and loads; these are the pieces they share.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, TypeVar

from tracetax.engine.round import TogetherSlot
from tracetax.system import procfs

# The run id suffix of the phase's processes: their telemetry is kept apart from the round's,
# whose ledger counts the solo phases only.
SIDE_RUN_SUFFIX = "-side"

T = TypeVar("T")


def side_run_id(run_id: str) -> str:
    """The run id a configuration's telemetry carries in its round's side-by-side phase."""
    return f"{run_id}{SIDE_RUN_SUFFIX}"


def start_order(items: Sequence[T], round_index: int, phase: str) -> list[T]:
    """`items` in the order their loads start: shuffled per round and phase (seeded, so a rerun
    starts them alike), so that no configuration is always the first to be loaded."""
    order = list(items)
    random.Random(f"{round_index}-{phase}").shuffle(order)  # noqa: S311 - scheduling, not security
    return order


def busy_share(
    cpus: set[int] | None, before: dict[int, procfs.CpuTimes], after: dict[int, procfs.CpuTimes]
) -> float | None:
    """The busy share (0-1) of `cpus` between two /proc/stat readings; None when unknown (no
    cores named, or none of them read)."""
    present = [cpu for cpu in cpus or () if cpu in before and cpu in after]
    total = sum((after[cpu] - before[cpu]).total for cpu in present)
    return round(sum((after[cpu] - before[cpu]).busy for cpu in present) / total, 3) if total > 0 else None


def utilisation(
    slot: TogetherSlot, before: dict[int, procfs.CpuTimes], after: dict[int, procfs.CpuTimes]
) -> dict[str, Any]:
    """The busy shares of the measured (service) cores and of the load generator's over the phase."""
    placement = slot.placement
    return {
        "service": busy_share(placement.service_cpus, before, after),
        "load_generator": busy_share(placement.loadgen_cpus, before, after),
    }


def cpu_shares(cpu_seconds: dict[str, float | None], seconds: float) -> dict[str, float | None]:
    """Each configuration's own share of a core over the phase (its CPU seconds per second)."""
    return {
        name: round(cpu_s / seconds, 3) if cpu_s is not None and seconds else None
        for name, cpu_s in cpu_seconds.items()
    }
