"""The experiment queue without measuring: FIFO positions and order, cancel while waiting, an
engine error, and what a restart does to a running and to queued experiments."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.engine import queue as queue_module
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


class FlakyDatabase:
    """A sessionmaker whose sessions fail while `down` is set: a database restarting, a full disk."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions
        self.down = False
        self.refused = 0

    def __call__(self) -> Session:
        if self.down:
            self.refused += 1
            raise OperationalError("UPDATE experiments ...", {}, Exception("database is restarting"))
        return self.sessions()


class FailingOnceEngine(FakeEngine):
    """Raises for the experiments named in `fail_ids` and takes the database down meanwhile."""

    def __init__(self, sessions: sessionmaker[Session], database: FlakyDatabase, fail_ids: set[str]) -> None:
        super().__init__(sessions)
        self.database = database
        self.fail_ids = fail_ids

    def execute(self, experiment_id: str, cancel: threading.Event, shutdown: threading.Event) -> str:
        if experiment_id in self.fail_ids:
            self.executed.append(experiment_id)
            self.database.down = True
            raise RuntimeError("the database went away mid-run")
        return super().execute(experiment_id, cancel, shutdown)


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queue_module, "FAILURE_WRITE_FIRST_DELAY_S", 0.01)
    monkeypatch.setattr(queue_module, "SERVE_RETRY_DELAY_S", 0.01)


@pytest.mark.usefixtures("quick_retries")
async def test_the_worker_survives_a_failed_run_whose_failure_cannot_be_recorded(
    sessions: sessionmaker[Session],
) -> None:
    database = FlakyDatabase(sessions)
    engine = FailingOnceEngine(sessions, database, set())
    queue = ExperimentQueue(engine, database)  # type: ignore[arg-type]
    await queue.start()
    first, second = create(sessions, "first"), create(sessions, "second")
    engine.fail_ids.add(first)
    queue.submit(first)
    # The failure write is tried again with backoff, every time refused.
    await wait_until(lambda: database.refused == queue_module.FAILURE_WRITE_ATTEMPTS)
    await wait_until(lambda: queue.running is None)
    # Its listeners still learn it ended, though the database could not record it.
    assert [(e.experiment_id, e.phase, e.status) for e in engine.events] == [(first, "finished", "failed")]
    database.down = False
    queue.submit(second)
    await wait_until(lambda: status_of(sessions, second) == "completed")
    assert engine.executed == [first, second]
    assert queue.worker_alive is True
    await queue.stop()


@pytest.mark.usefixtures("quick_retries")
async def test_a_failure_write_refused_once_is_recorded_on_the_next_try(sessions: sessionmaker[Session]) -> None:
    database = FlakyDatabase(sessions)
    engine = FailingOnceEngine(sessions, database, set())
    original = engine.execute

    def fail_then_recover(experiment_id: str, cancel: threading.Event, shutdown: threading.Event) -> str:
        try:
            return original(experiment_id, cancel, shutdown)
        finally:
            # The database comes back while the worker waits to try again.
            asyncio.run_coroutine_threadsafe(bring_back(), loop)

    async def bring_back() -> None:
        await wait_until(lambda: database.refused >= 1)
        database.down = False

    loop = asyncio.get_running_loop()
    engine.execute = fail_then_recover  # type: ignore[method-assign]
    queue = ExperimentQueue(engine, database)  # type: ignore[arg-type]
    await queue.start()
    experiment_id = create(sessions, "x")
    engine.fail_ids.add(experiment_id)
    queue.submit(experiment_id)
    await wait_until(lambda: status_of(sessions, experiment_id) == "failed")
    assert database.refused >= 1
    await queue.stop()


@pytest.mark.usefixtures("quick_retries")
async def test_an_error_in_the_serve_loop_itself_does_not_end_the_worker(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = FakeEngine(sessions)
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]
    original = queue._next
    calls = {"n": 0}

    def broken_once(expected: str) -> str | None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("a bug in the queue itself")
        return original(expected)

    monkeypatch.setattr(queue, "_next", broken_once)
    await queue.start()
    experiment_id = create(sessions, "x")
    queue.submit(experiment_id)
    await wait_until(lambda: status_of(sessions, experiment_id) == "completed")
    assert calls["n"] >= 2 and queue.worker_alive is True
    await queue.stop()


async def test_worker_alive_is_false_once_the_worker_is_gone(sessions: sessionmaker[Session]) -> None:
    queue = ExperimentQueue(FakeEngine(sessions), sessions)  # type: ignore[arg-type]
    await queue.start(worker=False)
    assert queue.worker_alive is None  # no worker to depend on
    await queue.stop()
    queue = ExperimentQueue(FakeEngine(sessions), sessions)  # type: ignore[arg-type]
    await queue.start()
    assert queue.worker_alive is True
    await queue.stop()
    assert queue.worker_alive is False


class FlakyStack:
    """The stack as the queue's probe sees it: down with a reason until `heal()`."""

    def __init__(self) -> None:
        self.down: dict[str, str] = {"collector": "ConnectError: connection refused"}
        self.probes = 0

    def probe(self) -> dict[str, str]:
        self.probes += 1
        return dict(self.down)

    def heal(self) -> None:
        self.down = {}


async def test_the_next_experiment_waits_for_the_stack_saying_why(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_module, "STACK_RECHECK_S", 0.05)
    engine, stack = FakeEngine(sessions), FlakyStack()
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]
    queue.stack_probe = stack.probe
    await queue.start()
    first, second = create(sessions, "first"), create(sessions, "second")
    queue.submit(first)
    queue.submit(second)
    await wait_until(lambda: stack.probes >= 3)
    assert engine.executed == []  # held: nothing started on a broken stack
    assert [queue.position(x) for x in (first, second)] == [1, 2]
    message = queue.waiting_for(first)
    assert message is not None and message.startswith(
        "waiting for the Collector (not ready: ConnectError: connection refused); it starts"
    )
    assert queue.waiting_for(second) is None  # only the next one is held; the others wait their turn
    held = [e for e in engine.events if e.experiment_id == first]
    assert len(held) == 1, "said once while the reason stays the same"
    assert (held[0].phase, held[0].status, held[0].message) == ("queued", "queued", message)
    assert held[0].rounds == 2

    stack.heal()
    await wait_until(lambda: engine.executed == [first, second] and queue.running is None)
    assert queue.waiting_for(first) is None
    assert engine.events[-1].message == "the stack is ready again: starting"
    assert [status_of(sessions, x) for x in (first, second)] == ["completed"] * 2
    await queue.stop()


async def test_an_experiment_held_for_the_stack_can_be_cancelled(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_module, "STACK_RECHECK_S", 60)  # the cancel itself wakes the worker
    engine, stack = FakeEngine(sessions), FlakyStack()
    stack.down = {"tempo": "HTTP 503", "metrics": "ConnectError"}
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]
    queue.stack_probe = stack.probe
    await queue.start()
    first, second = create(sessions, "first"), create(sessions, "second")
    queue.submit(first)
    queue.submit(second)
    await wait_until(lambda: queue.waiting_for(first) is not None)
    expected = "waiting for the metrics store and Tempo (not ready: the metrics store: ConnectError; Tempo: HTTP 503)"
    assert (queue.waiting_for(first) or "").startswith(expected)
    assert await asyncio.to_thread(queue.cancel, first) is True
    assert status_of(sessions, first) == "cancelled"
    await wait_until(lambda: queue.waiting_for(second) is not None)  # now the next one waits
    assert queue.waiting_for(first) is None and queue.position(second) == 1
    assert engine.executed == []
    await queue.stop()  # the shutdown ends the hold too
    assert status_of(sessions, second) == "queued"  # for the next start


async def test_a_failing_probe_never_holds_the_queue(sessions: sessionmaker[Session]) -> None:
    engine = FakeEngine(sessions)
    queue = ExperimentQueue(engine, sessions)  # type: ignore[arg-type]

    def broken() -> dict[str, str]:
        raise RuntimeError("probe bug")

    queue.stack_probe = broken
    await queue.start()
    experiment_id = create(sessions, "x")
    queue.submit(experiment_id)
    await wait_until(lambda: engine.executed == [experiment_id])
    await queue.stop()
