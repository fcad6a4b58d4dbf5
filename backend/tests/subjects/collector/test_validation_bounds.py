"""The work one pipeline spec may cause at submission is bounded (issue 40): variants that
merge the same files with the same settings run `otelcol validate` once, and a request's
validations share one time budget. A stand-in counts the runs: no Collector is needed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tracetax.lab import pipelines
from tracetax.spec.base import SpecError
from tracetax.spec.collector import PipelineSpec
from tracetax.subjects.collector import validation
from tracetax.subjects.collector.validation import validate_pipelines

Run = tuple[tuple[Path, ...], dict[str, str]]


def spec_of(variants: list[dict[str, Any]]) -> PipelineSpec:
    configurations = [{**variant, "name": f"v{index}"} for index, variant in enumerate(variants)]
    configurations[0]["baseline"] = True
    return PipelineSpec.model_validate(
        {"subject": "collector", "configurations": configurations, "load": {"spans_per_s": 100, "duration_s": 1}}
    )


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[Run]:
    """Every `otelcol validate` the spec causes, as (files, LAB_* settings); each one is
    accepted, but one of `memory-limited` with a limit of 1 MiB, which is refused."""
    seen: list[Run] = []

    def validate(files: list[Path], env: dict[str, str], *, max_bytes: int, timeout_s: float) -> None:
        seen.append((tuple(files), env))
        assert 0 < timeout_s <= pipelines.VALIDATE_TIMEOUT_S
        if env.get("LAB_MEMORY_LIMIT_MIB") == "1":
            raise pipelines.PipelineConfigError([{"file": str(files[-1]), "line": None, "msg": "too small"}])

    monkeypatch.setattr(pipelines, "validate", validate)
    return seen


def errors_of(spec: PipelineSpec) -> list[dict[str, Any]]:
    with pytest.raises(SpecError) as raised:
        validate_pipelines(spec, pipelines.OverlayPolicy(None))
    return [error for error in raised.value.errors if error["loc"] != ("load",)]  # telemetrygen may be unbuilt


def test_identical_variants_are_validated_once_and_each_is_answered(runs: list[Run]) -> None:
    small = {"pipeline": "memory-limited", "settings": {"LAB_MEMORY_LIMIT_MIB": "1"}}
    variants = [{"pipeline": "batch-tuned"}] * 5 + [small] * 5 + [{"pipeline": "memory-limited"}] * 2
    errors = errors_of(spec_of(variants))
    assert len(runs) == 3, runs  # 12 variants, 3 distinct
    # Each refused variant is named at its own place, though validated once.
    assert [error["loc"] for error in errors] == [("configurations", i, "pipeline") for i in range(5, 10)]
    assert all("too small" in error["msg"] for error in errors)


def test_a_request_past_its_validation_budget_validates_no_more(
    runs: list[Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(validation, "VALIDATION_BUDGET_S", 0.05)
    slow = pipelines.validate

    def validate(files: list[Path], env: dict[str, str], *, max_bytes: int, timeout_s: float) -> None:
        time.sleep(0.03)
        slow(files, env, max_bytes=max_bytes, timeout_s=timeout_s)

    monkeypatch.setattr(pipelines, "validate", validate)
    variants = [{"pipeline": "batch-tuned", "settings": {"LAB_X": str(n)}} for n in range(12)]
    errors = errors_of(spec_of(variants))
    assert len(runs) == 2, runs
    assert [error["loc"] for error in errors] == [("configurations", i, "pipeline") for i in range(2, 12)]
    assert all("not validated" in e["msg"] and "fewer distinct variants" in e["msg"] for e in errors), errors
