"""The app's wiring: database, experiment engine, queue and progress broker, built once from
settings, and the span ledger collection the engine calls after each run. The API's lifespan,
the CLI's `tracetax run` and the benchmarks all use it.

It lives above the engine because it joins the engine to the subjects it runs and their
diagnostics: the engine package itself imports neither."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from tracetax.clients.base import BackendError
from tracetax.clients.health import stack_down
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.readback import RunReadback
from tracetax.clients.store_counters import StoreCounterReader
from tracetax.core.config import Settings, resolved_database_url, resolved_work_dir
from tracetax.db import repository as repo
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.diagnostics.ledger import collector_drained_since
from tracetax.diagnostics.volume import STORE_COUNTERS
from tracetax.engine.experiment import ExperimentEngine, StoreCounters, Sufficiency
from tracetax.engine.progress import ProgressBroker, ProgressCallback
from tracetax.engine.queue import ExperimentQueue
from tracetax.engine.settle import Settle, fixed_settle, until_drained
from tracetax.native_stack.watch import read_supervision
from tracetax.subjects.base import SubjectContext
from tracetax.subjects.registry import subject_for
from tracetax.subjects.union import parse_spec
from tracetax.system.paths import state_dir

# The native stack's components as the engine's probe names them (clients/health.py
# `stack_down`). The backend is left out: a round does not outlive it.
PROBE_NAMES = {"tempo": "tempo", "loki": "loki", "mimir": "metrics", "collector": "collector"}


def stack_exits_since(since: float) -> dict[str, str]:
    """The components the native stack's watcher saw exit at or after `since` (wall clock),
    by the probe's names; empty when no watcher ever ran in this state directory."""
    supervision = read_supervision(state_dir())
    if supervision is None:
        return {}
    exits: dict[str, str] = {}
    for name, how in supervision.exits_since(since).items():
        if name in PROBE_NAMES:
            exits.setdefault(PROBE_NAMES[name], f"{name} {how}")
    return exits


@dataclass
class EngineRuntime:
    database: Engine
    sessions: sessionmaker[Session]
    broker: ProgressBroker
    engine: ExperimentEngine
    queue: ExperimentQueue
    settings: Settings
    # What the subjects are given: the settings, the demo catalog, the load generator.
    subjects: SubjectContext

    async def collect_ledger(self, experiment_id: str) -> None:
        """Read every completed round's span ledger from the backends (again)."""
        readback = RunReadback.from_settings(self.settings)
        try:
            with self.sessions() as session:
                experiment = repo.get_experiment(session, experiment_id)
                if experiment is None:
                    return
                spec = parse_spec(experiment.spec)
                await subject_for(spec).readback.collect(session, experiment, spec, readback, self.subjects)
        finally:
            await readback.aclose()

    def sufficiency(self, experiment_id: str) -> Sufficiency | None:
        """Whether a running experiment has the precision it asked for (a check's: every
        budget line conclusive); None when it asked for a number of rounds."""
        with self.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            if experiment is None:
                return None
            spec = parse_spec(experiment.spec)
            check = repo.check_of_experiment(session, experiment_id)
            return subject_for(spec).runner.sufficiency(session, experiment, spec, self.subjects, check)

    @classmethod
    def create(cls, settings: Settings, publish: ProgressCallback | None = None) -> EngineRuntime:
        url = resolved_database_url(settings)
        migrate(url)
        database = make_engine(url)
        sessions = session_factory(database)
        broker = ProgressBroker()
        subjects = SubjectContext(settings, settle=settle_for(settings))
        engine = ExperimentEngine(
            sessions,
            work_dir=resolved_work_dir(settings),
            publish=publish or broker.publish_threadsafe,
            settings=settings,
            open_subject=lambda spec: subject_for(spec).runner.rounds(spec, subjects),
            parse_spec=parse_spec,
        )
        runtime = cls(database, sessions, broker, engine, ExperimentQueue(engine, sessions), settings, subjects)
        # After each experiment, in the engine's worker thread: the ledger needs the backends.
        engine.after_run = lambda experiment_id: asyncio.run(runtime.collect_ledger(experiment_id))
        # Before and after each round, in the same thread: a round during which a component
        # was down is flagged, and its ledger stages read from that component are unknown.
        engine.stack_probe = lambda: asyncio.run(stack_down(settings))
        # A component that exited mid-round but is back by its end flags the round all the same.
        engine.stack_exits = stack_exits_since
        # At each round's start and end: what the stores received in it (the cost's "stored").
        engine.store_counters = store_counters_for(settings)
        # The next experiment waits while a component is down (TRACETAX_STACK_WAIT).
        runtime.queue.stack_probe = engine.stack_probe if settings.stack_wait else None
        # After each planned look of an experiment asking for a precision: has it enough?
        engine.enough = runtime.sufficiency
        return runtime

    def dispose(self) -> None:
        self.database.dispose()


def store_counters_for(settings: Settings) -> StoreCounters:
    """Reads the counters the cost's "stored" volume needs from each store's own /metrics."""
    reader = StoreCounterReader.from_settings(settings, STORE_COUNTERS)

    def read() -> dict[str, Any]:
        snapshots = asyncio.run(reader.snapshot())
        return {store: snapshot.model_dump(mode="json") for store, snapshot in snapshots.items()}

    return read


def settle_for(settings: Settings) -> Settle:
    """The wait after a phase's services stop: until the metrics store's first sample of the
    Collector's counters after the stop shows everything passed on, where the settings say
    where to read it; else the fixed wait (engine/settle.py)."""
    url = settings.collector_telemetry_query_url
    if url is None:
        return fixed_settle
    timeout_s = settings.health_probe_timeout_s

    async def drained_since(stopped_at: float) -> bool:
        async with PrometheusClient(str(url), timeout_s=timeout_s) as scraper:
            return await collector_drained_since(scraper, stopped_at)

    return until_drained(lambda stopped_at: asyncio.run(drained_since(stopped_at)), (BackendError,))
