"""What GET …/stacks/{configuration}/diff answers: the differential flame graph
(diagnostics/stack_diff.py) as a tree for the UI."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tracetax.diagnostics.stack_diff import DiffNode, DiffSide, StackDiff, Unit

UNIT_NOTES: dict[Unit, str] = {
    "us_per_request": "µs of CPU per request: a frame's share of its side's samples times that side's CPU per request",
    "share_pct": (
        "percent of each side's samples (CPU per request is unknown on at least one side), so a delta is in "
        "percentage points of share, not CPU"
    ),
}


class FlameDiffNode(BaseModel):
    name: str
    # The width: the candidate's cost (unit as FlameDiff.unit).
    value: float
    baseline: float
    candidate: float
    # candidate minus baseline: positive costs more per request.
    delta: float
    children: list[FlameDiffNode] = []

    @classmethod
    def of(cls, node: DiffNode) -> FlameDiffNode:
        return cls(
            name=node.name,
            value=node.value,
            baseline=node.baseline,
            candidate=node.candidate,
            delta=node.delta,
            children=[cls.of(child) for child in node.children],
        )


class FlameDiffSide(BaseModel):
    experiment_id: str
    configuration: str
    sampler: str | None
    samples: int
    cpu_per_request_us: float | None = Field(description="None: unknown (the diff is then in shares)")

    @classmethod
    def of(cls, side: DiffSide) -> FlameDiffSide:
        return cls(
            experiment_id=side.experiment_id,
            configuration=side.configuration,
            sampler=side.sampler,
            samples=side.samples,
            cpu_per_request_us=side.cpu_per_request_us,
        )


class FrameChangeAnswer(BaseModel):
    """A function's self cost (samples where it is the leaf) on both sides."""

    name: str
    baseline: float
    candidate: float
    delta: float


class FlameDiff(BaseModel):
    unit: Literal["us_per_request", "share_pct"]
    unit_note: str
    baseline: FlameDiffSide
    candidate: FlameDiffSide
    root: FlameDiffNode
    # The functions whose self cost changed most, largest |delta| first.
    changes: list[FrameChangeAnswer]

    @classmethod
    def of(cls, answer: StackDiff) -> FlameDiff:
        return cls(
            unit=answer.unit,
            unit_note=UNIT_NOTES[answer.unit],
            baseline=FlameDiffSide.of(answer.baseline),
            candidate=FlameDiffSide.of(answer.candidate),
            root=FlameDiffNode.of(answer.root),
            changes=[
                FrameChangeAnswer(name=c.name, baseline=c.baseline, candidate=c.candidate, delta=c.delta)
                for c in answer.changes
            ],
        )
