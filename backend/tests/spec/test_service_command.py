"""A user's own service in a spec: launches per language, the load's requests, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from tracetax.demos import zero_code
from tracetax.spec.base import SpecError
from tracetax.spec.catalog import validate_against_catalog
from tracetax.spec.service import ExperimentSpec, LoadSpec


def command_spec(language: str = "python", *processors: str, **load: object) -> dict[str, object]:
    configurations = [{"name": p, "processor": p, "baseline": i == 0} for i, p in enumerate(processors or ("none",))]
    return {
        "service": {"kind": "command", "argv": ["./svc"], "port": 18080, "language": language},
        "configurations": configurations,
        "load": {"rate": 50, **load},
    }


def refused(spec: dict[str, object]) -> list[tuple[tuple[object, ...], str]]:
    with pytest.raises(SpecError) as raised:
        validate_against_catalog(ExperimentSpec.model_validate(spec), None)
    return [(tuple(e["loc"]), e["msg"]) for e in raised.value.errors]


def test_simple_is_refused_for_a_service_of_your_own() -> None:
    [(location, message)] = refused(command_spec("python", "none", "simple"))
    assert location == ("configurations", 1, "processor")
    assert "no standard variable" in message


@pytest.mark.parametrize(
    ("language", "processor", "words"),
    [("other", "agent", "service.language"), ("go", "agent", "ebpf"), ("java", "ebpf", "Go")],
)
def test_a_launch_the_language_has_not_is_named(language: str, processor: str, words: str) -> None:
    [(location, message)] = refused(command_spec(language, "none", processor))
    assert location == ("configurations", 1, "processor") and words in message


def test_a_missing_zero_code_set_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    versions = tmp_path / "versions.json"
    versions.write_text('{"java": {"jar": "java/agent.jar"}}')
    monkeypatch.setattr(zero_code, "VERSIONS_FILE", versions)
    monkeypatch.setattr(zero_code, "zero_code_root", lambda: tmp_path / "nothing")
    [(_, message)] = refused(command_spec("java", "none", "agent"))
    assert "make zero-code" in message


def test_presets_for_another_language_are_refused() -> None:
    spec = command_spec("node")
    spec["configurations"] = [{"preset": "none"}, {"preset": "ebpf"}]
    messages = [message for _, message in refused(spec)]
    assert any("preset ebpf is only for go" in message for message in messages)


def test_the_home_directory_is_expanded_in_cwd_and_the_program_only() -> None:
    spec = command_spec()
    spec["service"] = {"kind": "command", "argv": ["~/venv/bin/app", "~x"], "cwd": "~/app", "port": 1}
    service = ExperimentSpec.model_validate(spec).service
    assert service.kind == "command"
    assert service.expanded_argv() == [str(Path.home() / "venv/bin/app"), "~x"]
    assert service.expanded_cwd() == Path.home() / "app"


def test_a_weighted_mix_of_paths_with_method_headers_and_body() -> None:
    load = LoadSpec.model_validate(
        {
            "rate": 10,
            "method": "post",
            "paths": [{"path": "/a?x=1", "weight": 3}, {"path": "/b"}],
            "headers": {"content-type": "application/json"},
            "body": "{}",
        }
    )
    assert load.method == "POST"
    assert load.targets() == [("/a?x=1", 3), ("/b", 1)]
    assert load.spans_per_request() is None


@pytest.mark.parametrize(
    ("load", "words"),
    [
        ({"path": "/x", "paths": [{"path": "/y"}]}, "either `path`"),
        ({"body": "x"}, "carries no body"),
        ({"method": "FETCH"}, "unknown HTTP method"),
        ({"headers": {"bad name": "x"}}, "not a valid header name"),
        ({"headers": {"x": "a\r\nb: c"}}, "line break"),
        ({"paths": [{"path": "/y", "weight": 0}]}, "greater than or equal to 1"),
    ],
)
def test_bad_load_is_refused_by_name(load: dict[str, object], words: str) -> None:
    with pytest.raises(ValidationError) as raised:
        LoadSpec.model_validate({"rate": 10, **load})
    assert words in str(raised.value)


def test_declared_spans_per_request_is_the_specs_figure() -> None:
    spec = command_spec()
    spec["service"] = {"kind": "command", "argv": ["./svc"], "port": 1, "spans_per_request": 2.5}
    assert ExperimentSpec.model_validate(spec).spans_per_request() == 2.5


def test_a_spec_with_paths_survives_being_stored_and_read_again() -> None:
    parsed = ExperimentSpec.model_validate(command_spec("python", "none", paths=[{"path": "/get"}]))
    again = ExperimentSpec.model_validate(parsed.model_dump(mode="json"))
    assert again.load.targets() == [("/get", 1)]
