"""`tracetax run` admits a spec as the API does (app/submission.admit_experiment): what the API
refuses, it refuses too, naming the field, before it stores or starts anything."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracetax.app import runtime
from tracetax.cli import run
from tracetax.core.config import get_settings

SPEC: dict[str, Any] = {
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
    "rounds": 2,
}


@pytest.fixture(autouse=True)
def nothing_starts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A refused spec never reaches the engine: creating one fails the test. The settings are
    read afresh from each test's environment (`get_settings` keeps what it read)."""
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))
    get_settings.cache_clear()

    def refused(*_: object, **__: object) -> None:
        raise AssertionError("tracetax run started the engine for a spec it should refuse")

    monkeypatch.setattr(runtime.EngineRuntime, "create", refused)
    yield
    get_settings.cache_clear()


def run_spec(tmp_path: Path, spec: dict[str, Any]) -> int:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return run.run(path)


def test_a_precision_without_its_half_width_is_refused_as_the_api_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = {**SPEC, "precision": {"metrics": ["p99"], "max_wall_time_s": 600}}

    assert run_spec(tmp_path, spec) == 2

    out = capsys.readouterr().out
    assert "precision.half_width_pct" in out and "only a check may leave it out" in out


def test_a_spec_over_the_operators_estimate_bound_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACETAX_MAX_SPEC_ESTIMATE_S", "10")

    assert run_spec(tmp_path, SPEC) == 2

    assert "rounds: the spec would take about" in capsys.readouterr().out
