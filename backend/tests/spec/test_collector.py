"""A pipeline spec: `subject: collector` selects it; every error names its field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.union import parse_spec


def spec(**changes: object) -> dict[str, object]:
    return {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
        "load": {"spans_per_s": 1000},
    } | changes


def test_subject_selects_the_kind_and_a_spec_without_one_is_a_service() -> None:
    assert isinstance(parse_spec(spec()), PipelineSpec)
    service = {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}],
        "load": {"rate": 1},
    }
    assert isinstance(parse_spec(service), ExperimentSpec)


def test_a_variant_is_named_after_its_pipeline() -> None:
    parsed = parse_spec(spec())
    assert isinstance(parsed, PipelineSpec)
    assert [c.name for c in parsed.configurations] == ["passthrough", "batch-default"]
    assert parsed.baseline.name == "passthrough"


@pytest.mark.parametrize(
    ("configurations", "message"),
    [
        ([{"name": "x", "baseline": True}], "exactly one of `pipeline`"),
        ([{"pipeline": "a", "config_file": "mine.yaml", "baseline": True}], "exactly one of `pipeline`"),
        ([{"pipeline": "a"}], "exactly one configuration must be the baseline"),
        ([{"pipeline": "a", "baseline": True, "settings": {"LAB_METRICS_PORT": "1"}}], "LAB_METRICS_PORT"),
        ([{"pipeline": "a", "baseline": True, "settings": {"PATH": "/"}}], "PATH"),
    ],
)
def test_bad_variants_are_refused_by_name(configurations: list[object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        parse_spec(spec(configurations=configurations))


def test_an_unknown_subject_names_the_field() -> None:
    with pytest.raises(ValidationError) as error:
        parse_spec(spec(subject="database"))
    # The union's tag ("service") leads the location; the API's SpecRoute strips it.
    assert any(item["loc"][-1] == "subject" for item in error.value.errors())


def test_more_than_one_service_per_trace_is_refused_naming_the_field() -> None:
    with pytest.raises(ValidationError) as error:
        parse_spec(spec(load={"spans_per_s": 1000, "services_per_trace": 3}))
    assert any("services_per_trace" in item["loc"] for item in error.value.errors())
