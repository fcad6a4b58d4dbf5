"""The machine-wide measurement lock: one holder at a time, and a wait that a cancel ends at
once (an experiment cancelled in the queue must not sit until another measurement is over)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.engine.experiment import ExperimentEngine
from tracetax.engine.progress import Progress
from tracetax.subjects.base import SubjectContext
from tracetax.subjects.registry import subject_for
from tracetax.subjects.union import parse_spec
from tracetax.system.lock import POLL_S, LockWaitCancelledError, measurement_lock


def test_a_waiting_holder_gets_the_lock_when_it_is_released(tmp_path: Path) -> None:
    path = tmp_path / "measurement.lock"
    got = threading.Event()
    waits: list[str] = []

    def second() -> None:
        with measurement_lock(on_wait=lambda: waits.append("waiting"), path=path, cancel=threading.Event()):
            got.set()

    with measurement_lock(path=path):
        thread = threading.Thread(target=second)
        thread.start()
        assert not got.wait(3 * POLL_S)  # held: the second one waits
    thread.join(5)
    assert got.is_set() and waits == ["waiting"]


def test_a_cancel_ends_the_wait_at_once(tmp_path: Path) -> None:
    path = tmp_path / "measurement.lock"
    cancel = threading.Event()
    with measurement_lock(path=path):
        threading.Timer(0.1, cancel.set).start()
        started = time.monotonic()
        with pytest.raises(LockWaitCancelledError), measurement_lock(path=path, cancel=cancel):
            pytest.fail("the lock is held: this must not run")
        assert time.monotonic() - started < 0.1 + 3 * POLL_S


def test_an_experiment_cancelled_while_waiting_for_the_machine_is_cancelled_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))
    url = f"sqlite:///{tmp_path / 'tracetax.db'}"
    migrate(url)
    database = make_engine(url)
    sessions: sessionmaker[Session] = session_factory(database)
    with sessions() as session:
        experiment_id = repo.create_experiment(
            session, {"rounds": 2, "configurations": [{"name": "none", "baseline": True}]}, "go", "waits"
        ).id
    events: list[Progress] = []
    subjects = SubjectContext(Settings(), catalog={})
    engine = ExperimentEngine(
        sessions,
        tmp_path / "work",
        events.append,
        settings=Settings(),
        open_subject=lambda spec: subject_for(spec).runner.rounds(spec, subjects),
        parse_spec=parse_spec,
    )
    cancel, shutdown = threading.Event(), threading.Event()
    with measurement_lock():  # another measurement holds the machine
        threading.Timer(0.1, cancel.set).start()
        assert engine.execute(experiment_id, cancel, shutdown) == "cancelled"
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None and experiment.status == "cancelled"
        assert "waiting for another measurement" in (experiment.error or "")
    assert [(e.phase, e.status) for e in events] == [("finished", "cancelled")]
    database.dispose()
