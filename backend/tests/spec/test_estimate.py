"""A spec's estimate and its parts (spec/estimate.py): the parts add up to the spec's own
estimated_seconds, the side-by-side phase only where it runs, a precision's budget and a
pipeline's ramp steps told apart."""

from __future__ import annotations

from typing import Any

import pytest

from tracetax.spec.collector import PipelineSpec
from tracetax.spec.estimate import estimate_of
from tracetax.spec.service import STARTUP_S, STOP_S, ExperimentSpec
from tracetax.subjects.union import parse_spec

SERVICE: dict[str, Any] = {
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 3, "duration_s": 10, "max_throughput_s": 5},
    "rounds": 4,
    "sample_stacks": False,
}
PIPELINE: dict[str, Any] = {
    "subject": "collector",
    "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
    "load": {"spans_per_s": 1000, "duration_s": 10},
    "rounds": 3,
}


@pytest.mark.parametrize(
    "raw",
    [
        SERVICE,
        {**SERVICE, "load": {**SERVICE["load"], "side_by_side_s": 8}, "sample_stacks": True},
        PIPELINE,
        {**PIPELINE, "load": {**PIPELINE["load"], "ramp": {"factor": 2, "max_spans_per_s": 8000}}},
    ],
)
def test_the_parts_add_up_to_the_specs_own_estimate(raw: dict[str, Any]) -> None:
    spec = parse_spec(raw)
    estimate = estimate_of(spec)

    assert estimate.seconds == spec.estimated_seconds()
    parts = estimate.rounds * (estimate.configurations * estimate.per_run_s + estimate.side_by_side_s)
    assert parts == pytest.approx(estimate.seconds)
    assert estimate.side_by_side_s == spec.side_by_side_seconds()


def test_one_service_run_is_start_warm_up_phases_and_stop_without_stacks() -> None:
    estimate = estimate_of(ExperimentSpec.model_validate(SERVICE))

    assert estimate.per_run_s == pytest.approx(STARTUP_S + 3 + 10 + 5 + STOP_S)
    assert (estimate.rounds, estimate.configurations, estimate.up_to_s, estimate.ramp_steps) == (4, 2, None, 0)


def test_a_precision_says_up_to_its_wall_time_budget() -> None:
    precise = {**SERVICE, "precision": {"metrics": ["p99"], "half_width_pct": 5, "max_wall_time_s": 900}}
    assert estimate_of(ExperimentSpec.model_validate(precise)).up_to_s == 900


def test_a_pipeline_ramp_counts_every_step_it_may_run() -> None:
    ramped = {**PIPELINE, "load": {**PIPELINE["load"], "ramp": {"factor": 2, "max_spans_per_s": 8000}}}
    spec = PipelineSpec.model_validate(ramped)
    assert estimate_of(spec).ramp_steps == len(spec.load.ramp.rates(1000)) > 0  # type: ignore[union-attr]


def test_a_command_service_runs_side_by_side_only_when_two_instances_can_run() -> None:
    command = {"kind": "command", "argv": ["python3", "-m", "http.server", "{port}"], "health_path": "/"}
    base = {**SERVICE, "load": {**SERVICE["load"], "side_by_side_s": 3}}

    twice = estimate_of(parse_spec({**base, "service": command}))
    fixed_pprof = estimate_of(parse_spec({**base, "service": {**command, "pprof_port": 6060}}))

    assert twice.side_by_side_s > 0
    assert fixed_pprof.side_by_side_s == 0  # one pprof port cannot serve two instances
