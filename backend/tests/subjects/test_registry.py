"""The registry is the one place that tells subjects apart: a spec finds its subject by name."""

from __future__ import annotations

import pytest

from tracetax.subjects.registry import SUBJECTS, subject_for, subject_named
from tracetax.subjects.union import parse_spec

SERVICE_SPEC = {
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
    "rounds": 1,
}
PIPELINE_SPEC = {
    "subject": "collector",
    "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
    "load": {"spans_per_s": 1000, "duration_s": 2},
    "rounds": 1,
}


def test_every_spec_finds_the_subject_of_its_name() -> None:
    service, collector = parse_spec(SERVICE_SPEC), parse_spec(PIPELINE_SPEC)
    assert subject_for(service).name == "service" and subject_for(service).rules.label(service) == "go"
    assert subject_for(collector).name == "collector" and subject_for(collector).rules.label(collector) == "collector"
    assert set(SUBJECTS) == {"service", "collector"}


def test_the_subjects_split_the_budget_fields() -> None:
    service, collector = subject_named("service"), subject_named("collector")
    assert not service.budget_fields & collector.budget_fields
    assert "p99_overhead_pct" in service.budget_fields and "max_lost_spans" in collector.budget_fields


def test_an_unknown_subject_is_not_guessed() -> None:
    with pytest.raises(KeyError):
        subject_named("database")
