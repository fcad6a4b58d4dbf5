"""How long a spec will hold the machine, and how that adds up: what the forms show before a
spec is submitted (`POST /api/v1/experiments/estimate` and its siblings), from the specs' own
`estimated_seconds`, so the UI never computes it again."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tracetax.spec.base import SubjectSpec
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec


class SpecEstimate(BaseModel):
    """A spec's estimated wall time: `seconds` is `rounds` x (`configurations` x `per_run_s` +
    `side_by_side_s`)."""

    seconds: float = Field(description="The whole spec at its rounds (the queue's estimated_seconds).")
    rounds: int
    configurations: int
    per_run_s: float = Field(
        description="One configuration's (or variant's) run in a round: start, warm-up, measured phase, the "
        "phases after it, stop."
    )
    side_by_side_s: float = Field(description="One round's side-by-side phase; 0 when it does not run.")
    up_to_s: float | None = Field(
        default=None,
        description="With a precision: the wall-time budget rounds are added up to (precision.max_wall_time_s).",
    )
    ramp_steps: int = Field(
        default=0, description="A pipeline's ramp steps in each run (each may run: an upper bound)."
    )
    ramp_rates: list[float] = Field(
        default_factory=list,
        description="The span rates of those steps, in order (RampSpec.rates, from `start_spans_per_s` or the "
        "measured phase's rate): the ramp stops at the first a variant does not keep up with. Empty without a ramp.",
    )
    ramp_step_s: float | None = Field(
        default=None, description="How long each ramp step sends (`load.ramp.step_s`); None without a ramp."
    )


def estimate_of(spec: SubjectSpec) -> SpecEstimate:
    """The spec's estimate and its parts, each from the spec's own arithmetic."""
    seconds = spec.estimated_seconds()
    side_by_side = spec.side_by_side_seconds()
    configurations = len(spec.configurations)
    # The estimate is rounds x (configurations x per run + side by side): one run is what is left.
    per_run = (seconds / spec.rounds - side_by_side) / configurations
    up_to = spec.precision.max_wall_time_s if isinstance(spec, ExperimentSpec) and spec.precision else None
    ramp = spec.load.ramp if isinstance(spec, PipelineSpec) else None
    ramp_rates = _ramp_rates(spec)
    return SpecEstimate(
        seconds=seconds,
        rounds=spec.rounds,
        configurations=configurations,
        per_run_s=per_run,
        side_by_side_s=side_by_side,
        up_to_s=up_to,
        ramp_steps=len(ramp_rates),
        ramp_rates=ramp_rates,
        ramp_step_s=ramp.step_s if ramp is not None else None,
    )


def _ramp_rates(spec: SubjectSpec) -> list[float]:
    """The rates a pipeline's ramp may try in each run (none for a spec without one)."""
    if not isinstance(spec, PipelineSpec) or spec.load.ramp is None:
        return []
    return spec.load.ramp.rates(spec.load.spans_per_s)
