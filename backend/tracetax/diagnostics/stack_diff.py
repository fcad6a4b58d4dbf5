"""Where the added cost went: the differential flame graph of two sides' merged stacks (the
baseline and a configuration of one experiment, or one configuration in two checks'
experiments).

A frame's cost per request on one side is its share of that side's samples times the side's
CPU per request (µs), so a frame that keeps its share while CPU per request doubles costs twice
as much. The difference per frame is candidate minus baseline. When either side's CPU per request is
unknown, costs are shares of the side's samples in percent and differences are percentage
points (`unit` says which): a share cannot tell a frame that grew from one whose neighbours
shrank, so the answer says so rather than guessing a CPU figure.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from tracetax.db.models import Experiment
from tracetax.diagnostics.stacks import configuration_stacks, summarize_configuration
from tracetax.profiling import folded

Unit = Literal["us_per_request", "share_pct"]

# What the folded diff's integer counts are, per unit: ns of CPU per request (each side's counts
# sum to its CPU per request) or parts per million of the side's samples.
FOLDED_SCALE: dict[Unit, float] = {"us_per_request": 1000.0, "share_pct": 10_000.0}
FOLDED_COUNT_UNIT: dict[Unit, str] = {"us_per_request": "ns_per_request", "share_pct": "ppm_of_samples"}
TOP_CHANGES = 15


class MissingStacksError(LookupError):
    """A side has no stack samples; the message names the side and says why."""


@dataclass(frozen=True)
class DiffSide:
    """One side of the comparison: its merged folded stacks and CPU per request (None: unknown)."""

    experiment_id: str
    configuration: str
    sampler: str | None
    stacks: folded.Folded
    cpu_per_request_us: float | None

    @property
    def samples(self) -> int:
        return sum(self.stacks.values())


@dataclass
class DiffNode:
    """A frame of the diff tree; `value` (the width) is the candidate's cost."""

    name: str
    baseline: float
    candidate: float
    children: list[DiffNode] = field(default_factory=list)

    @property
    def delta(self) -> float:
        return self.candidate - self.baseline

    @property
    def value(self) -> float:
        return self.candidate


@dataclass(frozen=True)
class FrameChange:
    """A function's self cost (its samples as the leaf frame) on both sides."""

    name: str
    baseline: float
    candidate: float

    @property
    def delta(self) -> float:
        return self.candidate - self.baseline


@dataclass(frozen=True)
class StackDiff:
    unit: Unit
    baseline: DiffSide
    candidate: DiffSide
    root: DiffNode
    # The functions whose self cost changed most, largest |delta| first.
    changes: list[FrameChange]


def side_of(experiment: Experiment, configuration: str) -> DiffSide:
    """The configuration's merged stacks and its CPU per request (the stored aggregates'), or
    MissingStacksError naming the reason (sampling off, no sampler, sampler errors)."""
    sampler, stacks, _ = configuration_stacks(experiment.rounds, configuration)
    if not stacks:
        sampling_on = bool(experiment.spec.get("sample_stacks", True))
        reasons = summarize_configuration(experiment.rounds, configuration, None, sampling_on).problems
        raise MissingStacksError(
            f"experiment {experiment.id} has no stack samples of {configuration!r}: "
            + ("; ".join(reasons) or "no completed round has stacks")
        )
    aggregates = next((r.aggregates for r in experiment.results if r.configuration == configuration), None) or {}
    cpu = aggregates.get("cpu_per_request_us")
    return DiffSide(
        experiment_id=experiment.id,
        configuration=configuration,
        sampler=sampler,
        stacks=stacks,
        cpu_per_request_us=float(cpu) if isinstance(cpu, int | float) and cpu > 0 else None,
    )


def baseline_configuration(experiment: Experiment) -> str | None:
    return next((c["name"] for c in experiment.spec.get("configurations", []) if c.get("baseline")), None)


def unit_of(baseline: DiffSide, candidate: DiffSide) -> Unit:
    known = baseline.cpu_per_request_us is not None and candidate.cpu_per_request_us is not None
    return "us_per_request" if known else "share_pct"


def _side_total(side: DiffSide, unit: Unit) -> float:
    """What one side's samples add up to: its CPU per request (µs), or 100 %."""
    return side.cpu_per_request_us if unit == "us_per_request" and side.cpu_per_request_us is not None else 100.0


def _require_samples(baseline: DiffSide, candidate: DiffSide) -> None:
    for role, side in (("baseline", baseline), ("candidate", candidate)):
        if side.samples <= 0:
            raise MissingStacksError(
                f"the {role} ({side.configuration!r} of experiment {side.experiment_id}) has no stack samples"
            )


def diff(baseline: DiffSide, candidate: DiffSide, min_share: float = 0.001) -> StackDiff:
    """The diff tree: every frame's cost on both sides; frames below `min_share` of both sides'
    samples are left out (their cost still counts in their parent's)."""
    _require_samples(baseline, candidate)
    unit = unit_of(baseline, candidate)
    scale_b = _side_total(baseline, unit) / baseline.samples
    scale_c = _side_total(candidate, unit) / candidate.samples
    counts = _count_tree(baseline.stacks, candidate.stacks)
    root = _scaled(counts, candidate.configuration, scale_b, scale_c, baseline.samples, candidate.samples, min_share)
    return StackDiff(
        unit=unit, baseline=baseline, candidate=candidate, root=root, changes=_changes(baseline, candidate, unit)
    )


@dataclass
class _Counts:
    baseline: int = 0
    candidate: int = 0
    children: dict[str, _Counts] = field(default_factory=dict)


def _count_tree(baseline: folded.Folded, candidate: folded.Folded) -> _Counts:
    root = _Counts()
    for stacks, is_candidate in ((baseline, False), (candidate, True)):
        for stack, count in stacks.items():
            node = root
            for frame in [None, *folded.frames(stack)]:
                if frame is not None:
                    node = node.children.setdefault(frame, _Counts())
                if is_candidate:
                    node.candidate += count
                else:
                    node.baseline += count
    return root


def _scaled(
    counts: _Counts, name: str, scale_b: float, scale_c: float, total_b: int, total_c: int, min_share: float
) -> DiffNode:
    kept = [
        (frame, child)
        for frame, child in counts.children.items()
        if max(child.baseline / total_b, child.candidate / total_c) >= min_share
    ]
    children = [_scaled(child, frame, scale_b, scale_c, total_b, total_c, min_share) for frame, child in kept]
    children.sort(key=lambda node: (-node.candidate, -node.baseline, node.name))
    return DiffNode(
        name=name, baseline=counts.baseline * scale_b, candidate=counts.candidate * scale_c, children=children
    )


def _changes(baseline: DiffSide, candidate: DiffSide, unit: Unit) -> list[FrameChange]:
    def self_costs(side: DiffSide) -> dict[str, float]:
        leaves: Counter[str] = Counter()
        for stack, count in side.stacks.items():
            leaves[folded.frames(stack)[-1]] += count
        scale = _side_total(side, unit) / side.samples
        return {name: count * scale for name, count in leaves.items()}

    before, after = self_costs(baseline), self_costs(candidate)
    changes = [FrameChange(name, before.get(name, 0.0), after.get(name, 0.0)) for name in before.keys() | after.keys()]
    changes.sort(key=lambda change: (-abs(change.delta), change.name))
    return [change for change in changes[:TOP_CHANGES] if change.delta != 0]


def folded_diff(baseline: DiffSide, candidate: DiffSide) -> tuple[Unit, str]:
    """Brendan Gregg's difffolded.pl output, `stack count_baseline count_candidate` per line, for
    `flamegraph.pl` (which colours by the difference) or inferno. Counts are integers: with both
    CPUs per request known, ns of CPU per request (each side's counts sum to its CPU per request
    in ns); otherwise parts per million of the side's samples (each side sums to 1,000,000)."""
    _require_samples(baseline, candidate)
    unit = unit_of(baseline, candidate)
    scale = FOLDED_SCALE[unit]
    counts_b = _apportion(baseline.stacks, _side_total(baseline, unit) * scale)
    counts_c = _apportion(candidate.stacks, _side_total(candidate, unit) * scale)
    lines = (
        f"{stack} {counts_b.get(stack, 0)} {counts_c.get(stack, 0)}\n"
        for stack in sorted(counts_b.keys() | counts_c.keys())
    )
    return unit, "".join(lines)


def _apportion(stacks: folded.Folded, total: float) -> dict[str, int]:
    """Integer counts proportional to `stacks` that add up to round(total) exactly (largest
    remainder), so a side's folded counts sum to its CPU per request."""
    samples = sum(stacks.values())
    target = round(total)
    exact = {stack: count * total / samples for stack, count in stacks.items()}
    whole = {stack: math.floor(value) for stack, value in exact.items()}
    left = target - sum(whole.values())
    by_remainder = sorted(exact, key=lambda stack: (-(exact[stack] - whole[stack]), stack))
    for stack in by_remainder[: max(0, left)]:
        whole[stack] += 1
    return whole
