"""CI overhead checks: does the candidate configuration stay within budget of the baseline?"""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Response, status
from pydantic import BaseModel, Field
from sqlalchemy import select

from tracetax.api.deps import EngineDep
from tracetax.api.routes.experiments import create_experiment
from tracetax.db import repository as repo
from tracetax.db.models import Check
from tracetax.diagnostics import report
from tracetax.diagnostics.checks import Budget, Verdict, judge, junit
from tracetax.engine.spec import ConfigurationSpec, ExperimentSpec, LoadSpec, ServiceRef

router = APIRouter(prefix="/api/v1/checks", tags=["checks"])


class CheckRequest(BaseModel):
    service: ServiceRef
    baseline: ConfigurationSpec
    candidate: ConfigurationSpec
    load: LoadSpec
    budget: Budget
    rounds: int = Field(default=3, ge=1, le=50)
    seed: int = 0
    strict: bool = Field(default=False, description="Judge the point estimate instead of the interval's lower bound.")


class CheckCreated(BaseModel):
    id: str
    experiment_id: str
    status: str
    queue_position: int | None
    estimated_seconds: float


class CheckStatus(BaseModel):
    id: str
    experiment_id: str
    status: str
    created_at: datetime
    budget: Budget
    strict: bool
    verdict: Verdict | None = None
    error: str | None = None


def _spec(request: CheckRequest) -> ExperimentSpec:
    # Names are fixed so an A/A check (the same configuration twice) is a valid experiment.
    baseline = request.baseline.model_copy(update={"name": "baseline", "baseline": True})
    candidate = request.candidate.model_copy(update={"name": "candidate", "baseline": False})
    return ExperimentSpec(
        name=f"check: {request.candidate.name} vs {request.baseline.name}",
        service=request.service,
        configurations=[baseline, candidate],
        load=request.load,
        rounds=request.rounds,
        seed=request.seed,
    )


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=CheckCreated)
async def create_check(request: CheckRequest, engine: EngineDep) -> CheckCreated:
    """Queue an experiment of the baseline against the candidate and judge it against the budget."""
    created = await create_experiment(_spec(request), engine)
    check = Check(
        id=str(uuid.uuid4()), experiment_id=created.id, budget=request.budget.model_dump(), strict=request.strict
    )
    with engine.sessions() as session:
        session.add(check)
        session.commit()
    return CheckCreated(
        id=check.id,
        experiment_id=created.id,
        status=created.status,
        queue_position=created.queue_position,
        estimated_seconds=created.estimated_seconds,
    )


def _status(engine: EngineDep, check: Check) -> CheckStatus:
    with engine.sessions() as session:
        experiment = repo.get_experiment(session, check.experiment_id)
        if experiment is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"check {check.id} lost its experiment")
        result = CheckStatus(
            id=check.id,
            experiment_id=experiment.id,
            status=experiment.status,
            created_at=check.created_at,
            budget=Budget.model_validate(check.budget),
            strict=check.strict,
        )
        if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
            return result
        if experiment.status != "completed":
            result.error = f"the check's experiment is {experiment.status}: {experiment.error}"
            result.verdict = Verdict(verdict="error", strict=check.strict, lines=[])
            return result
        spec = ExperimentSpec.model_validate(experiment.spec)
        manifest = engine.engine.manifest_for(spec)
        diagnostics = report.build(session, experiment, manifest)
    result.verdict = judge(
        result.budget,
        diagnostics.overhead.get("candidate", {}),
        diagnostics.dropped_spans.get("candidate"),
        check.strict,
    )
    return result


@router.get("", response_model=list[CheckStatus])
async def list_checks(engine: EngineDep, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[CheckStatus]:
    with engine.sessions() as session:
        checks = session.scalars(select(Check).order_by(Check.created_at.desc()).limit(limit)).all()
    return [await asyncio.to_thread(_status, engine, check) for check in checks]


@router.get(
    "/{check_id}",
    response_model=CheckStatus,
    responses={200: {"content": {"application/xml": {}}}, 404: {"description": "not found"}},
)
async def get_check(
    check_id: str,
    engine: EngineDep,
    format: Annotated[Literal["json", "junit"], Query(description="junit: JUnit XML of the budget lines")] = "json",
) -> CheckStatus | Response:
    """Status, and once finished the verdict with each budget line's measured value and interval."""
    with engine.sessions() as session:
        check = session.get(Check, check_id)
    if check is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no check {check_id}")
    result = await asyncio.to_thread(_status, engine, check)
    if format == "junit":
        if result.verdict is None:
            raise HTTPException(status.HTTP_409_CONFLICT, f"check {check_id} is {result.status}: no verdict yet")
        return Response(junit(check_id, result.verdict, result.error), media_type="application/xml")
    return result
