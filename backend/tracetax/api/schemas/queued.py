"""The answer to queueing something that runs an experiment (a check, a calibration)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import BaseModel

if TYPE_CHECKING:
    from tracetax.app.submission import Queued


class QueuedRecord(BaseModel):
    id: str
    experiment_id: str
    status: str
    # 0: running now; 1..: waiting, 1 being next.
    queue_position: int | None
    estimated_seconds: float

    @classmethod
    def of(cls, record_id: str, queued: Queued) -> Self:
        return cls(
            id=record_id,
            experiment_id=queued.experiment.id,
            status=queued.experiment.status,
            queue_position=queued.queue_position,
            estimated_seconds=queued.estimated_seconds,
        )
