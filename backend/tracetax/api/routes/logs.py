"""An experiment's recent log records, from Loki."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status

from tracetax.api.deps import BackendsDep, EngineDep, load_experiment, require_configuration
from tracetax.api.schemas.errors import error_responses
from tracetax.api.schemas.logs import ExperimentLogs, LogRecord
from tracetax.clients.base import BackendError
from tracetax.clients.readback import RUN_ID_LABEL, quoted
from tracetax.subjects.registry import subject_for
from tracetax.subjects.union import parse_spec

router = APIRouter(prefix="/api/v1/experiments", tags=["logs"])


@router.get(
    "/{experiment_id}/logs",
    response_model=ExperimentLogs,
    responses=error_responses(
        {404: "no such experiment or configuration", 409: "a Collector pipeline experiment", 502: "Loki failed"}
    ),
)
async def get_logs(
    experiment_id: str,
    engine: EngineDep,
    backends: BackendsDep,
    configuration: Annotated[str | None, Query(description="Only this configuration's rounds.")] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="Most recent records per round.")] = 20,
) -> ExperimentLogs:
    """The service's most recent log records of each round (matched by the round's run id),
    newest first."""
    # Async for the app's Loki client; the database read runs in a worker thread.
    experiment = await asyncio.to_thread(load_experiment, engine, experiment_id)
    if configuration is not None:
        require_configuration(experiment, configuration)
    spec = parse_spec(experiment.spec)
    subject = subject_for(spec)
    service_name = subject.rules.service_name(spec)
    if service_name is None:
        # A Collector pipeline: telemetrygen sends spans only; the lab Collectors' own logs are
        # in each round's work directory and, for a failed round, in its log tail.
        raise HTTPException(status.HTTP_409_CONFLICT, f"{subject.description} experiment sends no service logs")
    rounds = [r for r in experiment.rounds if configuration in (None, r.configuration)]
    queries: list[str] = []
    records: list[LogRecord] = []
    for round_ in rounds:
        if round_.started_at is None:  # never ran
            continue
        query = f"{{service_name={quoted(service_name)}}} | {RUN_ID_LABEL}={quoted(round_.run_id)}"
        queries.append(query)
        finished = round_.finished_at or datetime.now(UTC)
        try:
            streams = await backends.loki.query_range(
                query, round_.started_at - timedelta(minutes=1), finished + timedelta(minutes=1), limit=limit
            )
        except BackendError as error:
            raise HTTPException(status.HTTP_502_BAD_GATEWAY, str(error)) from None
        records += [
            LogRecord(
                timestamp_ns=entry.timestamp_ns,
                line=entry.line,
                configuration=round_.configuration,
                round=round_.round_index,
                metadata={**stream.labels, **entry.metadata},
            )
            for stream in streams
            for entry in stream.entries
        ]
    records.sort(key=lambda record: -record.timestamp_ns)
    return ExperimentLogs(experiment_id=experiment_id, queries=queries, records=records)
