"""A check request is its experiment's spec but for the fields a check says its own way."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from tracetax.api.schemas.checks import (
    PIPELINE_CHECK_OWN,
    SERVICE_CHECK_OWN,
    CheckRequest,
    PipelineCheckRequest,
)
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec


@pytest.mark.parametrize(
    ("spec", "check", "own"),
    [(ExperimentSpec, CheckRequest, SERVICE_CHECK_OWN), (PipelineSpec, PipelineCheckRequest, PIPELINE_CHECK_OWN)],
)
def test_every_spec_field_but_the_checks_own_is_a_check_field_with_its_type_and_bounds(
    spec: type[BaseModel], check: type[BaseModel], own: tuple[str, ...]
) -> None:
    for name, field in spec.model_fields.items():
        if name in own:
            assert name not in check.model_fields
            continue
        taken = check.model_fields[name]
        assert (taken.annotation, taken.metadata, taken.discriminator) == (
            field.annotation,
            field.metadata,
            field.discriminator,
        ), name


def test_a_check_means_some_spec_fields_its_own_way() -> None:
    fields = CheckRequest.model_fields
    assert fields["sample_stacks"].default is False  # a spec samples stacks; a check runs as short as it can
    assert ExperimentSpec.model_fields["sample_stacks"].default is True
    assert fields["subject"].description == "A service check; `collector` for a pipeline."
    assert fields["rounds"].description == ExperimentSpec.model_fields["rounds"].description


SERVICE_CHECK = {
    "service": {"kind": "demo", "language": "go"},
    "baseline": {"preset": "none"},
    "candidate": {"preset": "batch-default"},
    "load": {"rate": 50, "duration_s": 2, "warmup_s": 0, "max_throughput_s": 0},
    "budget": {"p99_overhead_pct": 10},
    "rounds": 3,
    "seed": 7,
}


def test_the_experiment_takes_every_spec_field_the_check_was_given() -> None:
    spec = CheckRequest.model_validate(SERVICE_CHECK).experiment_spec()
    assert (spec.rounds, spec.seed, spec.sample_stacks, spec.load.rate) == (3, 7, False, 50)
    assert [(c.name, c.baseline) for c in spec.configurations] == [("baseline", True), ("candidate", False)]
    assert spec.name == "check: batch-default vs none"
