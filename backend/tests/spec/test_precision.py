"""A spec's `precision`: rounds added until the named metrics are narrow enough, within a time
budget that the operator's bound applies to."""

from __future__ import annotations

import typing
from typing import Any

import pytest
from pydantic import ValidationError

from tracetax.app.submission import validate_bounds
from tracetax.core.config import Settings
from tracetax.diagnostics.overhead import METRICS
from tracetax.diagnostics.sequential import SequentialDesign
from tracetax.spec.base import SpecError
from tracetax.spec.service import MAX_PRECISION_ROUNDS, ExperimentSpec, PrecisionMetric


def spec(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 200, "duration_s": 5, "warmup_s": 1},
        "rounds": 3,
    }
    return base | overrides


def with_precision(**precision: Any) -> dict[str, Any]:
    return spec(precision={"metrics": ["p50"], "half_width_pct": 5, "max_wall_time_s": 3600} | precision)


def test_the_metric_names_are_the_statistics_own() -> None:
    assert list(typing.get_args(PrecisionMetric)) == list(METRICS)


def test_without_precision_the_one_look_is_rounds() -> None:
    parsed = ExperimentSpec.model_validate(spec())
    assert parsed.precision is None
    assert parsed.planned_looks() == (3,) and parsed.max_rounds() == 3
    assert parsed.budgeted_seconds() == parsed.estimated_seconds()


def test_rounds_are_added_while_they_fit_in_the_time_budget() -> None:
    per_round = ExperimentSpec.model_validate(spec()).estimated_seconds() / 3
    budget = per_round * 7.5
    parsed = ExperimentSpec.model_validate(with_precision(max_wall_time_s=budget))
    # Growing by half each look (3, 5, 8, ...), the last one the most rounds that fit.
    assert parsed.planned_looks() == (3, 5, 7)
    assert parsed.max_rounds() == 7
    assert parsed.estimated_seconds() == pytest.approx(per_round * 3)  # still the first `rounds`
    assert parsed.budgeted_seconds() == budget
    SequentialDesign(parsed.planned_looks())  # what the engine makes of them


def test_added_rounds_stop_at_the_cap() -> None:
    parsed = ExperimentSpec.model_validate(with_precision(max_wall_time_s=86_400))
    assert parsed.planned_looks()[-1] == MAX_PRECISION_ROUNDS
    assert parsed.planned_looks() == (3, 5, 8, 12, 18, 27, 41, MAX_PRECISION_ROUNDS)


def test_a_time_budget_below_the_first_rounds_says_both_numbers() -> None:
    estimate = ExperimentSpec.model_validate(spec()).estimated_seconds()
    with pytest.raises(ValidationError) as raised:
        ExperimentSpec.model_validate(with_precision(max_wall_time_s=10))
    message = str(raised.value)
    assert "precision.max_wall_time_s (10 s)" in message
    assert f"the spec's 3 rounds ({estimate:,.0f} s)" in message


def test_precision_needs_a_candidate_and_two_rounds() -> None:
    with pytest.raises(ValidationError, match="precision needs a configuration besides the baseline"):
        ExperimentSpec.model_validate(with_precision() | {"configurations": [{"preset": "none"}]})
    with pytest.raises(ValidationError, match="precision needs rounds of at least 2"):
        ExperimentSpec.model_validate(with_precision() | {"rounds": 1})


@pytest.mark.parametrize(
    ("precision", "location"),
    [
        ({"metrics": []}, ("precision", "metrics")),
        ({"metrics": ["p42"]}, ("precision", "metrics", 0)),
        ({"metrics": ["p50", "p50"]}, ("precision", "metrics")),
        ({"half_width_pct": 0}, ("precision", "half_width_pct")),
        ({"half_width_pct": 101}, ("precision", "half_width_pct")),
        ({"max_wall_time_s": 0}, ("precision", "max_wall_time_s")),
        ({"max_wall_time_s": 10**6}, ("precision", "max_wall_time_s")),
        ({"rounds": 10}, ("precision", "rounds")),
    ],
)
def test_each_bad_precision_field_is_named(precision: dict[str, Any], location: tuple[object, ...]) -> None:
    with pytest.raises(ValidationError) as raised:
        ExperimentSpec.model_validate(with_precision(**precision))
    assert location in [tuple(error["loc"]) for error in raised.value.errors()]


def test_the_operators_bound_applies_to_the_time_budget() -> None:
    data = with_precision(max_wall_time_s=7200)
    with pytest.raises(SpecError) as raised:
        validate_bounds(ExperimentSpec.model_validate(data), Settings(max_spec_estimate_s=3600))
    [error] = raised.value.errors
    assert error["loc"] == ("precision", "max_wall_time_s")
    assert "TRACETAX_MAX_SPEC_ESTIMATE_S" in error["msg"] and "3600 s" in error["msg"]
    validate_bounds(ExperimentSpec.model_validate(data), Settings(max_spec_estimate_s=7200))
