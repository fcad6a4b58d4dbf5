"""One measurement at a time: experiments wait in a FIFO queue served by one worker.

Two measurements at once would share the machine's cores and corrupt each other's numbers.
On start-up, an experiment left `running` by a previous process is marked interrupted and
experiments left `queued` are queued again.
"""

from __future__ import annotations

import asyncio
import threading

from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.engine.experiment import ExperimentEngine


class ExperimentQueue:
    def __init__(self, engine: ExperimentEngine, sessions: sessionmaker[Session]) -> None:
        self.engine = engine
        self.sessions = sessions
        self._waiting: list[str] = []
        self._wakeup = asyncio.Event()
        self.running: str | None = None
        self._cancel = threading.Event()
        self._shutdown = threading.Event()
        self._worker: asyncio.Task[None] | None = None

    async def start(self) -> None:
        with self.sessions() as session:
            repo.mark_interrupted(session)
            self._waiting = repo.queued_ids(session)
        self._worker = asyncio.create_task(self._serve(), name="tracetax-experiment-queue")
        if self._waiting:
            self._wakeup.set()

    async def stop(self) -> None:
        """Interrupt the running experiment (its completed rounds stay) and stop the worker."""
        self._shutdown.set()
        self._wakeup.set()
        if self._worker is not None:
            await self._worker

    def submit(self, experiment_id: str) -> int:
        self._waiting.append(experiment_id)
        self._wakeup.set()
        return self.position(experiment_id) or 0

    def position(self, experiment_id: str) -> int | None:
        """0 while running, 1.. while waiting (1 = next), None otherwise."""
        if experiment_id == self.running:
            return 0
        if experiment_id in self._waiting:
            return self._waiting.index(experiment_id) + 1
        return None

    def cancel(self, experiment_id: str) -> bool:
        """Cancel a waiting or the running experiment; False if it is neither."""
        if experiment_id == self.running:
            self._cancel.set()
            return True
        if experiment_id in self._waiting:
            self._waiting.remove(experiment_id)
            with self.sessions() as session:
                experiment = repo.get_experiment(session, experiment_id)
                if experiment is not None and experiment.status == "queued":
                    repo.set_status(session, experiment, "cancelled", "cancelled before it started")
            return True
        return False

    async def _serve(self) -> None:
        while not self._shutdown.is_set():
            if not self._waiting:
                self._wakeup.clear()
                await self._wakeup.wait()
                continue
            experiment_id = self._waiting.pop(0)
            self.running = experiment_id
            self._cancel = threading.Event()
            try:
                await asyncio.to_thread(self.engine.execute, experiment_id, self._cancel, self._shutdown)
            except Exception as error:  # an engine bug must not kill the queue
                with self.sessions() as session:
                    experiment = repo.get_experiment(session, experiment_id)
                    if experiment is not None and experiment.status in ("queued", "running"):
                        repo.set_status(session, experiment, "failed", f"engine error: {error!r}")
            finally:
                self.running = None
