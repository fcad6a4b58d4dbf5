"""Retention on a real database and work directory: one pass deletes what ended more than the
age ago, then the oldest until what is kept fits the byte cap; queued and running experiments,
and a running tuning's experiments, stay whatever their age or size; files really go."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session, sessionmaker

from tracetax.app import retention
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.db.session import make_engine, migrate, session_factory

SPEC = {"configurations": [{"name": "none", "baseline": True}]}
NOW = datetime.now(UTC)


@pytest.fixture
def sessions(empty_database_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(empty_database_url)
    engine = make_engine(empty_database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def store(sessions: sessionmaker[Session], tmp_path: Path) -> retention.Store:
    return retention.Store(sessions, tmp_path / "work")


def experiment(store: retention.Store, status: str, days_ago: float, file_bytes: int = 1000) -> str:
    """An experiment that ended (or was created, when it has not) `days_ago` before NOW, with
    a work directory holding `file_bytes` of files."""
    with store.sessions() as session:
        created = repo.create_experiment(session, SPEC, "go", None)
        if status != "queued":
            repo.set_status(session, created, "running")
        if status not in ("queued", "running"):
            repo.set_status(session, created, status)
        when = NOW - timedelta(days=days_ago)
        session.execute(update(Experiment).where(Experiment.id == created.id).values(created_at=when, finished_at=when))
        session.commit()
    directory = store.work_dir / created.id / "r0-none"
    directory.mkdir(parents=True)
    (directory / "open.sqlite").write_bytes(b"\0" * (file_bytes // 2))
    (directory / "service.log").write_bytes(b"x" * (file_bytes - file_bytes // 2))
    return created.id


def exists(store: retention.Store, experiment_id: str) -> bool:
    with store.sessions() as session:
        stored = repo.experiment_status(session, experiment_id) is not None
    return stored and (store.work_dir / experiment_id).exists()


def test_a_pass_deletes_what_is_older_than_the_age_but_never_a_queued_or_running_one(store: retention.Store) -> None:
    old_completed = experiment(store, "completed", days_ago=40)
    old_failed = experiment(store, "failed", days_ago=31)
    recent = experiment(store, "completed", days_ago=2)
    old_queued = experiment(store, "queued", days_ago=50)
    old_running = experiment(store, "running", days_ago=50)

    outcome = retention.enforce_retention(store, max_age_days=30, max_bytes=None, now=NOW)

    assert sorted(outcome.deleted_experiments) == sorted([old_completed, old_failed])
    for gone in (old_completed, old_failed):
        assert not (store.work_dir / gone).exists()
        with store.sessions() as session:
            assert repo.experiment_status(session, gone) is None
    for kept in (recent, old_queued, old_running):
        assert exists(store, kept)
    assert outcome.freed_bytes >= 2000


def test_a_pass_deletes_the_oldest_until_what_is_kept_fits_the_cap(store: retention.Store) -> None:
    oldest = experiment(store, "completed", days_ago=5, file_bytes=100_000)
    older = experiment(store, "cancelled", days_ago=4, file_bytes=100_000)
    newer = experiment(store, "completed", days_ago=3, file_bytes=100_000)
    running = experiment(store, "running", days_ago=9, file_bytes=100_000)

    # Four of about 100 kB (files plus rows): a 250 kB cap keeps two, the running one and the newest.
    outcome = retention.enforce_retention(store, max_age_days=None, max_bytes=250_000, now=NOW)

    assert outcome.deleted_experiments == [oldest, older]
    assert not (store.work_dir / oldest).exists() and not (store.work_dir / older).exists()
    assert exists(store, newer) and exists(store, running)
    assert 200_000 <= outcome.kept_bytes <= 250_000


def test_a_cap_no_finished_experiment_can_meet_deletes_them_all_and_keeps_the_running_one(
    store: retention.Store,
) -> None:
    finished = experiment(store, "completed", days_ago=1, file_bytes=10_000)
    running = experiment(store, "running", days_ago=1, file_bytes=10_000)
    outcome = retention.enforce_retention(store, max_age_days=None, max_bytes=1, now=NOW)
    assert outcome.deleted_experiments == [finished]
    assert exists(store, running)


def test_a_tuning_goes_as_a_whole_and_never_while_it_runs(store: retention.Store) -> None:
    first, second = experiment(store, "completed", 40), experiment(store, "completed", 40)
    running_tunings_experiment = experiment(store, "completed", 40)
    with store.sessions() as session:
        finished = repo.create_tuning(session, {}, "done")
        repo.update_tuning(session, finished, status="completed", experiment_ids=[first, second])
        session.execute(
            update(type(finished)).where(type(finished).id == finished.id).values(finished_at=NOW - timedelta(days=40))
        )
        session.commit()
        running = repo.create_tuning(session, {}, "running")
        repo.update_tuning(session, running, status="running", experiment_ids=[running_tunings_experiment])

    outcome = retention.enforce_retention(store, max_age_days=30, max_bytes=None, now=NOW)

    assert outcome.deleted_tunings == [finished.id]
    assert sorted(outcome.deleted_experiments) == sorted([first, second])
    assert exists(store, running_tunings_experiment)
    with store.sessions() as session:
        assert repo.get_tuning(session, finished.id) is None
        assert repo.get_tuning(session, running.id) is not None


def test_nothing_is_deleted_without_limits_or_within_them(store: retention.Store) -> None:
    kept = experiment(store, "completed", days_ago=400)
    assert retention.enforce_retention(store, None, None, now=NOW).deleted_experiments == []
    assert retention.enforce_retention(store, 500, 10**9, now=NOW).deleted_experiments == []
    assert exists(store, kept)


def test_the_background_task_runs_a_pass_and_survives_a_failing_one(
    store: retention.Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = experiment(store, "completed", days_ago=100)
    calls: list[int] = []
    real_pass = retention.enforce_retention

    def flaky(*args: object, **kwargs: object) -> retention.RetentionPass:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("database restarting")
        return real_pass(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(retention, "enforce_retention", flaky)
    settings = Settings(retention_max_age_days=30, retention_max_bytes=None, retention_interval_s=0.05)

    async def run() -> None:
        task = retention.RetentionTask(store, settings)
        task.start()
        for _ in range(200):
            if len(calls) >= 2 and not (store.work_dir / old).exists():
                break
            await asyncio.sleep(0.02)
        await task.stop()

    asyncio.run(run())
    assert len(calls) >= 2
    assert not (store.work_dir / old).exists()
