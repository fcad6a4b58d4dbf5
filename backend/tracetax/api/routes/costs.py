"""What a service experiment's configurations cost at the user's traffic."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status

from tracetax.api.deps import EngineDep
from tracetax.api.schemas.costs import CostQuery
from tracetax.api.schemas.errors import error_responses
from tracetax.app.costs import CostInputError, NotCostableError, experiment_cost
from tracetax.app.retention import NotFoundError
from tracetax.diagnostics.cost_report import CostReport

router = APIRouter(prefix="/api/v1/experiments", tags=["costs"])


@router.get(
    "/{experiment_id}/cost",
    response_model=CostReport,
    # 422 is FastAPI's HTTPValidationError, documented on its own; a bad input answers in that shape.
    responses=error_responses({404: "not found", 409: "not finished yet, or a pipeline experiment"}),
)
def get_cost(experiment_id: str, engine: EngineDep, query: Annotated[CostQuery, Query()]) -> CostReport:
    """Per configuration at `requests_per_s`: extra service cores, Collector cores, GB/day per
    signal and per store, and $/month by component, each with its 95% interval over the rounds,
    the inputs' sources, and what the recommended configuration costs against the baseline.
    Telemetry volume comes from the ledger readings (collect the ledger again to refresh it)."""
    try:
        return experiment_cost(engine, experiment_id, query.inputs(), query.pipeline_experiment, query.pipeline_variant)
    except NotFoundError as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    except NotCostableError as error:
        raise HTTPException(status.HTTP_409_CONFLICT, str(error)) from None
    except CostInputError as error:
        detail = [{"loc": ["query", error.field], "msg": str(error), "type": "value_error"}]
        raise HTTPException(status.HTTP_422_UNPROCESSABLE_CONTENT, detail) from None
