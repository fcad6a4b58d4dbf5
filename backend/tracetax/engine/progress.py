"""Live progress of the running experiment, fanned out to any number of listeners (SSE, CLI)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Literal

from pydantic import BaseModel

Phase = Literal[
    "queued",
    "starting",
    "warmup",
    # Every configuration of the round live at once (subjects/service/side_by_side.py)
    "side-by-side",
    "measuring",
    "stacks",
    "max-throughput",
    "draining",  # a Collector pipeline passes on what it holds before its counters are read
    "ramp",  # a Collector pipeline under rising span rates, for its highest sustainable rate
    "stopping",
    "aggregating",
    "collecting",
    "finished",
]


class Progress(BaseModel):
    experiment_id: str
    status: str
    phase: Phase
    configuration: str | None = None
    round: int | None = None
    rounds: int
    slot: int = 0
    slots: int
    elapsed_s: float = 0.0
    remaining_s: float | None = None
    phase_elapsed_s: float = 0.0
    phase_duration_s: float | None = None
    # Completed requests per second and latency-corrected p99 of the latest finished phase slice.
    current_rps: float | None = None
    current_p99_us: int | None = None
    service_cpu_utilization: float | None = None
    message: str | None = None


ProgressCallback = Callable[[Progress], None]


def _force_put(queue: asyncio.Queue[Progress | None], item: Progress | None) -> None:
    """Put even into a full queue (dropping its oldest event): the end must always arrive."""
    while True:
        try:
            queue.put_nowait(item)
            return
        except asyncio.QueueFull:
            queue.get_nowait()


def ended(experiment_id: str, status: str, rounds: int, message: str | None = None) -> Progress:
    """The `finished` event of an experiment that ended without the engine's own: cancelled
    while it waited, or stopped by an engine error. Listeners stop on it."""
    return Progress(
        experiment_id=experiment_id, status=status, phase="finished", rounds=rounds, slots=0, message=message
    )


class ProgressBroker:
    """Keeps the latest event per experiment and pushes every event to subscribers."""

    def __init__(self) -> None:
        self.latest: dict[str, Progress] = {}
        self._subscribers: dict[str, set[asyncio.Queue[Progress | None]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        # Set when the backend stops: every subscription ends at once, and new ones end at
        # their start, so no open event stream holds the server's graceful shutdown.
        self.closed = False

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def publish_threadsafe(self, event: Progress) -> None:
        """Called from the engine's worker thread."""
        if self._loop is None:
            self.publish(event)
        else:
            self._loop.call_soon_threadsafe(self.publish, event)

    def publish(self, event: Progress) -> None:
        self.latest[event.experiment_id] = event
        for queue in self._subscribers.get(event.experiment_id, set()):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(event)

    def close(self) -> None:
        """End every subscription now (the backend stops). Called on the broker's loop."""
        self.closed = True
        for queues in self._subscribers.values():
            for queue in queues:
                _force_put(queue, None)

    async def subscribe(self, experiment_id: str, idle_s: float | None = None) -> AsyncIterator[Progress | None]:
        """The latest event seen, then every new one, ending after `finished` (at once when the
        latest is already `finished`), or at once when the broker is closed (the backend stops).
        With `idle_s`, None is yielded whenever that long passes without an event: the caller can
        send a keep-alive and check whether the experiment ended without one (for example when
        it was never run)."""
        queue: asyncio.Queue[Progress | None] = asyncio.Queue(maxsize=1000)
        self._subscribers.setdefault(experiment_id, set()).add(queue)
        try:
            latest = self.latest.get(experiment_id)
            if latest is not None:
                yield latest
                if latest.phase == "finished":
                    return
            while not self.closed:
                try:
                    event = await asyncio.wait_for(queue.get(), idle_s)
                except TimeoutError:
                    yield None
                    continue
                if event is None:  # close(): the backend stops
                    return
                yield event
                if event.phase == "finished":
                    return
        finally:
            subscribers = self._subscribers.get(experiment_id, set())
            subscribers.discard(queue)
            if not subscribers:
                self._subscribers.pop(experiment_id, None)
