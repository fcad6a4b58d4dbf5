"""Storage rules on a real SQLite database migrated with Alembic."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    url = f"sqlite:///{tmp_path / 'tracetax.db'}"
    migrate(url)
    migrate(url)  # idempotent
    return session_factory(make_engine(url))


SPEC = {"configurations": [{"name": "none", "baseline": True}, {"name": "simple"}]}


def test_completed_round_cannot_be_rewritten(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        experiment = repo.create_experiment(session, SPEC, "go", "t")
        (round_,) = repo.create_rounds(session, experiment, [(0, 0, "none")])
        repo.update_round(session, round_, status="running")
        repo.update_round(session, round_, status="completed", max_throughput_rps=123.0)
        with pytest.raises(repo.ImmutableResultError, match="its results are final"):
            repo.update_round(session, round_, max_throughput_rps=999.0)
        repo.save_results(session, experiment, {"none": {"x": 1}})
        with pytest.raises(repo.ImmutableResultError, match="already has results"):
            repo.save_results(session, experiment, {"none": {"x": 2}})
    with sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None
        assert stored.rounds[0].max_throughput_rps == 123.0
        assert stored.results[0].aggregates == {"x": 1}


def test_running_experiment_is_marked_interrupted_after_a_restart(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        running = repo.create_experiment(session, SPEC, "go", "cut off")
        waiting = repo.create_experiment(session, SPEC, "go", "waiting")
        repo.set_status(session, running, "running")
        done, cut = repo.create_rounds(session, running, [(0, 0, "none"), (0, 1, "simple")])
        repo.update_round(session, done, status="completed")
        repo.update_round(session, cut, status="running")
    # A new process starts:
    with sessions() as session:
        assert repo.mark_interrupted(session) == [running.id]
        assert repo.queued_ids(session) == [waiting.id]
        stored = repo.get_experiment(session, running.id)
        assert stored is not None
        assert stored.status == "interrupted"
        assert [r.status for r in stored.rounds] == ["completed", "interrupted"]
        assert stored.error


def test_finished_experiment_status_is_final(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        experiment = repo.create_experiment(session, SPEC, "go", None)
        repo.set_status(session, experiment, "running")
        repo.set_status(session, experiment, "completed")
        with pytest.raises(repo.ImmutableResultError):
            repo.set_status(session, experiment, "failed")


def test_timestamps_read_back_in_utc(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "t").id
    with sessions() as session:  # a fresh session reads from SQLite, which stores no time zone
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        assert experiment.created_at.utcoffset() == timedelta(0)
