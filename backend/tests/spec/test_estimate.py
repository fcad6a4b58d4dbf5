"""A spec's estimate and its parts (spec/estimate.py): the parts add up to the spec's own
estimated_seconds, the side-by-side phase only where it runs, a precision's budget and a
pipeline's ramp steps told apart."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

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


def ramped(start: float, **ramp: Any) -> PipelineSpec:
    return PipelineSpec.model_validate({**PIPELINE, "load": {**PIPELINE["load"], "spans_per_s": start, "ramp": ramp}})


def test_the_ramps_rates_are_start_times_factor_to_the_top_at_most_max_steps() -> None:
    # What the pipeline form shows of its ramp (it computes none of it itself).
    assert estimate_of(ramped(1000, factor=1.5, max_spans_per_s=5000)).ramp_rates == [1000, 1500, 2250, 3375]
    assert len(estimate_of(ramped(1000, factor=1.5)).ramp_rates) == 12  # max_steps' default, under 200,000
    assert estimate_of(ramped(1000, factor=1.5, max_steps=2)).ramp_rates == [1000, 1500]
    assert estimate_of(ramped(333.3, factor=1.1, max_spans_per_s=1000, max_steps=40)).ramp_rates == [
        333.3, 366.6, 403.3, 443.6, 488, 536.8, 590.5, 649.5, 714.5, 785.9, 864.5, 950.9,
    ]  # fmt: skip
    estimate = estimate_of(ramped(1000, factor=1.5, step_s=4, max_spans_per_s=5000))
    assert (estimate.ramp_steps, estimate.ramp_step_s) == (4, 4)


def test_a_ramp_from_a_start_of_its_own_or_above_its_top() -> None:
    assert estimate_of(ramped(1000, factor=2, start_spans_per_s=300, max_spans_per_s=2000)).ramp_rates == [
        300, 600, 1200,
    ]  # fmt: skip
    above = estimate_of(ramped(6000, factor=1.5, max_spans_per_s=5000))
    assert (above.ramp_rates, above.ramp_steps, above.ramp_step_s) == ([], 0, 3)


def test_without_a_ramp_there_are_no_rates() -> None:
    for spec in (ExperimentSpec.model_validate(SERVICE), PipelineSpec.model_validate(PIPELINE)):
        estimate = estimate_of(spec)
        assert (estimate.ramp_rates, estimate.ramp_steps, estimate.ramp_step_s) == ([], 0, None)


def test_a_factor_that_never_rises_is_refused_naming_it() -> None:
    with pytest.raises(ValidationError) as refused:
        ramped(1000, factor=1)
    assert [error["loc"] for error in refused.value.errors()] == [("load", "ramp", "factor")]
