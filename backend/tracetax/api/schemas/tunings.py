"""Request and response models of the tuning routes (docs/tuning.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from tracetax.db.models import Tuning


class TuningOutcome(BaseModel):
    """One measured setting: changes against no SDK (None: not measured)."""

    name: str
    p99_overhead_pct: float | None
    cpu_overhead_pct: float | None
    kept: float | None
    lost_spans: float | None
    rss_mib: float | None = None
    sampled: bool = False


class TuningRung(BaseModel):
    experiment_id: str
    measure_s: float
    outcomes: list[TuningOutcome]


class TuningChoice(BaseModel):
    recommended: TuningOutcome | None
    out_of_reach: dict[str, str]
    closest: TuningOutcome | None


class TuningMeasured(BaseModel):
    mean_spans_per_s: float
    peak_spans_per_s: float
    # None: the SDK reported no export durations (the sizing then assumed none).
    export_p99_ms: float | None
    # None: the log rate is unknown or the service logs nothing (OTEL_BLRP_* not tuned).
    mean_logs_per_s: float | None = None
    peak_logs_per_s: float | None = None


class TuningReportModel(BaseModel):
    measured: TuningMeasured
    export_measured: bool = False
    rungs: list[TuningRung]
    choice: TuningChoice | None
    front: list[TuningOutcome]
    recommended_env: dict[str, str] | None
    paste: dict[str, str] | None
    confirmation_id: str | None
    verdict: str | None


class TuningCreated(BaseModel):
    id: str
    status: str


class TuningSummary(BaseModel):
    id: str
    name: str | None
    status: str
    progress: str | None
    error: str | None
    experiment_ids: list[str]
    created_at: datetime
    finished_at: datetime | None

    @classmethod
    def of(cls, tuning: Tuning) -> TuningSummary:
        return cls(
            id=tuning.id,
            name=tuning.name,
            status=tuning.status,
            progress=tuning.progress,
            error=tuning.error,
            experiment_ids=list(tuning.experiment_ids or []),
            created_at=tuning.created_at,
            finished_at=tuning.finished_at,
        )


class TuningDetail(TuningSummary):
    spec: dict[str, Any]
    report: TuningReportModel | None
