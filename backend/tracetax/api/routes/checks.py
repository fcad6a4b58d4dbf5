"""CI overhead checks: does the candidate configuration stay within budget of the baseline?

Plain `def` routes: FastAPI runs them in its threadpool, off the event loop (database reads and
the diagnostics' bootstrap block).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Response, status
from pydantic import AnyHttpUrl

from tracetax.api.auth import FORBIDDEN, require_allowed_service
from tracetax.api.deps import (
    EngineDep,
    FromExperiment,
    SettingsDep,
    SpecRoute,
    deletion_errors,
    secrets_filled,
    submission_errors,
)
from tracetax.api.schemas.checks import (
    CheckBody,
    CheckCreated,
    CheckStatus,
    MachineFingerprint,
    PipelineCheckRequest,
    field_of,
)
from tracetax.api.schemas.errors import QUEUE_FULL, error_responses
from tracetax.api.schemas.history import HistoryJudgementModel
from tracetax.app import check_commands, check_history, retention
from tracetax.app.check_commands import CheckCommands
from tracetax.app.submission import queue_check
from tracetax.db import repository as repo
from tracetax.db.models import Check, Experiment
from tracetax.diagnostics.checks import Budget, junit
from tracetax.spec.provenance import HistoryGate, Provenance
from tracetax.spec.redaction import redact

# SpecRoute: the create route's body is a check of either subject; its 422s name fields as written.
router = APIRouter(prefix="/api/v1/checks", tags=["checks"], route_class=SpecRoute)


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=CheckCreated,
    responses={
        **error_responses({400: "the body is not UTF-8 JSON", 404: "unknown service", 429: QUEUE_FULL}),
        **FORBIDDEN,
    },
)
def create_check(
    request: CheckBody, engine: EngineDep, settings: SettingsDep, from_experiment: FromExperiment = None
) -> CheckCreated:
    """Queue an experiment of the baseline against the candidate and judge it against the budget:
    a service's configurations (`subject: service`, the default) or a Collector pipeline's
    variants (`subject: collector`, with the pipeline budget fields). A command service this
    backend may not start is 403. A check run again names the experiment of the check it was
    copied from in `from_experiment`, so the secrets its answers show as "***" are filled in."""
    with submission_errors(field_of):
        spec = secrets_filled(engine, request.experiment_spec(), from_experiment)
        require_allowed_service(settings, spec)
        check, queued = queue_check(engine, spec, request.budget, request.strict, request.origin())
    return CheckCreated.of(check.id, queued)


def _origin(check: Check, experiment: Experiment) -> dict[str, Any]:
    """Where the check came from and what it ran on, as CheckStatus's fields."""
    machine = (experiment.environment or {}).get("machine")
    gate = check.against_history
    return {
        "provenance": Provenance.model_validate(experiment.provenance) if experiment.provenance else None,
        "machine": MachineFingerprint.model_validate(machine) if machine else None,
        "configuration": check.configuration,
        "baseline_configuration": check.baseline_configuration,
        "against_history": HistoryGate.model_validate(gate) if gate else None,
    }


def _status(engine: EngineDep, check: Check) -> tuple[CheckStatus, check_history.CheckOutcome | None]:
    """The check's answer, and its verdicts (app/check_history.check_outcome) once finished."""
    with engine.sessions() as session:
        experiment = repo.get_experiment(session, check.experiment_id)
        if experiment is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"check {check.id} lost its experiment")
        outcome = check_history.check_outcome(session, check, experiment, engine.subjects)
        result = CheckStatus(
            id=check.id,
            experiment_id=experiment.id,
            status=experiment.status,
            created_at=check.created_at,
            budget=Budget.model_validate(check.budget),
            strict=check.strict,
            **_origin(check, experiment),
        )
    if outcome is not None:
        result.verdict, result.error, result.overall = outcome.verdict, outcome.error, outcome.overall
        if outcome.history is not None:
            result.history = [HistoryJudgementModel.model_validate(judgement) for judgement in outcome.history]
    return result, outcome


# The list judges every check it answers (a bootstrap each the first time): at most this many.
MAX_LISTED_CHECKS = 100


@router.get("", response_model=list[CheckStatus])
def list_checks(engine: EngineDep, limit: Annotated[int, Query(ge=1, le=MAX_LISTED_CHECKS)] = 50) -> list[CheckStatus]:
    with engine.sessions() as session:
        checks = repo.list_checks(session, limit)
    return [_status(engine, check)[0] for check in checks]


@router.get(
    "/{check_id}",
    response_model=CheckStatus,
    responses={
        200: {"content": {"application/xml": {}, "text/markdown": {}}},
        **error_responses({404: "not found", 409: "format=junit or markdown before the check has a verdict"}),
    },
)
def get_check(
    check_id: str,
    engine: EngineDep,
    settings: SettingsDep,
    format: Annotated[
        Literal["json", "junit", "markdown"],
        Query(
            description="junit: JUnit XML of the budget lines and the judgements against history; markdown: a "
            "GitHub-flavoured summary for $GITHUB_STEP_SUMMARY or a pull request comment"
        ),
    ] = "json",
) -> CheckStatus | Response:
    """Status, and once finished the verdict with each budget line's measured value and interval."""
    with engine.sessions() as session:
        check = repo.get_check(session, check_id)
    if check is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no check {check_id}")
    result, outcome = _status(engine, check)
    if format == "json":
        return result
    if outcome is None:
        raise HTTPException(status.HTTP_409_CONFLICT, f"check {check_id} is {result.status}: no verdict yet")
    if format == "markdown":
        with engine.sessions() as session:
            experiment = repo.get_experiment(session, check.experiment_id)
            if experiment is None:
                raise HTTPException(status.HTTP_404_NOT_FOUND, f"check {check.id} lost its experiment")
            text = check_history.markdown_report(
                session, check, experiment, engine.subjects, outcome, str(settings.public_url)
            )
        return Response(text, media_type="text/markdown; charset=utf-8")
    cases = check_history.junit_cases(result.history or [])
    return Response(junit(check_id, outcome.verdict, outcome.error, cases), media_type="application/xml")


@router.get("/{check_id}/commands", response_model=CheckCommands, responses=error_responses({404: "not found"}))
def get_check_commands(
    check_id: str,
    engine: EngineDep,
    settings: SettingsDep,
    api: Annotated[
        AnyHttpUrl | None,
        Query(description="The TraceTax base URL the commands call (default: TRACETAX_PUBLIC_URL)."),
    ] = None,
) -> CheckCommands:
    """The check as a CI pipeline runs it again: its request (secrets as answers show them,
    "***"), the curl calls, and the `tracetax check` command, with flags when they say the
    request exactly, else reading it from a file (`reasons` says why)."""
    with engine.sessions() as session:
        check = repo.get_check(session, check_id)
        experiment = repo.get_experiment(session, check.experiment_id) if check is not None else None
    if check is None or experiment is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no check {check_id}")
    parts = check_commands.CheckParts(check.budget, check.strict, experiment.provenance, check.against_history)
    return check_commands.stored_check_commands(str(api or settings.public_url), parts, redact(experiment.spec))


@router.post("/commands", response_model=CheckCommands, responses=error_responses({400: "the body is not UTF-8 JSON"}))
def pipeline_check_commands(
    request: PipelineCheckRequest,
    settings: SettingsDep,
    api: Annotated[AnyHttpUrl | None, Query(description="The TraceTax base URL the commands call.")] = None,
) -> CheckCommands:
    """A Collector pipeline check request's `tracetax check --collector` command and curl calls,
    as the check form shows them before it is sent (what the request leaves out stays out)."""
    body = request.model_dump(mode="json", exclude_unset=True)
    return check_commands.request_commands(str(api or settings.public_url), redact(body))


@router.delete(
    "/{check_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses({404: "not found", 409: "its experiment is queued or running: cancel it first"}),
)
def delete_check(check_id: str, engine: EngineDep) -> None:
    """Delete a finished check with its experiment (rows and work directory). While its
    experiment is queued or running: 409, cancel it first."""
    with deletion_errors():
        retention.delete_check(retention.Store.of(engine), check_id)
