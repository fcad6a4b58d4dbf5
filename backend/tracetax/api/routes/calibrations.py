"""Calibrations: A/A experiments that tell what this machine can resolve (the noise floor),
which checks use to refuse budgets tighter than that."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Response, status

from tracetax.api.auth import FORBIDDEN, require_allowed_service
from tracetax.api.deps import EngineDep, SettingsDep, deletion_errors, submission_errors
from tracetax.api.schemas.calibrations import CalibrationCreated, CalibrationRequest, CalibrationStatus
from tracetax.api.schemas.errors import QUEUE_FULL, error_responses
from tracetax.app import retention
from tracetax.app.submission import queue_calibration
from tracetax.db import repository as repo
from tracetax.db.models import Calibration
from tracetax.subjects.service.validation import calibration_floors

router = APIRouter(prefix="/api/v1/calibrations", tags=["calibrations"])


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=CalibrationCreated,
    responses={
        **error_responses({400: "the body is not UTF-8 JSON", 404: "unknown service", 429: QUEUE_FULL}),
        **FORBIDDEN,
    },
)
def create_calibration(request: CalibrationRequest, engine: EngineDep, settings: SettingsDep) -> CalibrationCreated:
    """Queue an A/A experiment of the configuration against itself at the given load. A command
    service this backend may not start is 403."""
    with submission_errors():
        spec = request.experiment_spec()
        require_allowed_service(settings, spec)
        stored, queued = queue_calibration(engine, spec)
    return CalibrationCreated.of(stored.id, queued)


def _status(engine: EngineDep, calibration: Calibration) -> CalibrationStatus:
    with engine.sessions() as session:
        experiment = repo.get_experiment(session, calibration.experiment_id)
        if experiment is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"calibration {calibration.id} lost its experiment")
        result = CalibrationStatus(
            id=calibration.id,
            experiment_id=experiment.id,
            status=experiment.status,
            created_at=calibration.created_at,
            service=calibration.service,
            signature=calibration.signature,
        )
        if experiment.status == "completed":
            result.noise_floor = calibration_floors(experiment)
        elif experiment.status in repo.FINAL_EXPERIMENT_STATES:
            result.error = f"the calibration's experiment is {experiment.status}: {experiment.error}"
    return result


@router.get("", response_model=list[CalibrationStatus])
def list_calibrations(engine: EngineDep, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[CalibrationStatus]:
    with engine.sessions() as session:
        calibrations = repo.list_calibrations(session, limit)
    return [_status(engine, calibration) for calibration in calibrations]


@router.get(
    "/{calibration_id}",
    response_model=CalibrationStatus,
    responses=error_responses({404: "no such calibration"}),
)
def get_calibration(calibration_id: str, engine: EngineDep) -> CalibrationStatus:
    """Status, and once completed the noise floor per metric."""
    with engine.sessions() as session:
        calibration = repo.get_calibration(session, calibration_id)
    if calibration is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no calibration {calibration_id}")
    return _status(engine, calibration)


@router.delete(
    "/{calibration_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses(
        {404: "no such calibration", 409: "its experiment is queued or running: cancel it first"}
    ),
)
def delete_calibration(calibration_id: str, engine: EngineDep) -> None:
    """Delete a finished calibration with its A/A experiment (rows and work directory); checks
    no longer find its noise floor. While its experiment is queued or running: 409."""
    with deletion_errors():
        retention.delete_calibration(retention.Store.of(engine), calibration_id)
