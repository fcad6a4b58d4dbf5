"""The experiment queue without measuring: FIFO positions and order, cancel while waiting, an
engine error, and what a restart does to a running and to queued experiments."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.engine.progress import Progress
from tracetax.engine.queue import ExperimentQueue

SPEC: dict[str, Any] = {"rounds": 2, "configurations": [{"name": "none", "baseline": True}]}


class FakeEngine:
    """Stands in for ExperimentEngine: `execute` marks the experiment completed (or raises)."""

    def __init__(self, sessions: sessionmaker[Session], fail: bool = False) -> None:
        self.sessions = sessions
        self.fail = fail
        self.executed: list[str] = []
        self.events: list[Progress] = []
        self.release = threading.Event()
        self.release.set()

    def publish(self, event: Progress) -> None:
        self.events.append(event)

    def execute(self, experiment_id: str, cancel: threading.Event, shutdown: threading.Event) -> str:
        self.executed.append(experiment_id)
        self.release.wait(5)
        if self.fail:
            raise RuntimeError("boom")
        with self.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            assert experiment is not None
            repo.set_status(session, experiment, "running")
            repo.set_status(session, experiment, "cancelled" if cancel.is_set() else "completed")
        return "completed"


@pytest.fixture
def sessions(tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    url = f"sqlite:///{tmp_path / 'tracetax.db'}"
    migrate(url)
    database = make_engine(url)
    yield session_factory(database)
    database.dispose()


def create(sessions: sessionmaker[Session], name: str) -> str:
    with sessions() as session:
        return repo.create_experiment(session, SPEC, "go", name).id


def status_of(sessions: sessionmaker[Session], experiment_id: str) -> str:
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        return experiment.status


async def wait_until(condition: Any, timeout_s: float = 5) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def test_positions_are_fifo_and_cancel_while_waiting(sessions: sessionmaker[Session]) -> None:
    engine = FakeEngine(sessions)
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]
    await queue.start(worker=False)
    a, b, c = (create(sessions, name) for name in "abc")
    assert [queue.submit(x) for x in (a, b, c)] == [1, 2, 3]
    assert queue.cancel(b) is True
    assert status_of(sessions, b) == "cancelled"
    assert [queue.position(x) for x in (a, b, c)] == [1, None, 2]
    assert queue.cancel(b) is False  # no longer waiting
    assert queue.cancel("unknown") is False
    # Listeners of the cancelled experiment get a `finished` event: nothing else would send one.
    assert [(e.experiment_id, e.phase, e.status) for e in engine.events] == [(b, "finished", "cancelled")]
    assert engine.executed == []  # no worker: nothing ran
    await queue.stop()


async def test_worker_runs_one_at_a_time_in_order(sessions: sessionmaker[Session]) -> None:
    engine = FakeEngine(sessions)
    engine.release.clear()
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]
    await queue.start()
    ids = [create(sessions, name) for name in "abc"]
    # Submitted from other threads, as the API's threadpool routes do.
    positions = [await asyncio.to_thread(queue.submit, x) for x in ids]
    await wait_until(lambda: engine.executed == ids[:1])
    assert positions[0] in (0, 1)
    assert [queue.position(x) for x in ids] == [0, 1, 2]
    engine.release.set()
    await wait_until(lambda: engine.executed == ids and queue.running is None)
    assert [status_of(sessions, x) for x in ids] == ["completed"] * 3
    await queue.stop()


async def test_engine_error_fails_the_experiment_and_ends_its_listeners(sessions: sessionmaker[Session]) -> None:
    engine = FakeEngine(sessions, fail=True)
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]
    await queue.start()
    experiment_id = create(sessions, "x")
    queue.submit(experiment_id)
    await wait_until(lambda: bool(engine.events))
    assert status_of(sessions, experiment_id) == "failed"
    (event,) = engine.events
    assert (event.phase, event.status) == ("finished", "failed")
    assert event.message is not None and "boom" in event.message
    await queue.stop()


async def test_restart_interrupts_the_running_one_and_requeues_the_rest(sessions: sessionmaker[Session]) -> None:
    running, first, second = (create(sessions, name) for name in ("running", "first", "second"))
    with sessions() as session:
        experiment = repo.get_experiment(session, running)
        assert experiment is not None
        repo.set_status(session, experiment, "running")
        done, cut = repo.create_rounds(session, experiment, [(0, 0, "none"), (1, 0, "none")])
        repo.update_round(session, done, status="completed")
        repo.update_round(session, cut, status="running")
    # A new process starts (without its worker, so nothing runs):
    queue = ExperimentQueue(FakeEngine(sessions), sessions)  # type: ignore[arg-type]
    await queue.start(worker=False)
    assert status_of(sessions, running) == "interrupted"
    with sessions() as session:
        stored = repo.get_experiment(session, running)
        assert stored is not None
        assert [r.status for r in stored.rounds] == ["completed", "interrupted"]
    assert (queue.position(first), queue.position(second), queue.position(running)) == (1, 2, None)
    await queue.stop()
