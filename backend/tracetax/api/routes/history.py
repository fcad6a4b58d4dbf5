"""A service's history of checks: one configuration's series of paired overheads per commit with
its change points, and a service's summary of its configurations.

Plain `def` routes (FastAPI's threadpool): a check read for the first time since it finished
has its snapshot computed from its rounds, which blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status

from tracetax.api.deps import EngineDep
from tracetax.api.schemas.errors import error_responses
from tracetax.api.schemas.history import HistorySeries, ServiceHistory
from tracetax.app import history
from tracetax.app.history import UnknownMetricError, history_metrics

router = APIRouter(prefix="/api/v1/history", tags=["history"])

# The API's description names the metrics of the subjects registered when it is built.
METRIC_HELP = f"One of: {', '.join(history_metrics())}."
NAME = {"min_length": 1, "max_length": 512}


@contextmanager
def history_errors() -> Iterator[None]:
    """No such history: 404 naming the field; an unknown metric: 422 naming the allowed ones."""
    try:
        yield
    except history.NoHistoryError as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    except UnknownMetricError as error:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            [{"type": "value_error", "loc": ["query", "metric"], "msg": str(error)}],
        ) from None


@router.get(
    "",
    response_model=HistorySeries,
    responses=error_responses({404: "no completed check of that service, configuration, branch or machine"}),
)
def get_history(
    engine: EngineDep,
    service: Annotated[str, Query(description="A demo's language, a command service's service_name.", **NAME)],
    configuration: Annotated[str, Query(description="The candidate configuration's own name.", **NAME)],
    metric: Annotated[str, Query(description=METRIC_HELP, max_length=64)] = "cpu_per_request_us",
    branch: Annotated[str | None, Query(description="Only the checks of this branch.", **NAME)] = None,
    machine: Annotated[
        str | None, Query(description="Only the checks run on this machine fingerprint.", **NAME)
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000, description="The newest N checks (answered oldest first).")] = 100,
    min_shift_pct: Annotated[
        float | None,
        Query(
            ge=0,
            le=1000,
            allow_inf_nan=False,
            description="The relative size below which a change point is too small to matter (points of % for an "
            "overhead, else % of the level before it); the metric's default when absent.",
        ),
    ] = None,
) -> HistorySeries:
    """The series of one metric over a configuration's checks, oldest first: per check its commit,
    branch, machine, verdict and the overhead's estimate with its 95% interval (None where not
    measured), the change points found in it (ruptures, judged against the points' intervals),
    and the latest check's budget line for the metric."""
    with history_errors(), engine.sessions() as session:
        series = history.history_series(
            session, engine.subjects, service, configuration, metric, branch, machine, limit, min_shift_pct
        )
    return HistorySeries.model_validate(series)


@router.get(
    "/services/{service}",
    response_model=ServiceHistory,
    responses=error_responses({404: "no check of that service"}),
)
def get_service_history(
    service: str,
    engine: EngineDep,
    branch: Annotated[str | None, Query(description="Only the checks of this branch.", **NAME)] = None,
    points: Annotated[int, Query(ge=2, le=200, description="How many recent checks make each trend.")] = 20,
) -> ServiceHistory:
    """Each configuration of the service checked: its latest overhead per metric, the recent
    trend of estimates and the number of change points in it."""
    with history_errors(), engine.sessions() as session:
        summary = history.service_history(session, engine.subjects, service, branch, points)
    return ServiceHistory.model_validate(summary)
