"""Everything the engine needs, built once from settings: database, queue, progress broker.
The API's lifespan and the CLI's `tracetax run` both use it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from tracetax.core.config import Settings, resolved_database_url, resolved_work_dir
from tracetax.db.session import make_engine, migrate, session_factory
from tracetax.engine.experiment import ExperimentEngine
from tracetax.engine.progress import ProgressBroker, ProgressCallback
from tracetax.engine.queue import ExperimentQueue


@dataclass
class EngineRuntime:
    database: Engine
    sessions: sessionmaker[Session]
    broker: ProgressBroker
    engine: ExperimentEngine
    queue: ExperimentQueue

    @classmethod
    def create(cls, settings: Settings, publish: ProgressCallback | None = None) -> EngineRuntime:
        url = resolved_database_url(settings)
        migrate(url)
        database = make_engine(url)
        sessions = session_factory(database)
        broker = ProgressBroker()
        engine = ExperimentEngine(
            sessions,
            work_dir=resolved_work_dir(settings),
            otlp_endpoint=str(settings.collector_otlp_http_endpoint).rstrip("/"),
            publish=publish or broker.publish_threadsafe,
        )
        return cls(database, sessions, broker, engine, ExperimentQueue(engine, sessions))

    def dispose(self) -> None:
        self.database.dispose()
