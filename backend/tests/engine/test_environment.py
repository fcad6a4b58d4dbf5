"""What the engine records of the run's environment when it starts: the machine's fingerprint
beside the existing keys, and what the subject says each configuration ran. A fake subject:
no stack, no service."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tests.engine.test_stack_health import SPEC, CompletingSubject, sessions  # noqa: F401 - the fixture
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.engine.experiment import ExperimentEngine
from tracetax.engine.round import RoundSubject
from tracetax.spec.base import SubjectSpec
from tracetax.subjects.union import parse_spec
from tracetax.system.machine import fingerprint_of

VERSIONS = {"none": {"sdk": None, "agent": None}, "batch-default": {"sdk": "go SDK 1.47.0", "agent": None}}


class VersionedSubject(CompletingSubject):
    def environment(self) -> dict[str, Any]:
        return {"service_sdk": "go SDK 1.47.0", "configurations": VERSIONS}


def test_the_environment_names_the_machine_and_each_configurations_versions(
    sessions: sessionmaker[Session],  # noqa: F811 - the fixture imported above
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def subject_for(spec: SubjectSpec) -> RoundSubject:
        return VersionedSubject([])

    engine = ExperimentEngine(
        sessions,
        tmp_path / "work",
        publish=lambda _: None,
        settings=Settings(),
        open_subject=subject_for,
        parse_spec=parse_spec,
    )
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "probed").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None and experiment.environment is not None
        environment = experiment.environment
    machine = environment["machine"]
    assert machine["fingerprint"] == fingerprint_of(machine)
    assert machine["cores"] >= 1
    assert environment["configurations"] == VERSIONS
    # The keys recorded before stay as they were.
    assert {"placement", "tracetax", "host", "kernel", "python", "service_sdk"} <= set(environment)
