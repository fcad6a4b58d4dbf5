"""Request concurrency as spec fields: validated per service, passed as the service's own knob,
the cores taken from the placement's, and the per-thread-group figures they are studied by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tracetax.demos.catalog import ModeSpec, ServiceManifest
from tracetax.engine.aggregate import RoundData
from tracetax.engine.sampler import thread_group, thread_group_summary
from tracetax.profiling.samplers import NodeCpuProfile, PySpy
from tracetax.spec.base import SpecError
from tracetax.spec.catalog import validate_against_catalog, validate_command, validate_cores
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.aggregate import thread_groups
from tracetax.subjects.service.runner import concurrency_environment, service_cores
from tracetax.system.placement import Placement

JAVA = ServiceManifest(
    language="java",
    framework="jdk",
    build=["make"],
    modes={"none": ModeSpec(argv=["java"]), "batch": ModeSpec(argv=["java"])},
    concurrency={"threads": "TRACETAX_HTTP_WORKERS"},
)


def spec(concurrency: dict[str, Any], service: dict[str, Any] | None = None) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "service": service or {"kind": "demo", "language": "java"},
            "configurations": [
                {"name": "none", "processor": "none", "baseline": True},
                {"name": "batch", "processor": "batch", "concurrency": concurrency},
            ],
            "load": {"rate": 100},
        }
    )


def locations(error: SpecError) -> list[tuple[Any, ...]]:
    return [tuple(item["loc"]) for item in error.errors]


def test_a_knob_the_service_has_becomes_its_variable() -> None:
    parsed = spec({"threads": 64})
    validate_against_catalog(parsed, JAVA)
    assert concurrency_environment(parsed.configuration("batch"), JAVA) == {"TRACETAX_HTTP_WORKERS": "64"}
    assert concurrency_environment(parsed.configuration("none"), JAVA) == {}


def test_a_knob_the_service_lacks_is_named_with_what_it_accepts() -> None:
    with pytest.raises(SpecError) as caught:
        validate_against_catalog(spec({"workers": 4}), JAVA)
    assert locations(caught.value) == [("configurations", 1, "concurrency", "workers")]
    assert "accepts threads" in str(caught.value)


def test_out_of_range_values_are_refused_by_field() -> None:
    with pytest.raises(ValidationError) as caught:
        spec({"threads": 0, "gomaxprocs": 1000})
    assert {tuple(e["loc"])[-2:] for e in caught.value.errors()} == {
        ("concurrency", "threads"),
        ("concurrency", "gomaxprocs"),
    }


def test_a_command_service_gets_gomaxprocs_only_when_it_is_go() -> None:
    go = {"kind": "command", "argv": ["./svc"], "port": 8080, "language": "go"}
    parsed = spec({"gomaxprocs": 2}, go)
    validate_command(parsed)
    assert concurrency_environment(parsed.configuration("batch"), None) == {"GOMAXPROCS": "2"}
    with pytest.raises(SpecError) as caught:
        validate_command(spec({"threads": 8}, {**go, "language": "python"}))
    assert locations(caught.value) == [("configurations", 1, "concurrency", "threads")]
    assert "its own argv" in str(caught.value)


def test_cores_are_the_first_of_the_service_cores_and_must_fit() -> None:
    placement = Placement(service_cpus={2, 3}, loadgen_cpus={1})
    two = spec({"cores": 1}).configuration("batch")
    assert service_cores(two, placement) == {2}
    assert service_cores(spec({}).configuration("batch"), placement) == {2, 3}
    validate_cores(spec({"cores": 2}), {2, 3})
    with pytest.raises(SpecError) as caught:
        validate_cores(spec({"cores": 3}), {2, 3})
    assert locations(caught.value) == [("configurations", 1, "concurrency", "cores")]
    assert "TRACETAX_SERVICE_CPUS" in str(caught.value)
    with pytest.raises(SpecError, match="does not pin"):
        validate_cores(spec({"cores": 1}), None)


def test_a_pool_is_one_group_and_the_sdk_worker_keeps_its_name() -> None:
    assert thread_group("http-worker-12") == "http-worker-*"
    assert thread_group("BatchSpanProces") == "BatchSpanProces"


def sample(groups: dict[str, list[float]]) -> dict[str, Any]:
    return {"by_thread_group": groups}


def test_group_figures_over_the_window_per_request() -> None:
    first = sample({"BatchSpanProces": [1.0, 100, 1], "http-worker-*": [2.0, 50, 8]})
    last = sample({"BatchSpanProces": [1.5, 1100, 1], "http-worker-*": [6.0, 2050, 8]})
    groups = thread_group_summary(first, last, requests=1000)
    assert groups["BatchSpanProces"] == {
        "threads": 1,
        "cpu_s": 0.5,
        "ctx_switches": 1000,
        "cpu_per_request_us": 500.0,
        "ctx_per_request": 1.0,
    }
    assert list(groups) == ["http-worker-*", "BatchSpanProces"]  # most CPU first


def round_with(group: dict[str, Any], index: int) -> RoundData:
    return RoundData(
        configuration="batch",
        round_index=index,
        status="completed",
        histogram=None,
        figures=None,
        resources={"thread_groups": {"BatchSpanProces": group}},
    )


def test_per_span_figures_need_the_spans_a_request_makes() -> None:
    rounds = [
        round_with({"threads": 1, "cpu_per_request_us": cpu, "ctx_per_request": ctx}, i)
        for i, (cpu, ctx) in enumerate([(10.0, 1.0), (20.0, 2.0), (30.0, 3.0)])
    ]
    worker = thread_groups(rounds, spans_per_request=5)["BatchSpanProces"]
    assert (worker["cpu_per_request_us"], worker["cpu_per_span_us"], worker["ctx_per_span"]) == (20.0, 4.0, 0.4)
    assert thread_groups(rounds, spans_per_request=None)["BatchSpanProces"]["cpu_per_span_us"] is None


def test_samplers_that_look_at_one_process_look_at_every_worker(tmp_path: Path) -> None:
    py_spy, v8 = PySpy(tmp_path, tmp_path), NodeCpuProfile(tmp_path, tmp_path)
    for sampler in (py_spy, v8):
        sampler.serve_from_workers(3)
    assert py_spy.subprocesses and v8.expected == 3
