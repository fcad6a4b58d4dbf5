"""One measurement at a time: experiments wait in a FIFO queue served by one worker.

Two measurements at once would share the machine's cores and corrupt each other's numbers.
On start-up, an experiment left `running` by a previous process is marked interrupted and
experiments left `queued` are queued again.

The next experiment starts only once every component of the stack it measures through is
ready (`stack_probe`): while one is down (the native stack's watcher is starting it again), it
waits at the head of the queue, "waiting for the Collector" as its progress message, probed
again every STACK_RECHECK_S, and can be cancelled meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time

from sqlalchemy.orm import Session, sessionmaker

from tracetax.db import repository as repo
from tracetax.engine.experiment import ExperimentEngine, StackDown, StackProbe
from tracetax.engine.progress import Progress, ended
from tracetax.system.processes import reap_leftovers

log = logging.getLogger(__name__)

# How often, and after how long, the worker tries again to record a failed experiment when the
# record itself fails (a database restarting, a full disk): about 7 s in all.
FAILURE_WRITE_ATTEMPTS = 4
FAILURE_WRITE_FIRST_DELAY_S = 1.0
# After an unexpected error in the worker's own loop, before it serves again (never a busy loop).
SERVE_RETRY_DELAY_S = 1.0
# How often the stack is probed again while the next experiment waits for it.
STACK_RECHECK_S = 5.0
# The stack's components as the probe names them (clients/health.py `stack_down`), in words.
COMPONENT_NAMES = {"tempo": "Tempo", "loki": "Loki", "metrics": "the metrics store", "collector": "the Collector"}


def waiting_message(down: StackDown) -> str:
    """'waiting for the Collector (not ready: ConnectError)': why the next experiment has not started."""
    names = {name: COMPONENT_NAMES.get(name, name) for name in sorted(down)}
    listed = list(names.values())
    who = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"
    if len(down) == 1:
        reasons = next(iter(down.values()))
    else:
        reasons = "; ".join(f"{names[name]}: {down[name]}" for name in names)
    return (
        f"waiting for {who} (not ready: {reasons}); it starts once the stack is ready again, "
        f"checked every {STACK_RECHECK_S:.0f} s"
    )


class ExperimentQueue:
    """Submit, position and cancel are called from the API's worker threads; the worker task
    runs on the event loop. `_lock` guards the waiting list, and the loop is woken through
    `call_soon_threadsafe` (an asyncio.Event must only be set on its own loop)."""

    def __init__(self, engine: ExperimentEngine, sessions: sessionmaker[Session]) -> None:
        self.engine = engine
        self.sessions = sessions
        self._waiting: list[str] = []
        self._lock = threading.Lock()
        self._wakeup = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.running: str | None = None
        self._cancel = threading.Event()
        self._shutdown = threading.Event()
        self._worker: asyncio.Task[None] | None = None
        # When the shutdown began (monotonic): stop() waits for the worker until grace after it.
        self._stopping_since: float | None = None
        self.reaped: list[str] = []
        # The stack's components not ready now (None: never wait for the stack; TRACETAX_STACK_WAIT).
        self.stack_probe: StackProbe | None = None
        # Why the next experiment waits (experiment id -> its message) while the stack is down.
        self._held: dict[str, str] = {}

    def restore(self) -> None:
        """After a restart: an experiment left running is marked interrupted (its completed
        rounds stay) and the queued ones wait again, oldest first. The processes an
        interrupted measurement left running (service, load generator, samplers) are stopped
        first, and listed in `reaped`."""
        self.reaped = reap_leftovers()
        for line in self.reaped:
            log.warning("stopped a leftover of an interrupted measurement: %s", line)
        with self.sessions() as session:
            repo.mark_interrupted(session)
            waiting = repo.queued_ids(session)
        with self._lock:
            self._waiting = waiting

    async def start(self, worker: bool = True) -> None:
        """Restore the queue and start the worker that runs experiments one at a time.
        `worker=False` keeps the queue (submit, positions, cancel) without ever running one."""
        self._loop = asyncio.get_running_loop()
        self.restore()
        if worker:
            self._worker = asyncio.create_task(self._serve(), name="tracetax-experiment-queue")
            self._wake()

    def _wake(self) -> None:
        if self._loop is None or self._loop.is_closed():
            self._wakeup.set()
        else:
            self._loop.call_soon_threadsafe(self._wakeup.set)

    @property
    def worker_alive(self) -> bool | None:
        """Whether the worker task still serves the queue; None when this queue has none
        (`start(worker=False)`), so readiness does not depend on it."""
        if self._worker is None:
            return None
        return not self._worker.done()

    @property
    def stopping(self) -> bool:
        return self._shutdown.is_set()

    def begin_stop(self) -> None:
        """Ask the running experiment to stop now (its service gets SIGTERM, it is marked
        interrupted) without waiting: called as soon as the backend is told to stop, before the
        server drains its connections. Safe to call from any thread, more than once."""
        if self._stopping_since is None:
            self._stopping_since = time.monotonic()
        self._shutdown.set()
        self._wake()

    async def stop(self, grace_s: float | None = None) -> None:
        """Interrupt the running experiment (its completed rounds stay) and stop the worker,
        waiting for it at most `grace_s` after the shutdown began (forever when None)."""
        self.begin_stop()
        if self._worker is None:
            return
        remaining = None
        if grace_s is not None and self._stopping_since is not None:
            remaining = max(self._stopping_since + grace_s - time.monotonic(), 0.0)
        # asyncio.wait neither raises what ended the task nor cancels it on the timeout (its
        # thread may still be writing the run's end).
        done, _ = await asyncio.wait({self._worker}, timeout=remaining)
        if not done:
            log.error(
                "the running experiment %s did not stop within TRACETAX_SHUTDOWN_GRACE_S=%.0f s; "
                "it will be marked interrupted at the next start",
                self.running,
                grace_s,
            )

    def submit(self, experiment_id: str) -> int:
        with self._lock:
            self._waiting.append(experiment_id)
        self._wake()
        return self.position(experiment_id) or 0

    def position(self, experiment_id: str) -> int | None:
        """0 while running, 1.. while waiting (1 = next), None otherwise."""
        with self._lock:
            if experiment_id == self.running:
                return 0
            if experiment_id in self._waiting:
                return self._waiting.index(experiment_id) + 1
            return None

    def waiting_for(self, experiment_id: str) -> str | None:
        """Why this queued experiment has not started although it is next (the stack is down)."""
        with self._lock:
            return self._held.get(experiment_id)

    def cancel(self, experiment_id: str) -> bool:
        """Cancel a waiting or the running experiment; False if it is neither."""
        with self._lock:
            if experiment_id == self.running:
                self._cancel.set()
                return True
            if experiment_id not in self._waiting:
                return False
            self._waiting.remove(experiment_id)
            self._held.pop(experiment_id, None)
        self._wake()  # the worker may be holding it for the stack: on to the next one
        with self.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            if experiment is not None and experiment.status == "queued":
                repo.set_status(session, experiment, "cancelled", "cancelled before it started")
                # Nothing ran, so the engine sends no `finished`: listeners would wait forever.
                self.engine.publish(ended(experiment_id, "cancelled", experiment.spec.get("rounds", 0)))
        return True

    def _head(self) -> str | None:
        with self._lock:
            return self._waiting[0] if self._waiting else None

    def _next(self, expected: str) -> str | None:
        """Take `expected` off the head to run it; None when it is no longer there (cancelled)."""
        with self._lock:
            if not self._waiting or self._waiting[0] != expected:
                return None
            self.running = self._waiting.pop(0)
            self._held.pop(self.running, None)
            self._cancel = threading.Event()
            return self.running

    async def _serve(self) -> None:
        """Serve until shutdown. Nothing an experiment or the database raises ends this loop:
        a dead worker would leave every later experiment `queued` for good."""
        while not self._shutdown.is_set():
            try:
                await self._serve_next()
            except Exception:
                log.exception("the experiment queue's worker hit an error; it goes on serving")
                await asyncio.sleep(SERVE_RETRY_DELAY_S)

    async def _serve_next(self) -> None:
        head = self._head()
        if head is None:
            # A submit from another thread sets the event through the loop, so after this
            # clear: it cannot be lost.
            self._wakeup.clear()
            await self._wakeup.wait()
            return
        if not await self._stack_ready_for(head):
            return
        experiment_id = self._next(head)
        if experiment_id is None:
            return
        try:
            await asyncio.to_thread(self.engine.execute, experiment_id, self._cancel, self._shutdown)
        except Exception as error:  # an engine bug (or a database error) must not kill the queue
            log.exception("experiment %s failed with an engine error", experiment_id)
            await self._record_failure(experiment_id, f"engine error: {error!r}")
        finally:
            with self._lock:
                self.running = None

    async def _stack_ready_for(self, experiment_id: str) -> bool:
        """True when the stack is ready for the next experiment (or is not asked). Else hold it:
        say why (once per change of reason) and wait for the next check, a cancel, a submit or
        the shutdown, then False: the worker looks at the queue's head again."""
        if self.stack_probe is None:
            return True
        # Cleared before the probe: a cancel meanwhile still wakes the wait below.
        self._wakeup.clear()
        try:
            down = await asyncio.to_thread(self.stack_probe)
        except Exception as error:  # the probe's own fault never holds the queue
            log.warning("could not probe the stack's health before experiment %s: %r", experiment_id, error)
            return True
        if not down:
            with self._lock:
                was_held = self._held.pop(experiment_id, None) is not None
            if was_held:
                await asyncio.to_thread(self._publish_held, experiment_id, "the stack is ready again: starting")
            return True
        message = waiting_message(down)
        with self._lock:
            if experiment_id not in self._waiting:
                return False  # cancelled during the probe
            changed = self._held.get(experiment_id) != message
            self._held[experiment_id] = message
        if changed:
            log.warning("experiment %s is next: %s", experiment_id, message)
            await asyncio.to_thread(self._publish_held, experiment_id, message)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wakeup.wait(), STACK_RECHECK_S)
        return False

    def _publish_held(self, experiment_id: str, message: str) -> None:
        with self.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            rounds = experiment.spec.get("rounds", 0) if experiment is not None else 0
        event = Progress(
            experiment_id=experiment_id, status="queued", phase="queued", rounds=rounds, slots=0, message=message
        )
        self.engine.publish(event)

    async def _record_failure(self, experiment_id: str, error: str) -> None:
        """Mark the experiment failed, trying again with backoff while the write itself fails.
        If it never succeeds the experiment stays `running` in the database, and the next start
        marks it interrupted: the queue goes on with the next one either way."""
        delay = FAILURE_WRITE_FIRST_DELAY_S
        for attempt in range(1, FAILURE_WRITE_ATTEMPTS + 1):
            try:
                await asyncio.to_thread(self._fail, experiment_id, error)
                return
            except Exception:
                log.exception(
                    "could not record experiment %s as failed (attempt %d of %d)",
                    experiment_id,
                    attempt,
                    FAILURE_WRITE_ATTEMPTS,
                )
            if attempt < FAILURE_WRITE_ATTEMPTS and not self._shutdown.is_set():
                await asyncio.sleep(delay)
                delay *= 2
        # Its listeners still learn that it ended, even though the database could not say so.
        self.engine.publish(ended(experiment_id, "failed", 0, error))

    def _fail(self, experiment_id: str, error: str) -> None:
        with self.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            if experiment is not None and experiment.status in ("queued", "running"):
                repo.set_status(session, experiment, "failed", error)
                self.engine.publish(ended(experiment_id, "failed", experiment.spec.get("rounds", 0), error))
