"""Whether a pipeline kept up with one ramp step, from what the runner read around it.

A step is sustained when telemetrygen delivered the rate (else the generator, not the
Collector, is the limit: reported as such, never counted as the Collector's), every span it
sent was accepted, nothing was refused, failed or not enqueued, and the exporter's queue
did not grow (left over a tenth of its capacity a second after the step). Pure functions.

A step's shape (`RampStep`) is described here, and only here: the round's stored figures and
the API's answer of a round type their ramp with it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.lab.ledger import accepted, counter
from tracetax.lab.telemetry import Snapshot, total
from tracetax.system.stored_json import OPEN, Number

# The exporter's queue may hold this share of its capacity a second after a step and still
# count as keeping up: a batch or two in flight is not a backlog.
QUEUE_BACKLOG_SHARE = 0.1
# Spans telemetrygen sent that the receiver did not take (in flight at the read, or dropped
# in telemetrygen's own queue) beyond this share mean the step was not kept up with.
UNRECEIVED_SHARE = 0.01


@with_config(OPEN)
class StepLosses(TypedDict):
    """What the lab Collector's counters moved by over a step, and its queue after it."""

    accepted: Number | None
    refused: Number | None
    send_failed: Number | None
    enqueue_failed: Number | None
    queue_size: Number | None
    queue_capacity: Number | None


@with_config(OPEN)
class RampStep(TypedDict, total=False):
    """One step of a pipeline round's ramp: a rate held, what the lab Collector did with it, and
    whether it kept up; a key is absent where the step stored none."""

    # In the order the runner writes them: a step validated and written again keeps its text.
    spans_per_s: Number
    achieved_spans_per_s: Number | None
    generator_saturated: bool | None
    generated: int | None
    cpu_cores: Number | None
    rss_max_bytes: Number | None
    # The load generator's busy share of its core over the step.
    generator_utilization: Number | None
    accepted: Number | None
    refused: Number | None
    send_failed: Number | None
    enqueue_failed: Number | None
    queue_size: Number | None
    queue_capacity: Number | None
    sustained: bool | None
    limited_by: str | None
    why: str | None


# The losses that stop a ramp at once, with how they are said.
LOSSES: tuple[tuple[Literal["refused", "send_failed", "enqueue_failed"], str], ...] = (
    ("refused", "refused"),
    ("send_failed", "failed to export"),
    ("enqueue_failed", "not enqueued"),
)


def _delta(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else after - before


def step_losses(before: Snapshot, after: Snapshot) -> StepLosses:
    """What the lab Collector's counters moved by over a step, and its queue after it."""

    def change(base: str) -> float | None:
        return _delta(counter(before, base), counter(after, base))

    return {
        "accepted": _delta(accepted(before), accepted(after)),
        "refused": change("otelcol_receiver_refused_spans"),
        "send_failed": change("otelcol_exporter_send_failed_spans"),
        "enqueue_failed": change("otelcol_exporter_enqueue_failed_spans"),
        "queue_size": total(after, "otelcol_exporter_queue_size"),
        "queue_capacity": total(after, "otelcol_exporter_queue_capacity"),
    }


def why_not_sustained(step: RampStep) -> tuple[str | None, str | None]:
    """(limited_by, why) for a step that was not kept up with; (None, None) when it was."""
    if step.get("generator_saturated"):
        achieved = step.get("achieved_spans_per_s") or 0
        return "load generator", f"telemetrygen delivered {achieved:,.0f} of {step['spans_per_s']:,.0f} spans/s"
    for key, words in LOSSES:
        if lost := step.get(key):
            return "collector", f"{lost:,.0f} spans {words}"
    sent, taken = step.get("generated"), step.get("accepted")
    if sent and taken is not None and sent - taken > UNRECEIVED_SHARE * sent:
        return "collector", f"{sent - taken:,.0f} of {sent:,.0f} spans sent were not received"
    size, capacity = step.get("queue_size"), step.get("queue_capacity")
    if size is not None and capacity and size > QUEUE_BACKLOG_SHARE * capacity:
        return "collector", f"the exporter queue grew to {size:,.0f} of {capacity:,.0f}"
    return None, None


def evaluate(step: RampStep) -> RampStep:
    limited_by, why = why_not_sustained(step)
    return {**step, "sustained": limited_by is None, "limited_by": limited_by, "why": why}


def summarize(steps: list[RampStep], ceiling: float) -> dict[str, Any]:
    """The ramp's outcome: the highest rate kept up with, and what stopped the ramp."""
    kept = [s for s in steps if s["sustained"]]
    best = max((rate for s in kept if (rate := s.get("achieved_spans_per_s"))), default=None)
    last = steps[-1] if steps else None
    limited_by: str | None
    why: str | None
    if last is None:
        limited_by, why = "unknown", "no ramp step ran"
    elif last["sustained"]:
        limited_by, why = "ramp ceiling", f"every step up to {ceiling:,.0f} spans/s was kept up with"
    else:
        limited_by, why = last["limited_by"], last["why"]
    return {"ramp": steps, "max_sustainable_spans_per_s": best, "limited_by": limited_by, "why": why}
