"""Experiments: create (queued), list, get, cancel, results, live progress (SSE)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, status
from fastapi.responses import PlainTextResponse, StreamingResponse
from sqlalchemy import select

from tracetax.api.deps import EngineDep, load_experiment, require_configuration
from tracetax.api.schemas import (
    ExperimentCreated,
    ExperimentDetail,
    ExperimentResults,
    ExperimentSummary,
    RoundRaw,
    RoundSummary,
)
from tracetax.db import repository as repo
from tracetax.db.models import Experiment, LedgerReading
from tracetax.diagnostics import report, stacks
from tracetax.diagnostics.ledger import RoundLedger
from tracetax.diagnostics.report import Diagnostics
from tracetax.diagnostics.stacks import FlameGraph
from tracetax.engine.experiment import service_label
from tracetax.engine.spec import DemoServiceRef, ExperimentSpec, SpecError, validate_against_catalog
from tracetax.services.catalog import ServiceManifest

router = APIRouter(prefix="/api/v1/experiments", tags=["experiments"])


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ExperimentCreated,
    responses={404: {"description": "unknown service"}, 422: {"description": "invalid spec"}},
)
async def create_experiment(spec: ExperimentSpec, engine: EngineDep) -> ExperimentCreated:
    """Validate the spec against the service catalog and queue the experiment. One experiment
    measures at a time; the answer says where this one stands in the queue."""
    manifest = None
    if isinstance(spec.service, DemoServiceRef):
        services = engine.engine.services
        manifest = services.get(spec.service.language)
        if manifest is None:
            raise HTTPException(
                status.HTTP_404_NOT_FOUND,
                f"unknown service {spec.service.language!r}; available: {', '.join(sorted(services))}",
            )
    try:
        validate_against_catalog(spec, manifest)
    except SpecError as error:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_ENTITY,
            [{"type": "value_error", "loc": ["body", *e["loc"]], "msg": e["msg"]} for e in error.errors],
        ) from None
    with engine.sessions() as session:
        experiment = repo.create_experiment(session, spec.model_dump(mode="json"), service_label(spec), spec.name)
    position = engine.queue.submit(experiment.id)
    return ExperimentCreated(
        id=experiment.id, status=experiment.status, queue_position=position, estimated_seconds=spec.estimated_seconds()
    )


@router.get("", response_model=list[ExperimentSummary])
async def list_experiments(
    engine: EngineDep,
    service: Annotated[str | None, Query(description="Only experiments on this service (language).")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> list[ExperimentSummary]:
    with engine.sessions() as session:
        experiments = repo.list_experiments(session, service, limit)
    return [ExperimentSummary.of(e, engine.queue.position(e.id)) for e in experiments]


@router.get("/{experiment_id}", response_model=ExperimentDetail, responses={404: {"description": "not found"}})
async def get_experiment(experiment_id: str, engine: EngineDep) -> ExperimentDetail:
    experiment = load_experiment(engine, experiment_id)
    summary = ExperimentSummary.of(experiment, engine.queue.position(experiment.id))
    return ExperimentDetail(
        **summary.model_dump(),
        spec=experiment.spec,
        environment=experiment.environment,
        rounds=[RoundSummary.of(r) for r in experiment.rounds],
    )


@router.post(
    "/{experiment_id}/cancel",
    response_model=ExperimentSummary,
    responses={404: {"description": "not found"}, 409: {"description": "already finished"}},
)
async def cancel_experiment(experiment_id: str, engine: EngineDep) -> ExperimentSummary:
    """Cancel a queued or running experiment; every process its run started is stopped."""
    experiment = load_experiment(engine, experiment_id)
    if not engine.queue.cancel(experiment_id):
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")
    experiment = load_experiment(engine, experiment_id)
    return ExperimentSummary.of(experiment, engine.queue.position(experiment_id))


@router.get("/{experiment_id}/results", response_model=ExperimentResults, responses={404: {"description": "not found"}})
async def get_results(
    experiment_id: str,
    engine: EngineDep,
    raw: Annotated[bool, Query(description="Include every round's 250 ms resource samples.")] = False,
) -> ExperimentResults:
    """Aggregates per configuration (merged histograms) and every round's raw data."""
    experiment = load_experiment(engine, experiment_id)
    by_name = {result.configuration: result.aggregates for result in experiment.results}
    order = [c["name"] for c in experiment.spec["configurations"]]
    rounds = []
    for round_ in experiment.rounds:
        summary = RoundSummary.of(round_)
        rounds.append(
            RoundRaw(
                **summary.model_dump(),
                histogram=round_.histogram,
                open_phase=round_.open_phase,
                closed_phase=round_.closed_phase,
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


@router.get("/{experiment_id}/events", responses={200: {"content": {"text/event-stream": {}}}})
async def experiment_events(experiment_id: str, engine: EngineDep) -> StreamingResponse:
    """Server-sent events: phase, configuration, round, elapsed and remaining time, current
    rate and p99. Ends after the `finished` event; a finished experiment sends one at once."""
    experiment = load_experiment(engine, experiment_id)

    async def stream() -> AsyncIterator[str]:
        if experiment.status in repo.FINAL_EXPERIMENT_STATES:
            payload: dict[str, object] = {
                "experiment_id": experiment_id,
                "status": experiment.status,
                "phase": "finished",
            }
            yield f"event: progress\ndata: {json.dumps(payload)}\n\n"
            return
        if experiment.status == "queued":
            payload = {
                "experiment_id": experiment_id,
                "status": "queued",
                "phase": "queued",
                "queue_position": engine.queue.position(experiment_id),
            }
            yield f"event: progress\ndata: {json.dumps(payload)}\n\n"
        async for event in engine.broker.subscribe(experiment_id):
            yield f"event: progress\ndata: {event.model_dump_json()}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


def _manifest(engine: EngineDep, experiment: Experiment) -> ServiceManifest | None:
    spec = ExperimentSpec.model_validate(experiment.spec)
    return engine.engine.manifest_for(spec)


@router.get(
    "/{experiment_id}/diagnostics",
    response_model=Diagnostics,
    responses={404: {"description": "not found"}, 409: {"description": "not finished yet"}},
)
async def get_diagnostics(
    experiment_id: str,
    engine: EngineDep,
    cpu_budget_pct: Annotated[float, Query(gt=0, description="CPU overhead budget for the recommendation.")] = 10.0,
) -> Diagnostics:
    """Overhead against the baseline with 95% intervals, the noise floor, the span ledger of
    every round, sample trace ids and the recommended processor setting."""
    experiment = load_experiment(engine, experiment_id)
    if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")

    def compute() -> Diagnostics:
        with engine.sessions() as session:
            stored = repo.get_experiment(session, experiment_id)
            if stored is None:
                raise HTTPException(status.HTTP_404_NOT_FOUND, f"no experiment {experiment_id}")
            return report.build(session, stored, _manifest(engine, stored), cpu_budget_pct)

    return await asyncio.to_thread(compute)


@router.get(
    "/{experiment_id}/stacks/{configuration}",
    response_model=FlameGraph,
    responses={
        200: {"content": {"text/plain": {}}, "description": "the flame graph tree, or folded stacks"},
        404: {"description": "no such experiment or configuration"},
    },
)
async def get_stacks(
    experiment_id: str,
    configuration: str,
    engine: EngineDep,
    format: Annotated[
        Literal["tree", "folded"],
        Query(description="tree: the flame graph's call tree (JSON); folded: flamegraph.pl / speedscope input"),
    ] = "tree",
    min_share: Annotated[
        float, Query(ge=0, le=0.5, description="Leave out tree nodes below this share of the samples.")
    ] = 0.001,
) -> FlameGraph | PlainTextResponse:
    """The service's stack samples in the configuration's measured phases, all rounds merged."""
    experiment = load_experiment(engine, experiment_id)
    require_configuration(experiment, configuration)
    if format == "folded":
        return PlainTextResponse(stacks.folded_text(experiment.rounds, configuration))
    return await asyncio.to_thread(stacks.flame_graph, experiment.rounds, configuration, min_share)


@router.post(
    "/{experiment_id}/ledger",
    response_model=list[RoundLedger],
    responses={404: {"description": "not found"}, 409: {"description": "not finished yet"}},
)
async def recollect_ledger(experiment_id: str, engine: EngineDep) -> list[RoundLedger]:
    """Read the span ledger from Tempo, Loki, the metrics store and the Collector's counters
    again, for example after a backend that was down during collection is back."""
    experiment = load_experiment(engine, experiment_id)
    if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")
    await engine.collect_ledger(experiment_id)
    with engine.sessions() as session:
        readings = session.scalars(select(LedgerReading).where(LedgerReading.experiment_id == experiment_id))
        return [RoundLedger.model_validate(reading.ledger) for reading in readings]
