"""Storage rules on real databases migrated with Alembic: SQLite and PostgreSQL (the
`databases` fixture runs each test on both)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.db.models import LedgerReading
from tracetax.db.session import make_engine, migrate, session_factory


@pytest.fixture
def sessions(empty_database_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(empty_database_url)
    migrate(empty_database_url)  # idempotent
    engine = make_engine(empty_database_url)
    yield session_factory(engine)
    engine.dispose()


SPEC = {"configurations": [{"name": "none", "baseline": True}, {"name": "simple"}]}


def test_completed_round_cannot_be_rewritten(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        experiment = repo.create_experiment(session, SPEC, "go", "t")
        (round_,) = repo.create_rounds(session, experiment, [(0, 0, "none")])
        repo.update_round(session, round_, status="running")
        repo.update_round(session, round_, status="completed", figures={"max_throughput_rps": 123.0})
        with pytest.raises(repo.ImmutableResultError, match="its results are final"):
            repo.update_round(session, round_, figures={"max_throughput_rps": 999.0})
        repo.save_results(session, experiment, {"none": {"x": 1}})
        with pytest.raises(repo.ImmutableResultError, match="already has results"):
            repo.save_results(session, experiment, {"none": {"x": 2}})
    with sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None
        assert stored.rounds[0].figures == {"max_throughput_rps": 123.0}
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
    """SQLite stores no time zone; the test PostgreSQL server runs in America/New_York
    (tests/postgres.py), where timestamptz values read back at -05:00 unless converted."""
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "t").id
    with sessions() as session:  # a fresh session: the values come from the database
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        assert experiment.created_at.utcoffset() == timedelta(0)


def test_an_instant_given_in_another_zone_is_kept(sessions: sessionmaker[Session]) -> None:
    """SQLite would keep a non-UTC value's wall-clock digits and drop its offset, hours off."""
    instant = datetime(2026, 1, 15, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    with sessions() as session:
        experiment = repo.create_experiment(session, SPEC, "go", "t")
        experiment.started_at = instant
        session.commit()
    with sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None and stored.started_at is not None
        assert stored.started_at == instant
        assert stored.started_at.tzinfo == UTC


def test_a_nul_character_is_stored_as_a_replacement(sessions: sessionmaker[Session]) -> None:
    """PostgreSQL's text types cannot hold U+0000 (the driver refuses the statement); SQLite
    can. It arrives in names from the API and in services' own output, so it is stored as
    U+FFFD on both, and an id looked up with one in it is simply not found."""
    with sessions() as session:
        experiment = repo.create_experiment(session, SPEC, "go", "a\x00name")
        (round_,) = repo.create_rounds(session, experiment, [(0, 0, "none")])
        repo.update_round(session, round_, status="failed", error="exit\x00", service_log_tail="binary \x00\x00 output")
    with sessions() as session:
        stored = repo.get_experiment(session, experiment.id)
        assert stored is not None
        assert stored.name == "a\ufffdname"
        assert (stored.rounds[0].error, stored.rounds[0].service_log_tail) == (
            "exit\ufffd",
            "binary \ufffd\ufffd output",
        )
        assert repo.get_experiment(session, experiment.id + "\x00") is None
        assert repo.get_check(session, "\x00") is None
        assert repo.list_experiments(session, service="go\x00") == []


def test_ledger_readings_come_in_round_order(sessions: sessionmaker[Session]) -> None:
    """Whatever order the database finds the rows in (written here in reverse)."""
    with sessions() as session:
        experiment = repo.create_experiment(session, SPEC, "go", "t")
        rounds = repo.create_rounds(session, experiment, [(0, 0, "none"), (0, 1, "simple"), (1, 0, "simple")])
        readings = [
            LedgerReading(run_id=r.run_id, experiment_id=experiment.id, ledger={}, sample_trace_ids=[])
            for r in reversed(rounds)
        ]
        repo.replace_ledger_readings(session, experiment.id, readings)
    with sessions() as session:
        stored = repo.ledger_readings(session, experiment.id)
        assert [reading.run_id for reading in stored] == [r.run_id for r in rounds]
