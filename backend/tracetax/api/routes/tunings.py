"""Tuning runs: search OTEL_BSP_* for a service's traffic within a wall-time budget, then
confirm the winner against the SDK defaults (docs/tuning.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response, status

from tracetax.api.auth import FORBIDDEN, REVEALABLE, require_allowed_service
from tracetax.api.deps import EngineDep, SettingsDep, deletion_errors, submission_errors
from tracetax.api.schemas.errors import QUEUE_FULL, error_responses
from tracetax.api.schemas.tunings import TuningCreated, TuningDetail, TuningReportModel, TuningSummary
from tracetax.app import retention, tunings
from tracetax.db import repository as repo
from tracetax.tuning.spec import TuningSpec

router = APIRouter(prefix="/api/v1/tunings", tags=["tunings"])


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=TuningCreated,
    responses={
        **error_responses({400: "the body is not UTF-8 JSON", 404: "unknown service", 429: QUEUE_FULL}),
        **FORBIDDEN,
    },
)
def create_tuning(spec: TuningSpec, engine: EngineDep, settings: SettingsDep) -> TuningCreated:
    """Start a tuning run: a probe, rungs of successive halving within `wall_time_s`, then a
    confirmation (no SDK vs SDK defaults vs the winner). Each is an ordinary experiment on the
    queue. A `wall_time_s` too small for even one candidate is 422 naming it and the minimum."""
    require_allowed_service(settings, tunings.probe_spec(spec))
    with submission_errors():
        tuning_id = tunings.start(engine, spec)
    return TuningCreated(id=tuning_id, status="queued")


@router.get("", response_model=list[TuningSummary])
def list_tunings(engine: EngineDep, limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> list[TuningSummary]:
    with engine.sessions() as session:
        return [TuningSummary.of(t) for t in repo.list_tunings(session, limit)]


@router.get(
    "/{tuning_id}",
    dependencies=[REVEALABLE],
    response_model=TuningDetail,
    responses=error_responses({404: "not found"}),
)
def get_tuning(tuning_id: str, engine: EngineDep) -> TuningDetail:
    """The run's status, progress and experiments; its report (the trade-off, the Pareto front,
    the recommendation with its pasteable blocks and the confirmation's verdict) once finished.
    The spec's secrets are "***", unless `reveal=true` comes with the token."""
    with engine.sessions() as session:
        tuning = repo.get_tuning(session, tuning_id)
        if tuning is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no tuning {tuning_id}")
        report = TuningReportModel.model_validate(tuning.report) if tuning.report else None
        return TuningDetail(**TuningSummary.of(tuning).model_dump(), spec=tuning.spec, report=report)


@router.post(
    "/{tuning_id}/cancel",
    response_model=TuningSummary,
    responses=error_responses({404: "not found", 409: "already finished"}),
)
def cancel_tuning(tuning_id: str, engine: EngineDep) -> TuningSummary:
    """Stop the run after cancelling its running experiment; the experiments it finished stay."""
    with engine.sessions() as session:
        tuning = repo.get_tuning(session, tuning_id)
        if tuning is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no tuning {tuning_id}")
        if not tunings.cancel(tuning_id):
            raise HTTPException(status.HTTP_409_CONFLICT, f"tuning {tuning_id} is {tuning.status}")
        return TuningSummary.of(tuning)


@router.delete(
    "/{tuning_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses({404: "not found", 409: "queued or running: cancel it first"}),
)
def delete_tuning(tuning_id: str, engine: EngineDep) -> None:
    """Delete a finished tuning run with every experiment it ran (rows and work directories).
    While it runs: 409, cancel it first."""
    with deletion_errors():
        retention.delete_tuning(retention.Store.of(engine), tuning_id)
