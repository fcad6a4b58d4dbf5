"""Property tests of the operator's bounds at submission (issue 40, item 2): whatever load a
spec asks for, it is refused (SpecError, the routes' 422) or everything it sends and its
estimate are within the limits, counted by the tests' own arithmetic (bounds_oracle.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.app.bounds_oracle import pipeline_sent, service_sent
from tracetax.app.submission import validate_bounds
from tracetax.core.config import Settings
from tracetax.spec.base import SpecError
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec

# The defaults, and caps small enough that the drawn specs land on both sides of them.
LIMITS = [
    {},
    {
        "max_phase_requests": 50_000,
        "max_experiment_requests": 1_000_000,
        "max_phase_spans": 500_000,
        "max_experiment_spans": 5_000_000,
        "max_spec_estimate_s": 3600,
    },
]
PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MAX_RATE, MAX_SPANS_PER_S = 100_000, 1_000_000


def seconds(low: float, high: float) -> st.SearchStrategy[float]:
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


@st.composite
def service_specs(draw: st.DrawFn) -> dict[str, Any]:
    duration = draw(seconds(0.5, 3600))
    load: dict[str, Any] = {
        "rate": draw(seconds(1, MAX_RATE)),
        "warmup_s": draw(seconds(0, 600)),
        "duration_s": duration,
        "max_throughput_s": draw(seconds(0, 600)),
        "stacks_s": draw(seconds(2, 600)),
        "side_by_side_s": draw(maybe(seconds(0, 3600))),
        "side_by_side_warmup_s": draw(maybe(seconds(0, 600))),
        "side_by_side_instances": draw(st.integers(1, 4)),
    }
    if draw(st.booleans()):
        length = draw(seconds(0.1, min(duration, 600)))
        start = draw(seconds(0, min(duration - length, 3600)))
        load["burst"] = {"start_s": start, "duration_s": length, "multiplier": draw(seconds(1.01, 100))}
    count = draw(st.integers(1, 12))
    spec: dict[str, Any] = {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"name": f"c{index}", "processor": "none", "baseline": index == 0} for index in range(count)
        ],
        "load": load,
        "rounds": draw(st.integers(1, 50)),
        "sample_stacks": draw(st.booleans()),
    }
    if count > 1 and draw(st.booleans()):
        spec["rounds"] = max(2, spec["rounds"])
        spec["precision"] = {"metrics": ["p50"], "half_width_pct": 5, "max_wall_time_s": draw(seconds(1, 86_400))}
    return spec


@st.composite
def pipeline_specs(draw: st.DrawFn) -> dict[str, Any]:
    load: dict[str, Any] = {
        "spans_per_s": draw(seconds(1, MAX_SPANS_PER_S)),
        "warmup_s": draw(seconds(0, 600)),
        "duration_s": draw(seconds(0.5, 3600)),
        "drain_s": draw(seconds(1, 600)),
        "side_by_side_s": draw(maybe(seconds(0, 3600))),
        "side_by_side_warmup_s": draw(maybe(seconds(0, 600))),
    }
    if draw(st.booleans()):
        load["ramp"] = {
            "start_spans_per_s": draw(maybe(seconds(1, MAX_SPANS_PER_S))),
            "factor": draw(seconds(1.05, 4)),
            "step_s": draw(seconds(1, 120)),
            "max_spans_per_s": draw(seconds(1, MAX_SPANS_PER_S)),
            "max_steps": draw(st.integers(1, 40)),
        }
    count = draw(st.integers(1, 12))
    return {
        "subject": "collector",
        "configurations": [
            {"name": f"v{index}", "pipeline": "passthrough", "baseline": index == 0} for index in range(count)
        ],
        "load": load,
        "rounds": draw(st.integers(1, 50)),
    }


def accepted(spec: ExperimentSpec | PipelineSpec, limits: Settings) -> bool:
    """Whether the bounds let the spec through; a refusal names a field for every error."""
    try:
        validate_bounds(spec, limits)
    except SpecError as error:
        assert error.errors and all(item["loc"] and item["msg"] for item in error.errors), error.errors
        event("refused")
        return False
    event("accepted")
    return True


@pytest.mark.parametrize("overrides", LIMITS)
@PROPERTY
@given(raw=service_specs())
def test_an_accepted_service_spec_sends_and_lasts_within_every_limit(
    overrides: dict[str, Any], raw: dict[str, Any]
) -> None:
    try:
        spec = ExperimentSpec.model_validate(raw)
    except ValidationError:
        assume(False)
        raise
    limits = Settings(**overrides)
    if not accepted(spec, limits):
        return
    sent = service_sent(raw, spec.max_rounds())
    assert sent.largest_phase <= limits.max_phase_requests * (1 + 1e-9)
    assert sent.total <= limits.max_experiment_requests * (1 + 1e-9)
    assert sent.together_rate <= MAX_RATE
    assert spec.budgeted_seconds() <= limits.max_spec_estimate_s
    # The estimate counts every phase of every round (its starts and stops besides).
    assert spec.estimated_seconds() >= service_sent(raw, spec.rounds).phase_seconds - 1e-6


@pytest.mark.parametrize("overrides", LIMITS)
@PROPERTY
@given(raw=pipeline_specs())
def test_an_accepted_pipeline_spec_sends_and_lasts_within_every_limit(
    overrides: dict[str, Any], raw: dict[str, Any]
) -> None:
    try:
        spec = PipelineSpec.model_validate(raw)
    except ValidationError:
        assume(False)
        raise
    limits = Settings(**overrides)
    if not accepted(spec, limits):
        return
    sent = pipeline_sent(raw)
    assert sent.largest_phase <= limits.max_phase_spans * (1 + 1e-9)
    assert sent.total <= limits.max_experiment_spans * (1 + 1e-9)
    assert sent.together_rate <= MAX_SPANS_PER_S
    assert spec.estimated_seconds() <= limits.max_spec_estimate_s
    assert spec.estimated_seconds() >= sent.phase_seconds - 1e-6
