"""What a subject's aggregation is given of each stored round, whatever the subject, and the
median every subject's per-round figures are summarised by. The aggregation itself is each
subject's (its RoundSubject's `aggregate`: subjects/service/aggregate.py, subjects/collector/
aggregate.py); the engine stores what it answers."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RoundData:
    """What aggregation needs of one stored round."""

    configuration: str
    round_index: int
    status: str
    histogram: str | None
    # The subject's figures as stored (tracetax.engine.figures): each subject's aggregation reads its own.
    figures: dict[str, Any] | None
    resources: dict[str, Any] | None


def median(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None
