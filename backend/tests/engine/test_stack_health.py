"""The stack probed before and after each round, for both subjects (the engine runs their
rounds alike): a round during which a component was not ready is flagged with which, and the
API's round summaries show it; the stores' counters read at each round's start and end are kept
with it. A fake subject, probe and reader: no stack, no service."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from tracetax.api.schemas.experiments import RoundSummary
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.engine.aggregate import RoundData
from tracetax.engine.experiment import STORE_COUNTERS_RESOURCE, ExperimentEngine, StackDown, record_stack_health
from tracetax.engine.round import RoundOutcome, Slot, TogetherSlot
from tracetax.subjects.service import SERVICE
from tracetax.subjects.union import parse_spec

SPEC: dict[str, Any] = {
    "name": "probed",
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
    "rounds": 1,
}


class CompletingSubject:
    """Every round completes at once; the probe sees what `events` says happened meanwhile."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def environment(self) -> dict[str, Any]:
        return {}

    def run_together(self, slot: TogetherSlot) -> dict[str, Any]:
        return {}

    def run_round(self, slot: Slot) -> RoundOutcome:
        self.log.append(f"round {slot.configuration}")
        return RoundOutcome(status="completed", resources={"isolation": {}})

    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]:
        return {}


@pytest.fixture
def sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[sessionmaker[Session]]:
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))  # the measurement lock
    url = f"sqlite:///{tmp_path / 'tracetax.db'}"
    migrate(url)
    database = make_engine(url)
    yield session_factory(database)
    database.dispose()


EngineFor = Callable[[list[str]], ExperimentEngine]


@pytest.fixture
def engine_for(sessions: sessionmaker[Session], tmp_path: Path) -> EngineFor:
    """An engine whose every round completes at once, logging its rounds to the list given."""

    def make(log: list[str]) -> ExperimentEngine:
        return ExperimentEngine(
            sessions,
            tmp_path / "work",
            publish=lambda _: None,
            settings=Settings(),
            open_subject=lambda spec: CompletingSubject(log),
            parse_spec=parse_spec,
        )

    return make


def test_a_round_with_a_component_down_is_flagged_with_it(
    sessions: sessionmaker[Session], engine_for: EngineFor
) -> None:
    log: list[str] = []
    engine = engine_for(log)
    # Probes in order: before and after the first round, then before and after the second.
    answers: list[StackDown] = [{}, {}, {}, {"tempo": "ConnectError", "collector": "HTTP 503"}]

    def probe() -> StackDown:
        log.append("probe")
        return answers.pop(0)

    engine.stack_probe = probe
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "probed").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"
    assert log[0] == "probe" and log[2] == "probe"  # around each round
    assert log.count("probe") == 4 and len(log) == 6
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        summaries = [RoundSummary.of(r, SERVICE) for r in sorted(experiment.rounds, key=lambda r: r.order_index)]
    first, second = (s.stack_health for s in summaries)
    assert first == {"flagged": False, "down": [], "before": {}, "after": {}}
    assert second is not None and second["flagged"] is True
    assert second["down"] == ["collector", "tempo"]
    assert second["after"] == {"tempo": "ConnectError", "collector": "HTTP 503"}
    assert "collector, tempo not ready" in second["note"]
    assert summaries[1].isolation == {}  # what the round recorded itself stays


def test_a_failing_probe_never_fails_the_round(sessions: sessionmaker[Session], engine_for: EngineFor) -> None:
    engine = engine_for([])

    def broken() -> StackDown:
        raise RuntimeError("probe bug")

    engine.stack_probe = broken
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "probed").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"


def test_record_stack_health_keeps_the_rounds_own_resources() -> None:
    outcome = RoundOutcome(status="failed")  # a failed round has no resources of its own
    record_stack_health(outcome, {"loki": "ConnectError"}, None)
    assert outcome.resources == {
        "stack_health": {
            "flagged": True,
            "down": ["loki"],
            "before": {"loki": "ConnectError"},
            "after": None,
            "note": "loki not ready before or after this round: the ledger stages read from it are unknown",
        }
    }
    untouched = RoundOutcome(status="completed", resources={"cpu_s": 1.0})
    record_stack_health(untouched, None, None)  # no probe: nothing recorded
    assert untouched.resources == {"cpu_s": 1.0}


def test_a_component_that_exited_mid_round_flags_it_though_it_is_back(
    sessions: sessionmaker[Session], engine_for: EngineFor
) -> None:
    engine = engine_for([])
    engine.stack_probe = lambda: {}  # every component ready before and after each round
    asked: list[float] = []

    def exits(since: float) -> StackDown:
        asked.append(since)
        # The watcher saw the Collector exit during the second round and started it again.
        return {"collector": "collector killed by SIGKILL"} if len(asked) == 2 else {}

    engine.stack_exits = exits
    started = time.time()
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "probed").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"
    assert len(asked) == 2 and started <= asked[0] <= asked[1] <= time.time()  # since each round's start
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        summaries = [RoundSummary.of(r, SERVICE) for r in sorted(experiment.rounds, key=lambda r: r.order_index)]
    first, second = (s.stack_health for s in summaries)
    assert first is not None and first["flagged"] is False
    assert second is not None and second["flagged"] is True and second["down"] == ["collector"]
    assert second["after"] == {"collector": "collector killed by SIGKILL during the round (started again since)"}


def test_the_stores_counters_are_read_at_each_rounds_start_and_end(
    sessions: sessionmaker[Session], engine_for: EngineFor
) -> None:
    log: list[str] = []
    engine = engine_for(log)
    engine.stack_probe = lambda: {}

    def read() -> dict[str, Any]:
        log.append("read")
        return {"tempo": {"read_at": len(log)}}

    engine.store_counters = read
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "probed").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"
    # Each round between two readings of its own: the start's last before it, the end's first after.
    assert [entry == "read" for entry in log] == [True, False, True, True, False, True]
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        first, second = sorted(experiment.rounds, key=lambda r: r.order_index)
        # Kept beside what the round recorded itself.
        assert first.resources is not None and first.resources["isolation"] == {}
        assert first.resources[STORE_COUNTERS_RESOURCE] == {
            "start": {"tempo": {"read_at": 1}},
            "end": {"tempo": {"read_at": 3}},
        }
        assert second.resources is not None
        assert second.resources[STORE_COUNTERS_RESOURCE]["end"] == {"tempo": {"read_at": 6}}


def test_a_failing_store_reader_never_fails_the_round(sessions: sessionmaker[Session], engine_for: EngineFor) -> None:
    engine = engine_for([])

    def broken() -> dict[str, Any]:
        raise RuntimeError("reader bug")

    engine.store_counters = broken
    with sessions() as session:
        experiment_id = repo.create_experiment(session, SPEC, "go", "probed").id
    assert engine.execute(experiment_id, threading.Event(), threading.Event()) == "completed"
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        # Nothing kept: the rounds' stored volume is unknown, said so by the ledger.
        assert all(STORE_COUNTERS_RESOURCE not in (r.resources or {}) for r in experiment.rounds)
