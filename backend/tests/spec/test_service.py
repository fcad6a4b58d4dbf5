from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tracetax.demos.catalog import ModeSpec, ServiceManifest
from tracetax.spec.base import SpecError
from tracetax.spec.catalog import validate_against_catalog
from tracetax.spec.service import CommandServiceRef, ExperimentSpec
from tracetax.subjects.union import load_spec_file


def spec(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 200, "duration_s": 5, "warmup_s": 1},
        "rounds": 2,
    }
    return base | overrides


def manifest(**modes: ModeSpec) -> ServiceManifest:
    return ServiceManifest(language="go", framework="net/http", build=["make", "build"], modes=modes)


def locations(error: ValidationError) -> list[tuple[object, ...]]:
    return [tuple(item["loc"]) for item in error.errors()]


def test_presets_expand_with_overrides() -> None:
    parsed = ExperimentSpec.model_validate(
        spec(configurations=[{"preset": "none"}, {"preset": "batch-tuned", "env": {"OTEL_BSP_SCHEDULE_DELAY": "500"}}])
    )
    tuned = parsed.configuration("batch-tuned")
    assert parsed.baseline.name == "none"
    assert tuned.processor == "batch"
    assert tuned.env["OTEL_BSP_SCHEDULE_DELAY"] == "500"
    assert tuned.env["OTEL_BSP_MAX_QUEUE_SIZE"] == "8192"


def test_each_bad_field_is_named() -> None:
    with pytest.raises(ValidationError) as raised:
        ExperimentSpec.model_validate(spec(load={"rate": 0, "connections": 0}, rounds=0))
    assert {("load", "rate"), ("load", "connections"), ("rounds",)} <= set(locations(raised.value))


def test_exactly_one_baseline() -> None:
    with pytest.raises(ValidationError, match="exactly one configuration must be the baseline"):
        ExperimentSpec.model_validate(spec(configurations=[{"preset": "simple"}, {"preset": "batch-default"}]))
    with pytest.raises(ValidationError, match="found 2: a, b"):
        ExperimentSpec.model_validate(
            spec(
                configurations=[
                    {"name": "a", "processor": "none", "baseline": True},
                    {"name": "b", "processor": "batch", "baseline": True},
                ]
            )
        )


def test_duplicate_names_and_unknown_preset() -> None:
    with pytest.raises(ValidationError, match="repeated: none"):
        ExperimentSpec.model_validate(spec(configurations=[{"preset": "none"}, {"preset": "none", "baseline": False}]))
    with pytest.raises(ValidationError, match="unknown preset 'batchy'"):
        ExperimentSpec.model_validate(spec(configurations=[{"preset": "none"}, {"preset": "batchy"}]))


def test_only_otel_variables_can_be_overridden() -> None:
    with pytest.raises(ValidationError, match="TRACETAX_PROCESSOR") as raised:
        ExperimentSpec.model_validate(
            spec(configurations=[{"preset": "none"}, {"preset": "simple", "env": {"TRACETAX_PROCESSOR": "batch"}}])
        )
    assert ("configurations", 1, "env") in locations(raised.value)


def test_command_service_needs_argv_and_port() -> None:
    with pytest.raises(ValidationError) as raised:
        ExperimentSpec.model_validate(spec(service={"kind": "command", "argv": []}))
    assert ("service", "command", "argv") in set(locations(raised.value))
    with pytest.raises(ValidationError, match=r"set service.port, or write \{port\} in service.argv"):
        ExperimentSpec.model_validate(spec(service={"kind": "command", "argv": ["./svc"]}))


def test_a_port_placeholder_lets_a_command_service_run_side_by_side() -> None:
    fixed = ExperimentSpec.model_validate(spec(service={"kind": "command", "argv": ["./svc"], "port": 8080}))
    assert not fixed.runs_side_by_side()
    picked = ExperimentSpec.model_validate(
        spec(service={"kind": "command", "argv": ["./svc", "--listen=:{port}", "--pprof={pprof_port}"]})
    )
    assert picked.runs_side_by_side()
    service = picked.service
    assert isinstance(service, CommandServiceRef)
    assert service.expanded_argv(9001, 9002) == ["./svc", "--listen=:9001", "--pprof=9002"]
    with pytest.raises(ValidationError, match="give one of them, not both"):
        ExperimentSpec.model_validate(spec(service={"kind": "command", "argv": ["./svc", "{port}"], "port": 8080}))
    pinned_pprof = {"kind": "command", "argv": ["./svc", "{port}"], "pprof_port": 6060}
    assert not ExperimentSpec.model_validate(spec(service=pinned_pprof)).runs_side_by_side()


def test_catalog_rejects_modes_the_service_lacks_or_cannot_run() -> None:
    parsed = ExperimentSpec.model_validate(
        spec(configurations=[{"preset": "none"}, {"preset": "java-agent"}, {"name": "e", "processor": "ebpf"}])
    )
    go = manifest(
        none=ModeSpec(argv=["bin/bare"]),
        ebpf=ModeSpec(argv=["bin/bare"], available=False, why="the kernel refuses BPF"),
    )
    with pytest.raises(SpecError) as raised:
        validate_against_catalog(parsed, go)
    messages = {tuple(e["loc"]): e["msg"] for e in raised.value.errors}
    assert "go has no mode 'agent'" in messages[("configurations", 1, "processor")]
    assert "preset java-agent is only for java" in messages[("configurations", 1, "preset")]
    assert "the kernel refuses BPF" in messages[("configurations", 2, "processor")]


def test_yaml_file_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("service: {kind: demo, language: go}\nconfigurations: [{preset: none}]\nload: {rate: -1}\n")
    with pytest.raises(SpecError, match=r"load\.rate: Input should be greater than 0"):
        load_spec_file(path)
    path.write_text("service: [unclosed\n")
    with pytest.raises(SpecError, match="cannot read the spec"):
        load_spec_file(path)


def test_estimate_covers_every_phase_of_every_run() -> None:
    parsed = ExperimentSpec.model_validate(
        spec(load={"rate": 100, "warmup_s": 2, "duration_s": 10, "max_throughput_s": 5})
    )
    # Per round: the side-by-side phase (startup, its warm-up and 20 s, stop, settle) once, then per
    # configuration startup, warm-up, measured phase, stacks phase (5 s by default), closed loop, stop.
    side = 3 + 2 + 10 + 2 + 2.5  # as long as the warm-up and the measured phase, unless set
    assert parsed.estimated_seconds(startup_s=3) == ((3 + 2 + 10 + 5 + 5 + 2) * 2 + side) * 2
    unsampled = parsed.model_copy(update={"sample_stacks": False})
    assert unsampled.estimated_seconds(startup_s=3) == ((3 + 2 + 10 + 5 + 2) * 2 + side) * 2
    alone = parsed.model_copy(update={"load": parsed.load.model_copy(update={"side_by_side_s": 0})})
    assert alone.estimated_seconds(startup_s=3) == (3 + 2 + 10 + 5 + 5 + 2) * 2 * 2


def test_an_unset_side_by_side_phase_is_as_long_as_the_solo_one_up_to_ten_seconds() -> None:
    # Its figures are paired per round; their spread comes from the round's processes, not
    # from its length, so a long solo phase (for the tails) does not lengthen it.
    short = ExperimentSpec.model_validate(spec(load={"rate": 100, "duration_s": 4}))
    long = ExperimentSpec.model_validate(spec(load={"rate": 100, "duration_s": 60}))
    asked = ExperimentSpec.model_validate(spec(load={"rate": 100, "duration_s": 60, "side_by_side_s": 30}))
    assert short.load.side_by_side_seconds == 4
    assert long.load.side_by_side_seconds == 10
    assert asked.load.side_by_side_seconds == 30


def test_the_default_spec_takes_about_what_it_took_before_the_side_by_side_phase() -> None:
    # Issue 23: no more wall time than the default before the phase (5 rounds of 5 s warm-up,
    # 20 s measured, 5 s stacks, 10 s closed loop: 450 s for two configurations). Now 15 s
    # measured and a 5 s closed loop, the phase 10 s: 462.5 s by the estimate, +3%.
    body = spec(load={"rate": 100})
    del body["rounds"]  # the default
    default = ExperimentSpec.model_validate(body)
    before = ((3 + 5 + 20 + 5 + 10 + 2) * 2) * 5
    assert default.estimated_seconds(startup_s=3) == ((3 + 5 + 15 + 5 + 5 + 2) * 2 + (3 + 5 + 10 + 2 + 2.5)) * 5
    assert default.estimated_seconds(startup_s=3) <= before * 1.03


def test_an_injected_cost_survives_a_preset_and_is_only_for_demo_services() -> None:
    parsed = ExperimentSpec.model_validate(
        {
            "service": {"kind": "command", "argv": ["./svc"], "port": 8080},
            "configurations": [
                {"preset": "none"},
                {"preset": "none", "name": "busy", "baseline": False, "inject_busy_us": 1000},
            ],
            "load": {"rate": 10},
        }
    )
    assert parsed.configuration("busy").inject_busy_us == 1000
    with pytest.raises(SpecError) as caught:
        validate_against_catalog(parsed, None)
    assert caught.value.errors[0]["loc"] == ("configurations", 1, "inject_busy_us")


def test_signal_switches_name_the_variable_and_say_what_is_exported() -> None:
    parsed = ExperimentSpec.model_validate(
        spec(
            configurations=[
                {"preset": "none"},
                {"preset": "logs-only"},
                {"name": "odd", "processor": "batch", "env": {"OTEL_TRACES_EXPORTER": "console"}},
                {"name": "off", "processor": "batch", "env": {"OTEL_SDK_DISABLED": "TRUE"}},
            ]
        )
    )
    logs_only, console, off = parsed.configurations[1:]
    assert console.exports("traces")  # not "none": a user's service exporting to the console
    assert [logs_only.exports(s) for s in ("traces", "logs", "metrics")] == [False, True, False]
    assert not any(off.exports(s) for s in ("traces", "logs", "metrics"))
    assert not parsed.configurations[0].exports("traces")
    validate_against_catalog(parsed, None)  # a user's own service may know other exporters
    with pytest.raises(SpecError) as raised:
        validate_against_catalog(parsed, manifest(none=ModeSpec(argv=["bin/bare"]), batch=ModeSpec(argv=["bin/x"])))
    messages = {tuple(e["loc"]): e["msg"] for e in raised.value.errors}
    assert list(messages) == [("configurations", 2, "env", "OTEL_TRACES_EXPORTER")]
    assert "otlp, none" in messages[("configurations", 2, "env", "OTEL_TRACES_EXPORTER")]


def test_a_background_cost_survives_a_preset_and_its_bounds_name_the_field() -> None:
    configurations = [
        {"preset": "none"},
        {"preset": "none", "name": "bg", "baseline": False, "inject_background_us": 20_000},
    ]
    parsed = ExperimentSpec.model_validate(spec(configurations=configurations))
    assert parsed.configuration("bg").inject_background_us == 20_000
    assert parsed.configuration("bg").inject_background_period_ms == 2000  # the default
    configurations[1] |= {"inject_background_us": 1_000_001, "inject_background_period_ms": 0}
    with pytest.raises(ValidationError) as caught:
        ExperimentSpec.model_validate(spec(configurations=configurations))
    fields = {error["loc"][-1] for error in caught.value.errors()}
    assert fields == {"inject_background_us", "inject_background_period_ms"}
