"""Experiments: create (queued), list, get, cancel, results, live progress (SSE).

Routes that read or write the database are plain `def`: FastAPI runs them in its threadpool,
so SQLAlchemy's blocking calls never stall the event loop. Only the SSE stream is async; its
database reads run in worker threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Response, status
from fastapi.responses import PlainTextResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from pydantic import AnyHttpUrl, BaseModel

from tracetax.api.auth import FORBIDDEN, REVEALABLE, require_allowed_service
from tracetax.api.deps import (
    EngineDep,
    FromExperiment,
    SettingsDep,
    SpecRoute,
    deletion_errors,
    load_experiment,
    require_configuration,
    secrets_filled,
    submission_errors,
)
from tracetax.api.schemas.diagnostics import AnyDiagnostics
from tracetax.api.schemas.errors import QUEUE_FULL, error_responses
from tracetax.api.schemas.experiments import (
    ExperimentCreated,
    ExperimentDetail,
    ExperimentResults,
    ExperimentSummary,
    RoundRaw,
    RoundSummary,
)
from tracetax.api.schemas.stacks import FlameDiff
from tracetax.app import retention
from tracetax.app.spec_commands import SPEC_FILE, SpecCommands, spec_commands
from tracetax.app.submission import queue_experiment
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.diagnostics import stack_diff, stacks
from tracetax.diagnostics.ledger import RoundLedger
from tracetax.diagnostics.stacks import FlameGraph
from tracetax.spec.inputs import FILE_PATH_CHARS
from tracetax.spec.redaction import redact
from tracetax.subjects.base import DiagnosticsOptions
from tracetax.subjects.registry import subject_for, subject_named
from tracetax.subjects.union import SpecBody, parse_spec, subject_of

# SpecRoute: the create route's body is a spec of either subject; its 422s name fields as written.
router = APIRouter(prefix="/api/v1/experiments", tags=["experiments"], route_class=SpecRoute)
# How long the event stream waits for progress before it checks whether the experiment ended
# without a `finished` event. The keep-alive comment on a quiet stream is FastAPI's own
# (`: ping` after 15 s without an event, fastapi.sse).
EVENTS_IDLE_S = 15.0
# How long a client waits before it reconnects to an event stream the stopping backend ended.
STOPPING_RETRY_MS = 5000


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ExperimentCreated,
    responses={
        **error_responses({400: "the body is not UTF-8 JSON", 404: "unknown service", 429: QUEUE_FULL}),
        **FORBIDDEN,
    },
)
def create_experiment(
    spec: Annotated[SpecBody, Body()], engine: EngineDep, settings: SettingsDep, from_experiment: FromExperiment = None
) -> ExperimentCreated:
    """Validate the spec and queue the experiment: a service (`subject: service`, the default)
    or a Collector pipeline (`subject: collector`). One experiment measures at a time; the
    answer says where this one stands in the queue. A spec that does not fit the service, or
    a pipeline config the Collector refuses, is 422, each item naming its field (and the
    file, line and component). A command service this backend may not start is 403. A run
    again sends the stored spec as answered, secrets as "***", naming it in `from_experiment`."""
    with submission_errors():
        spec = secrets_filled(engine, spec, from_experiment)
        require_allowed_service(settings, spec)
        queued = queue_experiment(engine, spec)
    return ExperimentCreated(
        id=queued.experiment.id,
        status=queued.experiment.status,
        queue_position=queued.queue_position,
        estimated_seconds=queued.estimated_seconds,
    )


@router.post("/commands", response_model=SpecCommands, responses=error_responses({400: "the body is not UTF-8 JSON"}))
def experiment_commands(
    spec: Annotated[SpecBody, Body()],
    settings: SettingsDep,
    api: Annotated[AnyHttpUrl | None, Query(description="The TraceTax base URL the curl command calls.")] = None,
    file: Annotated[
        str, Query(min_length=1, max_length=FILE_PATH_CHARS, description="The file the spec is saved as.")
    ] = SPEC_FILE,
) -> SpecCommands:
    """The commands that start this spec once it is saved as `file`: `tracetax run` and the
    API's POST, quoted for a shell, as the new experiment form shows them. The spec is parsed
    as its submission would be (a 422 names the field); nothing is stored or queued."""
    return spec_commands(str(api or settings.public_url), file)


def summary_of(experiment: Experiment, engine: EngineDep) -> ExperimentSummary:
    """Its summary with where it is in the queue and why it waits, if it does."""
    return ExperimentSummary.of(
        experiment, engine.queue.position(experiment.id), engine.queue.waiting_for(experiment.id)
    )


@router.get("", response_model=list[ExperimentSummary])
def list_experiments(
    engine: EngineDep,
    service: Annotated[str | None, Query(description="Only experiments on this service (language).")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[ExperimentSummary]:
    with engine.sessions() as session:
        experiments = repo.list_experiments(session, service, limit)
    return [summary_of(e, engine) for e in experiments]


@router.get(
    "/{experiment_id}",
    dependencies=[REVEALABLE],
    response_model=ExperimentDetail,
    responses=error_responses({404: "not found"}),
)
def get_experiment(experiment_id: str, engine: EngineDep) -> ExperimentDetail:
    """The experiment with its spec and rounds. The spec's secrets (the values of header and env
    names that carry a credential) are "***", unless `reveal=true` comes with the token."""
    experiment = load_experiment(engine, experiment_id)
    summary = ExperimentSummary.of(
        experiment, engine.queue.position(experiment.id), engine.queue.waiting_for(experiment.id)
    )
    return ExperimentDetail(
        **summary.model_dump(),
        spec=experiment.spec,
        environment=experiment.environment,
        rounds=[RoundSummary.of(r, subject_named(subject_of(experiment.spec))) for r in experiment.rounds],
    )


@router.post(
    "/{experiment_id}/cancel",
    response_model=ExperimentSummary,
    responses=error_responses({404: "not found", 409: "already finished"}),
)
def cancel_experiment(experiment_id: str, engine: EngineDep) -> ExperimentSummary:
    """Cancel a queued or running experiment; every process its run started is stopped."""
    experiment = load_experiment(engine, experiment_id)
    if not engine.queue.cancel(experiment_id):
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")
    experiment = load_experiment(engine, experiment_id)
    return ExperimentSummary.of(
        experiment, engine.queue.position(experiment_id), engine.queue.waiting_for(experiment_id)
    )


@router.delete(
    "/{experiment_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses=error_responses({404: "not found", 409: "queued or running, or its tuning runs: cancel it first"}),
)
def delete_experiment(experiment_id: str, engine: EngineDep) -> None:
    """Delete a finished experiment with everything stored for it: rounds (samples, histograms,
    stacks), results, span ledgers, the check or calibration it answers, and its work
    directory (oha databases, service logs, JFR and perf files). A queued or running one is
    409: cancel it first."""
    with deletion_errors():
        retention.delete_experiment(retention.Store.of(engine), experiment_id)


@router.get("/{experiment_id}/results", response_model=ExperimentResults, responses=error_responses({404: "not found"}))
def get_results(
    experiment_id: str,
    engine: EngineDep,
    raw: Annotated[bool, Query(description="Include every round's 250 ms resource samples.")] = False,
) -> ExperimentResults:
    """Aggregates per configuration (merged histograms) and every round's raw data."""
    experiment = load_experiment(engine, experiment_id)
    by_name = {result.configuration: result.aggregates for result in experiment.results}
    order = [c["name"] for c in experiment.spec["configurations"]]
    subject = subject_named(subject_of(experiment.spec))
    rounds = []
    for round_ in experiment.rounds:
        summary = RoundSummary.of(round_, subject)
        phases = subject.results.round_phases(round_.figures)
        rounds.append(
            RoundRaw(
                **summary.model_dump(),
                histogram=round_.histogram,
                open_phase=phases["open_phase"],
                closed_phase=phases["closed_phase"],
                resources=round_.resources,
                samples=round_.samples if raw else None,
            )
        )
    return ExperimentResults(
        experiment_id=experiment.id,
        status=experiment.status,
        baseline=next(c["name"] for c in experiment.spec["configurations"] if c.get("baseline")),
        configurations=[by_name[name] for name in order if name in by_name],
        rounds=rounds,
    )


def experiment_to_follow(experiment_id: str, engine: EngineDep) -> Experiment:
    """The experiment whose events are asked for, or 404 before the stream opens: the body of
    an event-stream route runs only after its 200 has been sent."""
    return load_experiment(engine, experiment_id)


def progress_event(payload: object) -> ServerSentEvent:
    """One `progress` event; its data is the payload as JSON, its secrets redacted like every answer's."""
    return ServerSentEvent(event="progress", data=redact(payload))


def finished_event(experiment_id: str, status: str) -> ServerSentEvent:
    return progress_event({"experiment_id": experiment_id, "status": status, "phase": "finished"})


@router.get(
    "/{experiment_id}/events",
    response_class=EventSourceResponse,
    responses=error_responses({404: "not found"}),
)
async def experiment_events(
    experiment_id: str, engine: EngineDep, experiment: Annotated[Experiment, Depends(experiment_to_follow)]
) -> AsyncIterator[ServerSentEvent]:
    """Server-sent events: phase, configuration, round, elapsed and remaining time, current
    rate and p99. Ends after the `finished` event; a finished experiment sends one at once."""
    if experiment.status in repo.FINAL_EXPERIMENT_STATES:
        yield finished_event(experiment_id, experiment.status)
        return
    if experiment.status == "queued":
        queued = {"experiment_id": experiment_id, "status": "queued", "phase": "queued"}
        position, waiting_for = engine.queue.position(experiment_id), engine.queue.waiting_for(experiment_id)
        yield progress_event({**queued, "queue_position": position, "message": waiting_for})
    async for event in engine.broker.subscribe(experiment_id, idle_s=EVENTS_IDLE_S):
        if event is not None:
            yield progress_event(event)
            continue
        # Quiet for a while: end the stream if the experiment ended without an event (say, a
        # restart marked it interrupted). FastAPI keeps proxies from timing out meanwhile.
        now = await asyncio.to_thread(load_experiment, engine, experiment_id)
        if now.status in repo.FINAL_EXPERIMENT_STATES:
            yield finished_event(experiment_id, now.status)
            return
    if engine.broker.closed:
        # The backend stops: end now so the server's graceful shutdown is not held (the
        # client reconnects to the next backend, after this `retry`).
        yield ServerSentEvent(comment="the backend is stopping", retry=STOPPING_RETRY_MS)


@router.get(
    "/{experiment_id}/diagnostics",
    # Each subject's answer as it describes it (a pipeline's typed to its ledger's leaves).
    response_model=AnyDiagnostics,
    responses=error_responses({404: "not found", 409: "not finished yet"}),
)
def get_diagnostics(
    experiment_id: str,
    engine: EngineDep,
    cpu_budget_pct: Annotated[
        float, Query(gt=0, allow_inf_nan=False, description="CPU overhead budget for the recommendation.")
    ] = 10.0,
    target_spans_per_s: Annotated[
        float | None,
        Query(
            gt=0,
            le=10_000_000,
            allow_inf_nan=False,
            description="Collector pipelines: size the recommendation for this span rate.",
        ),
    ] = None,
) -> BaseModel:
    """Overhead against the baseline with 95% intervals, the noise floor, the span ledger of
    every round, sample trace ids and the recommended processor setting. For a Collector
    pipeline (`subject: collector`): each variant's cost against the baseline pipeline, the
    noise floor and every round's ledger from the Collectors' own counters."""
    experiment = load_experiment(engine, experiment_id)
    if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")

    with engine.sessions() as session:
        stored = repo.get_experiment(session, experiment_id)
        if stored is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no experiment {experiment_id}")
        spec = parse_spec(stored.spec)
        options = DiagnosticsOptions(cpu_budget_pct, target_spans_per_s)
        answer: BaseModel = subject_for(spec).diagnosis.diagnostics(session, stored, spec, engine.subjects, options)
        return answer


@router.get(
    "/{experiment_id}/stacks/{configuration}",
    response_model=FlameGraph,
    responses={
        200: {"content": {"text/plain": {}}, "description": "the flame graph tree, or folded stacks"},
        **error_responses({404: "no such experiment or configuration"}),
    },
)
def get_stacks(
    experiment_id: str,
    configuration: str,
    engine: EngineDep,
    format: Annotated[
        Literal["tree", "folded"],
        Query(description="tree: the flame graph's call tree (JSON); folded: flamegraph.pl / speedscope input"),
    ] = "tree",
    min_share: Annotated[
        float,
        Query(ge=0, le=0.5, allow_inf_nan=False, description="Leave out tree nodes below this share of the samples."),
    ] = 0.001,
) -> FlameGraph | PlainTextResponse:
    """The service's stack samples in the configuration's measured phases, all rounds merged."""
    experiment = load_experiment(engine, experiment_id)
    require_configuration(experiment, configuration)
    if format == "folded":
        return PlainTextResponse(stacks.folded_text(experiment.rounds, configuration))
    return stacks.flame_graph(experiment.rounds, configuration, min_share)


@router.get(
    "/{experiment_id}/stacks/{configuration}/diff",
    response_model=FlameDiff,
    responses={
        200: {"content": {"text/plain": {}}, "description": "the diff tree, or folded diff (difffolded.pl)"},
        # A 422 (FastAPI's validation answer, documented by itself) also names `against` when
        # both sides would be the same configuration of the same experiment.
        **error_responses(
            {404: "no such experiment or configuration, or a side has no stack samples (the reason is given)"}
        ),
    },
)
def get_stacks_diff(
    experiment_id: str,
    configuration: str,
    engine: EngineDep,
    against: Annotated[
        str | None,
        Query(
            max_length=120,
            description="The configuration to compare with: by default the experiment's baseline, or with "
            "`against_experiment` the same configuration name in that experiment.",
        ),
    ] = None,
    against_experiment: Annotated[
        str | None,
        Query(max_length=36, description="Compare with a configuration of this experiment (e.g. an earlier check's)."),
    ] = None,
    format: Annotated[
        Literal["tree", "folded"],
        Query(
            description="tree: the diff's call tree (JSON); folded: `stack count_baseline count_candidate` lines "
            "(Brendan Gregg's difffolded.pl output) for flamegraph.pl, counts in ns of CPU per request when both "
            "sides' CPU per request is known, else in parts per million of each side's samples (the "
            "X-Folded-Count-Unit header says which)"
        ),
    ] = "tree",
    min_share: Annotated[
        float,
        Query(
            ge=0,
            le=0.5,
            allow_inf_nan=False,
            description="Leave out tree frames below this share of both sides' samples.",
        ),
    ] = 0.001,
) -> FlameDiff | PlainTextResponse:
    """Where the added cost went: each frame's CPU per request in this configuration against
    another (the baseline by default, or a configuration of another experiment, e.g. the same
    check's candidate at an earlier commit). A frame's cost is its share of its side's samples
    times that side's CPU per request; `delta` is candidate minus baseline (`unit` says whether in
    µs per request or, when a CPU per request is unknown, in percentage points of share)."""
    experiment = load_experiment(engine, experiment_id)
    require_configuration(experiment, configuration)
    other = experiment if against_experiment is None else load_experiment(engine, against_experiment)
    against_name = against or (configuration if against_experiment else stack_diff.baseline_configuration(experiment))
    if against_name is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"experiment {experiment_id} has no baseline: name one in against"
        )
    require_configuration(other, against_name)
    if other.id == experiment.id and against_name == configuration:
        message = f"{configuration!r} would be compared with itself: name another configuration or against_experiment"
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            [{"loc": ["query", "against"], "msg": message, "type": "value_error"}],
        )
    try:
        baseline = stack_diff.side_of(other, against_name)
        candidate = stack_diff.side_of(experiment, configuration)
    except stack_diff.MissingStacksError as missing:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(missing)) from None
    if format == "folded":
        unit, text = stack_diff.folded_diff(baseline, candidate)
        return PlainTextResponse(text, headers={"X-Folded-Count-Unit": stack_diff.FOLDED_COUNT_UNIT[unit]})
    return FlameDiff.of(stack_diff.diff(baseline, candidate, min_share))


@router.post(
    "/{experiment_id}/ledger",
    response_model=list[RoundLedger],
    responses=error_responses({404: "not found", 409: "not finished yet"}),
)
def recollect_ledger(experiment_id: str, engine: EngineDep) -> list[RoundLedger]:
    """Read the span ledger from Tempo, Loki, the metrics store and the Collector's counters
    again, for example after a backend that was down during collection is back. A backend
    that does not answer leaves its stages unknown, with the reason. For a Collector
    pipeline, Tempo's side is read again (see the diagnostics' `ledger[].stored`) and this
    answers an empty list."""
    experiment = load_experiment(engine, experiment_id)
    if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")
    # The collection mixes backend calls with blocking database writes: it runs on its own
    # event loop in this worker thread, with its own clients, as after every run.
    asyncio.run(engine.collect_ledger(experiment_id))
    with engine.sessions() as session:
        readings = repo.ledger_readings(session, experiment_id)
        answers = subject_named(subject_of(experiment.spec)).readback.answers_round_ledgers
        return [RoundLedger.model_validate(r.ledger) for r in readings if answers]
