"""Input taken literally and bounded (issue 21, items 4 and 8): a key no model knows is an error
naming it, a number must be finite, every string, list and map is capped, and a spec's load
phases and wall time stay within the operator's settings. Every spec the docs show still parses,
and a spec as stored (its dump) parses again to the same spec."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from tracetax.api.schemas.calibrations import CalibrationRequest
from tracetax.api.schemas.checks import CheckRequest, PipelineCheckRequest
from tracetax.app.submission import validate_bounds
from tracetax.core.config import Settings
from tracetax.diagnostics.checks import Budget
from tracetax.diagnostics.cost import CostInputs
from tracetax.spec.base import SpecError
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.inputs import ARGV_ITEMS, BODY_CHARS, ENV_ENTRIES, HEADER_ENTRIES, SETTING_ENTRIES, InputModel
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.union import parse_spec
from tracetax.tuning.spec import TuningSpec

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "docs" / "examples"


def go_spec(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 200, "duration_s": 5, "warmup_s": 1},
        "rounds": 2,
    }
    return base | overrides


def command_spec(**service: Any) -> dict[str, Any]:
    return go_spec(service={"kind": "command", "argv": ["./svc"], "port": 8080} | service)


def pipeline_spec(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
        "load": {"spans_per_s": 1000, "duration_s": 5},
    }
    return base | overrides


def errors_of(model: type[BaseModel], data: Any) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as raised:
        model.model_validate(data)
    return [(tuple(item["loc"]), item["type"]) for item in raised.value.errors()]


def spec_errors(data: Any) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as raised:
        parse_spec(data)
    # The union's tag ("service", "collector") is not a field; the API's SpecRoute drops it too.
    return [(tuple(item["loc"])[1:], item["type"]) for item in raised.value.errors()]


# -- extra="forbid" -------------------------------------------------------------------------


def test_a_typo_in_the_load_is_refused_naming_it_instead_of_measuring_the_default() -> None:
    assert spec_errors(go_spec(load={"rate": 100, "duration": 600})) == [(("load", "duration"), "extra_forbidden")]


@pytest.mark.parametrize(
    ("change", "location"),
    [
        ({"sample_stack": False}, ("sample_stack",)),
        ({"service": {"kind": "demo", "language": "go", "lang": "go"}}, ("service", "demo", "lang")),
        ({"configurations": [{"preset": "none", "envs": {}}, {"preset": "simple"}]}, ("configurations", 0, "envs")),
        (
            {"configurations": [{"preset": "none", "concurrency": {"thread": 4}}, {"preset": "simple"}]},
            ("configurations", 0, "concurrency", "thread"),
        ),
        (
            {"load": {"rate": 100, "burst": {"start_s": 1, "duration_s": 1, "multiplier": 2, "x": 1}}},
            ("load", "burst", "x"),
        ),
        ({"load": {"rate": 100, "paths": [{"path": "/a", "weigth": 2}]}}, ("load", "paths", 0, "weigth")),
    ],
)
def test_every_service_spec_model_refuses_unknown_keys(change: dict[str, Any], location: tuple[Any, ...]) -> None:
    assert spec_errors(go_spec(**change)) == [(location, "extra_forbidden")]


def test_a_command_service_refuses_unknown_keys() -> None:
    assert spec_errors(command_spec(args=["x"])) == [(("service", "command", "args"), "extra_forbidden")]


def test_every_pipeline_spec_model_refuses_unknown_keys() -> None:
    variants = [{"pipeline": "passthrough", "baseline": True, "setting": {}}, {"pipeline": "batch-default"}]
    assert spec_errors(pipeline_spec(configurations=variants)) == [
        (("configurations", 0, "setting"), "extra_forbidden")
    ]
    ramp = {"spans_per_s": 1000, "ramp": {"factor": 2, "steps": 3}}
    assert spec_errors(pipeline_spec(load=ramp)) == [(("load", "ramp", "steps"), "extra_forbidden")]


def test_requests_and_budgets_refuse_unknown_keys() -> None:
    check = {
        "service": {"kind": "demo", "language": "go"},
        "baseline": {"preset": "none"},
        "candidate": {"preset": "simple"},
        "load": {"rate": 100},
        "budget": {"p99_overhead_pct": 10, "p99_overhed_pct": 5},
    }
    assert errors_of(CheckRequest, check) == [(("budget", "p99_overhed_pct"), "extra_forbidden")]
    assert errors_of(CheckRequest, check | {"budget": {}, "strikt": True}) == [(("strikt",), "extra_forbidden")]
    calibration = {"service": {"kind": "demo", "language": "go"}, "load": {"rate": 100}, "round": 3}
    assert errors_of(CalibrationRequest, calibration) == [(("round",), "extra_forbidden")]
    assert errors_of(CostInputs, {"requests_per_sec": 5}) == [(("requests_per_sec",), "extra_forbidden")]
    tuning = yaml.safe_load((EXAMPLES / "go-tuning.yaml").read_text())
    tuning["budgets"]["p99_overhead"] = 5
    assert errors_of(TuningSpec, tuning) == [(("budgets", "p99_overhead"), "extra_forbidden")]


def test_every_input_model_derives_from_input_model() -> None:
    """What the API and the spec files read is refused literally; a new input model must derive
    from InputModel to be."""
    seen: set[type[BaseModel]] = set()

    def walk(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for field in model.model_fields.values():
            for nested in _models_in(field.annotation):
                walk(nested)

    for root in (ExperimentSpec, PipelineSpec, CheckRequest, PipelineCheckRequest, CalibrationRequest, TuningSpec):
        walk(root)
    not_inputs = sorted(model.__name__ for model in seen if not issubclass(model, InputModel))
    assert not not_inputs
    assert {"Budget", "CostInputs", "TuningBudgets", "Burst", "RampSpec", "WeightedPath"} <= {m.__name__ for m in seen}


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for argument in getattr(annotation, "__args__", ()) for model in _models_in(argument)]


# -- allow_inf_nan=False --------------------------------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), "NaN", "Infinity"])
def test_budgets_refuse_numbers_that_are_not_finite(value: Any) -> None:
    assert errors_of(Budget, {"p99_overhead_pct": value}) == [(("p99_overhead_pct",), "finite_number")]
    assert errors_of(Budget, {"p99_added_ms": value}) == [(("p99_added_ms",), "finite_number")]
    tuning = yaml.safe_load((EXAMPLES / "go-tuning.yaml").read_text())
    tuning["budgets"]["max_lost_spans"] = value
    assert errors_of(TuningSpec, tuning) == [(("budgets", "max_lost_spans"), "finite_number")]


def test_a_nan_rate_is_refused_naming_it() -> None:
    assert spec_errors(go_spec(load={"rate": float("nan")})) == [(("load", "rate"), "finite_number")]
    assert spec_errors(pipeline_spec(load={"spans_per_s": float("inf")})) == [
        (("load", "spans_per_s"), "finite_number")
    ]


# -- caps -----------------------------------------------------------------------------------


def test_strings_lists_and_maps_are_capped() -> None:
    too_many_args = ["./svc", *(["-v"] * ARGV_ITEMS)]
    assert spec_errors(command_spec(argv=too_many_args)) == [(("service", "command", "argv"), "too_long")]
    assert spec_errors(command_spec(argv=["./svc", "x" * 5000])) == [
        (("service", "command", "argv", 1), "string_too_long")
    ]
    assert spec_errors(command_spec(cwd="/" + "d" * 5000)) == [(("service", "command", "cwd"), "string_too_long")]
    env = {f"OTEL_X_{index}": "1" for index in range(ENV_ENTRIES + 1)}
    configurations = [{"preset": "none", "env": env}, {"preset": "simple"}]
    assert spec_errors(go_spec(configurations=configurations)) == [(("configurations", 0, "env"), "too_long")]
    load: dict[str, Any] = {"rate": 10, "method": "POST", "body": "b" * (BODY_CHARS + 1)}
    assert spec_errors(go_spec(load=load)) == [(("load", "body"), "string_too_long")]
    headers = {f"x-h{index}": "v" for index in range(HEADER_ENTRIES + 1)}
    assert spec_errors(go_spec(load={"rate": 10, "headers": headers})) == [(("load", "headers"), "too_long")]
    assert spec_errors(go_spec(load={"rate": 10, "headers": {"x-a": "v" * 9000}})) == [
        (("load", "headers", "x-a"), "string_too_long")
    ]
    settings = {f"LAB_X_{index}": "1" for index in range(SETTING_ENTRIES + 1)}
    variants = [{"pipeline": "passthrough", "baseline": True, "settings": settings}, {"pipeline": "batch-default"}]
    assert spec_errors(pipeline_spec(configurations=variants)) == [(("configurations", 0, "settings"), "too_long")]


def test_a_body_at_the_cap_is_accepted() -> None:
    parsed = parse_spec(go_spec(load={"rate": 10, "method": "POST", "body": "b" * BODY_CHARS}))
    assert isinstance(parsed, ExperimentSpec) and len(parsed.load.body or "") == BODY_CHARS


# -- the operator's bounds ------------------------------------------------------------------


def bounds_errors(data: dict[str, Any], **settings: Any) -> list[dict[str, Any]]:
    with pytest.raises(SpecError) as raised:
        validate_bounds(parse_spec(data), Settings(**settings))
    return raised.value.errors


def test_rate_times_duration_over_the_cap_names_the_phase_the_setting_and_the_numbers() -> None:
    # 20,000 req/s for 600 s: 12 million rows, about 3.5 GB held the old way.
    load = {"rate": 20_000, "warmup_s": 1, "duration_s": 600, "max_throughput_s": 0}
    [error] = bounds_errors(go_spec(load=load, rounds=1, sample_stacks=False), max_phase_requests=3_000_000)
    assert error["loc"] == ("load", "duration_s")
    assert "TRACETAX_MAX_PHASE_REQUESTS" in error["msg"] and "3,000,000" in error["msg"]
    assert "12,000,000 requests" in error["msg"] and "load.rate 20000/s" in error["msg"], error["msg"]


def test_every_open_phase_counts_and_a_burst_adds_its_requests() -> None:
    # Each configuration's own phases (the side-by-side phase's are counted in the next test).
    load = {"rate": 1000, "warmup_s": 30, "duration_s": 10, "stacks_s": 20, "max_throughput_s": 0, "side_by_side_s": 0}
    errors = bounds_errors(go_spec(load=load, rounds=1), max_phase_requests=15_000)
    assert [error["loc"] for error in errors] == [("load", "warmup_s"), ("load", "stacks_s")]
    burst = {
        "rate": 1000,
        "duration_s": 10,
        "side_by_side_s": 0,
        "burst": {"start_s": 2, "duration_s": 4, "multiplier": 3},
    }
    [error] = bounds_errors(go_spec(load=burst, rounds=1, sample_stacks=False), max_phase_requests=15_000)
    assert error["loc"] == ("load", "duration_s") and "18,000 requests" in error["msg"] and "burst" in error["msg"]
    validate_bounds(parse_spec(go_spec(load=burst, rounds=1, sample_stacks=False)), Settings(max_phase_requests=18_000))


def test_the_side_by_side_phase_counts_every_load_its_warm_up_and_window_included() -> None:
    # 3 configurations x 2 instances at 1,000/s: 6,000 requests a second side by side.
    load = {"rate": 1000, "warmup_s": 2, "duration_s": 4, "side_by_side_s": 5, "side_by_side_instances": 2}
    spec = parse_spec(
        go_spec(
            load=load, rounds=2, configurations=[{"preset": "none"}, {"preset": "batch-default"}, {"preset": "simple"}]
        )
    )
    assert isinstance(spec, ExperimentSpec)
    phases = spec.requests_by_phase()
    assert phases["side_by_side_warmup_s"] == (2, 12_000) and phases["side_by_side_s"] == (5, 30_000)
    # Each configuration's warm-up, measured phase and stacks (5 s), and the side-by-side phase.
    assert spec.max_requests() == 2 * (3 * (2_000 + 4_000 + 5_000) + 42_000)
    errors = bounds_errors(go_spec(load=load, rounds=2), max_phase_requests=15_000)
    assert [error["loc"] for error in errors] == [("load", "side_by_side_s")]
    assert "x 4 loads (2 configurations x 2 instances, side by side)" in errors[0]["msg"], errors[0]["msg"]
    # Without the phase (side_by_side_s 0) nothing of it counts.
    alone = parse_spec(go_spec(load=load | {"side_by_side_s": 0}))
    assert isinstance(alone, ExperimentSpec) and set(alone.requests_by_phase()) == {
        "warmup_s",
        "duration_s",
        "stacks_s",
    }


def test_a_spec_longer_than_the_estimate_cap_is_refused_with_its_estimate() -> None:
    data = go_spec(load={"rate": 100, "duration_s": 3600, "max_throughput_s": 0}, rounds=10)
    [error] = bounds_errors(data, max_spec_estimate_s=6 * 3600)
    assert error["loc"] == ("rounds",)
    assert "TRACETAX_MAX_SPEC_ESTIMATE_S" in error["msg"] and "2 configurations x 10 rounds" in error["msg"]
    piped = pipeline_spec(load={"spans_per_s": 1000, "duration_s": 600}, rounds=50)
    [error] = bounds_errors(piped, max_spec_estimate_s=3600)
    assert error["loc"] == ("rounds",) and "TRACETAX_MAX_SPEC_ESTIMATE_S" in error["msg"]


# -- every documented spec parses, and a stored spec parses again ---------------------------


def _documented_specs() -> list[tuple[str, Any]]:
    """Every spec file in docs/examples and every YAML block in the docs that is a spec (or a
    fragment of one: a `service` or a `load` alone)."""
    found = [(path.name, yaml.safe_load(path.read_text())) for path in sorted(EXAMPLES.glob("*.y*ml"))]
    found += [(path.name, json.loads(path.read_text())) for path in sorted(EXAMPLES.glob("*.json"))]
    # The CI examples' check request (the workflows beside it are not specs).
    found += [(f"ci/{path.name}", yaml.safe_load(path.read_text())) for path in sorted(EXAMPLES.glob("ci/check*.yaml"))]
    for page in sorted((REPO / "docs").glob("*.md")):
        for index, block in enumerate(re.findall(r"```yaml\n(.*?)```", page.read_text(), re.DOTALL)):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and ({"service", "load", "configurations"} & data.keys()):
                found.append((f"{page.name}#{index}", data))
    return found


def _model_for(data: dict[str, Any]) -> type[BaseModel] | None:
    if "wall_time_s" in data:
        return TuningSpec
    if "baseline" in data and "candidate" in data:
        return PipelineCheckRequest if data.get("subject") == "collector" else CheckRequest
    return None


DOCUMENTED = _documented_specs()


@pytest.mark.parametrize(("name", "data"), DOCUMENTED, ids=[name for name, _ in DOCUMENTED])
def test_every_documented_spec_parses_and_its_stored_form_parses_again(name: str, data: dict[str, Any]) -> None:
    model = _model_for(data)
    if model is not None:
        parsed: BaseModel = model.model_validate(data)
        assert model.model_validate(parsed.model_dump(mode="json")) == parsed, name
        return
    whole = data if "configurations" in data else go_spec(**{"load": {"rate": 10}, **data})
    spec = parse_spec(whole)
    # What the backend stores and reads back (results, re-runs, checks): the dump, every field.
    assert parse_spec(spec.model_dump(mode="json")) == spec, name


def test_the_docs_show_specs_of_every_kind() -> None:
    # Fragments (a `service` or a `load` alone) are left out: they are no kind of their own.
    whole = [data for _, data in DOCUMENTED if _model_for(data) or "configurations" in data]
    kinds = {_model_for(data) or parse_spec(data).__class__ for data in whole}
    assert {ExperimentSpec, PipelineSpec, TuningSpec, CheckRequest} <= kinds


def test_a_spec_with_every_field_set_is_stored_and_read_back_unchanged() -> None:
    data = command_spec(
        cwd="~/svc",
        language="python",
        spans_per_request=2.5,
        startup_timeout_s=30,
        service_name="svc",
    ) | {
        "name": "everything",
        "configurations": [
            {"preset": "none", "concurrency": {"cores": 1}},
            {"preset": "zero-code", "name": "agent", "env": {"OTEL_BSP_MAX_QUEUE_SIZE": "4096"}},
        ],
        "load": {
            "rate": 50,
            "method": "POST",
            "paths": [{"path": "/a?x=1", "weight": 2}, {"path": "/b"}],
            "headers": {"content-type": "application/json"},
            "body": '{"k": 1}',
            "burst": {"start_s": 1, "duration_s": 2, "multiplier": 3},
        },
        "seed": 7,
        "sample_stacks": False,
    }
    spec = parse_spec(data)
    assert parse_spec(json.loads(json.dumps(spec.model_dump(mode="json")))) == spec
