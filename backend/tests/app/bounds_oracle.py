"""What a spec sends and how long it takes, counted from the spec's fields as written: the
property tests' own arithmetic, independent of the spec models' (which the bounds use)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SIDE_BY_SIDE_DEFAULT_MAX_S = 10.0


@dataclass(frozen=True)
class Sent:
    # The most one phase sends (every load of the side-by-side phase together).
    largest_phase: float
    # Every phase of every round.
    total: float
    # The side-by-side phase's loads at once, each at the load's rate (0: no such phase).
    together_rate: float
    # Every phase's seconds of every round, without starts, stops and settles.
    phase_seconds: float


def _side_by_side(load: dict[str, Any], configurations: int, twice: bool = True) -> tuple[float, float]:
    """The side-by-side phase's (warm-up, window) seconds; (0, 0) when it does not run."""
    window = load.get("side_by_side_s")
    if window is None:
        window = min(load.get("duration_s", 15), SIDE_BY_SIDE_DEFAULT_MAX_S)
    if window <= 0 or configurations < 2 or not twice:
        return 0.0, 0.0
    warmup = load.get("side_by_side_warmup_s")
    return (load.get("warmup_s", 5) if warmup is None else warmup), window


def service_sent(spec: dict[str, Any], rounds: int) -> Sent:
    """Requests of a service spec over `rounds` rounds (a precision's most, when it has one)."""
    load, configurations = spec["load"], len(spec["configurations"])
    rate, duration = load["rate"], load.get("duration_s", 15)
    measured = rate * duration
    burst = load.get("burst")
    if burst is not None:
        measured += rate * (burst["multiplier"] - 1) * burst["duration_s"]
    own = [rate * load.get("warmup_s", 5), measured]
    seconds = load.get("warmup_s", 5) + duration + load.get("max_throughput_s", 5)
    if spec.get("sample_stacks", True):
        own.append(rate * load.get("stacks_s", 5))
        seconds += load.get("stacks_s", 5)
    loads = configurations * load.get("side_by_side_instances", 1)
    warmup, window = _side_by_side(load, configurations)
    together = [rate * warmup * loads, rate * window * loads] if window else []
    per_round = sum(own) * configurations + sum(together)
    return Sent(
        largest_phase=max(own + together),
        total=per_round * rounds,
        together_rate=rate * loads if window else 0.0,
        phase_seconds=(seconds * configurations + warmup + window) * rounds,
    )


def pipeline_sent(spec: dict[str, Any]) -> Sent:
    """Spans of a pipeline spec, every ramp step it may take included."""
    load, variants, rounds = spec["load"], len(spec["configurations"]), spec.get("rounds", 5)
    rate = load["spans_per_s"]
    warmup, duration = load.get("warmup_s", 2), load.get("duration_s", 20)
    own = [rate * warmup, rate * duration]
    seconds = warmup + duration + load.get("drain_s", 6)
    ramp = load.get("ramp")
    steps: list[float] = []
    if ramp is not None:
        step_rate = ramp.get("start_spans_per_s") or rate
        while step_rate <= ramp.get("max_spans_per_s", 200_000) and len(steps) < ramp.get("max_steps", 12):
            steps.append(round(step_rate, 1) * ramp.get("step_s", 3))
            step_rate *= ramp.get("factor", 1.5)
        seconds += len(steps) * ramp.get("step_s", 3)
    sbs_warmup, window = _side_by_side({"warmup_s": 2, "duration_s": 20} | load, variants)
    together = [rate * sbs_warmup * variants, rate * window * variants] if window else []
    per_round = (sum(own) + sum(steps)) * variants + sum(together)
    return Sent(
        largest_phase=max(own + steps + together),
        total=per_round * rounds,
        together_rate=rate * variants if window else 0.0,
        phase_seconds=(seconds * variants + sbs_warmup + window) * rounds,
    )
