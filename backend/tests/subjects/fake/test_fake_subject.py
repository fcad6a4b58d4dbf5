"""A subject the product does not know, registered by the test alone (one folder, one
`registered` line), runs end to end: its spec parses and is refused by field, the engine runs
its rounds and stores its aggregates, and the API queues it and answers its results, rounds
and diagnostics. Nothing in the product names it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy.orm import Session, sessionmaker

from tests.subjects.fake.subject import FAKE, MAX_COST_US, FakeSpec
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.engine.experiment import ExperimentEngine
from tracetax.subjects.base import Subject, SubjectContext
from tracetax.subjects.registry import registered, subject_for
from tracetax.subjects.union import parse_spec

SPEC: dict[str, Any] = {
    "subject": "fake",
    "name": "proof",
    "configurations": [{"name": "base", "baseline": True, "cost_us": 10}, {"name": "more", "cost_us": 25.5}],
    "rounds": 3,
}


@pytest.fixture
def fake() -> Iterator[Subject[Any, Any]]:
    # The one registry line: the product's registry.py is not edited.
    with registered(FAKE) as subject:
        yield subject


def test_its_spec_parses_through_the_registry(fake: Subject[Any, Any]) -> None:
    spec = parse_spec(SPEC)
    assert isinstance(spec, FakeSpec) and subject_for(spec) is fake
    assert spec.planned_looks() == (3,) and spec.budgeted_seconds() == spec.estimated_seconds()


def test_unregistered_it_is_not_a_subject() -> None:
    with pytest.raises(ValidationError, match="subject"):
        parse_spec(SPEC)


def test_the_engine_runs_its_rounds_and_stores_its_aggregates(
    fake: Subject[Any, Any], sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    context = SubjectContext(Settings())
    engine = ExperimentEngine(
        sessions,
        tmp_path / "work",
        publish=lambda _: None,
        settings=Settings(),
        open_subject=lambda spec: subject_for(spec).runner.rounds(spec, context),
        parse_spec=parse_spec,
    )
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "fake", "proof").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        assert len(experiment.rounds) == 6 and {r.status for r in experiment.rounds} == {"completed"}
        assert {r.configuration: r.figures for r in experiment.rounds} == {
            "base": {"cost_us": 10.0},
            "more": {"cost_us": 25.5},
        }
        by_name = {r.configuration: r.aggregates for r in experiment.results}
    assert by_name["more"] == {
        "configuration": "more",
        "subject": "fake",
        "rounds_completed": 3,
        "rounds_failed": 0,
        "cost_us": 25.5,
    }


def test_the_api_queues_it_and_answers_its_results(fake: Subject[Any, Any], client: TestClient) -> None:
    created = client.post("/api/v1/experiments", json=SPEC)
    assert created.status_code == 202, created.text
    experiment_id = created.json()["id"]
    # The offline app queues but never runs: its engine runs the rounds here, in-process.
    runtime: EngineRuntime = client.app.state.engine  # type: ignore[attr-defined]
    assert runtime.engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"

    detail = client.get(f"/api/v1/experiments/{experiment_id}").json()
    assert detail["subject"] == "fake" and detail["service"] == "fake" and detail["status"] == "completed"
    results = client.get(f"/api/v1/experiments/{experiment_id}/results")
    assert results.status_code == 200, results.text
    answer = results.json()
    assert answer["baseline"] == "base"
    assert [c["configuration"] for c in answer["configurations"]] == ["base", "more"]
    assert answer["configurations"][1] == {
        "configuration": "more",
        "subject": "fake",
        "rounds_completed": 3,
        "rounds_failed": 0,
        "cost_us": 25.5,
    }
    assert {r["open_phase"]["cost_us"] for r in answer["rounds"]} == {10.0, 25.5}
    diagnostics = client.get(f"/api/v1/experiments/{experiment_id}/diagnostics")
    assert diagnostics.status_code == 200, diagnostics.text
    assert diagnostics.json() == {
        "subject": "fake",
        "experiment_id": experiment_id,
        "baseline": "base",
        "added_cost_us": {"more": 15.5},
    }


def test_the_api_refuses_its_bad_fields_by_name(fake: Subject[Any, Any], client: TestClient) -> None:
    negative = {**SPEC, "configurations": [{"name": "base", "baseline": True, "cost_us": -1}]}
    answer = client.post("/api/v1/experiments", json=negative)
    assert answer.status_code == 422
    assert [item["loc"] for item in answer.json()["detail"]] == [["body", "configurations", 0, "cost_us"]]
    # Its own bounds and validation, through the same submission as every subject's.
    costly = {**SPEC, "configurations": [{"name": "base", "baseline": True, "cost_us": MAX_COST_US + 1}]}
    answer = client.post("/api/v1/experiments", json=costly)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "configurations", 0, "cost_us"]
    refused = client.post("/api/v1/experiments", json={**SPEC, "name": "refused"})
    assert refused.status_code == 422 and refused.json()["detail"][0]["msg"] == "the fake refuses this name"
