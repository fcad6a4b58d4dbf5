"""The constants the UI generates from the OpenAPI (frontend/scripts/gen-constants.mjs) are the
ones the backend computes with: the estimate's start and stop times, the zero-code agents'
languages, the env editor's OTEL_* suggestions."""

from __future__ import annotations

from tracetax.demos.zero_code import AGENT_LANGUAGES
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import HTTP_METHODS, CommandServiceRef, ConfigurationSpec, ExperimentSpec, LoadSpec


def test_the_service_estimate_publishes_its_start_and_stop() -> None:
    assert ExperimentSpec.model_json_schema()["x-estimate"] == {
        "startup_s": 3.0,
        "stop_s": 2.0,
        "settle_s": 2.5,
        "side_by_side_default_max_s": 10.0,
    }
    spec = ExperimentSpec.model_validate(
        {
            "service": {"kind": "demo", "language": "go"},
            "configurations": [{"preset": "none"}],
            "load": {"rate": 100, "warmup_s": 2, "duration_s": 10, "max_throughput_s": 5},
            "rounds": 1,
            "sample_stacks": False,
        }
    )
    assert spec.estimated_seconds() == 3 + 2 + 10 + 5 + 2


def test_the_pipeline_estimate_publishes_its_start_stop_and_ramp_step() -> None:
    published = PipelineSpec.model_json_schema()["x-estimate"]
    assert published == {
        "startup_s": 2.0,
        "stop_s": 2.0,
        "ramp_step_overhead_s": 1.5,
        "side_by_side_default_max_s": 10.0,
    }
    spec = PipelineSpec.model_validate(
        {
            "subject": "collector",
            "configurations": [{"pipeline": "passthrough", "baseline": True}],
            "load": {"spans_per_s": 1000, "warmup_s": 2, "duration_s": 10, "drain_s": 3},
            "rounds": 1,
        }
    )
    assert spec.estimated_seconds() == 2 + 2 + 10 + 3 + 2


def test_agent_languages_and_otel_suggestions_are_published() -> None:
    assert CommandServiceRef.model_json_schema()["x-agent-languages"] == list(AGENT_LANGUAGES)
    suggestions = ConfigurationSpec.model_json_schema()["x-otel-suggestions"]
    assert suggestions[:4] == [
        "OTEL_BSP_MAX_QUEUE_SIZE",
        "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
        "OTEL_BSP_SCHEDULE_DELAY",
        "OTEL_BSP_EXPORT_TIMEOUT",
    ]
    assert all(name.startswith("OTEL_") for name in suggestions)


def test_the_http_methods_are_published() -> None:
    schema = LoadSpec.model_json_schema()
    assert schema["x-http-methods"] == list(HTTP_METHODS)
    assert schema["x-bodyless-methods"] == ["GET", "HEAD"]
