"""What a service experiment's configurations cost at the user's traffic."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status

from tracetax.api.deps import EngineDep, load_experiment
from tracetax.api.schemas.costs import CostQuery
from tracetax.api.schemas.errors import error_responses
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.diagnostics import report
from tracetax.diagnostics.cost_report import CostReport, PipelineChoiceError, build_cost, collector_figure
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.validation import manifest_for
from tracetax.subjects.union import parse_spec

router = APIRouter(prefix="/api/v1/experiments", tags=["costs"])


def _invalid(field: str, message: str) -> HTTPException:
    return HTTPException(
        status.HTTP_422_UNPROCESSABLE_CONTENT, [{"loc": ["query", field], "msg": message, "type": "value_error"}]
    )


def _finished(engine: EngineDep, experiment_id: str) -> Experiment:
    experiment = load_experiment(engine, experiment_id)
    if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
        raise HTTPException(status.HTTP_409_CONFLICT, f"experiment {experiment_id} is {experiment.status}")
    return experiment


@router.get(
    "/{experiment_id}/cost",
    response_model=CostReport,
    # 422 is FastAPI's HTTPValidationError, documented on its own; _invalid answers in that shape.
    responses=error_responses({404: "not found", 409: "not finished yet"}),
)
def get_cost(experiment_id: str, engine: EngineDep, query: Annotated[CostQuery, Query()]) -> CostReport:
    """Per configuration at `requests_per_s`: extra service cores, Collector cores, GB/day per
    signal and per store, and $/month by component, each with its 95% interval over the rounds,
    the inputs' sources, and what the recommended configuration costs against the baseline.
    Telemetry volume comes from the ledger readings (collect the ledger again to refresh it)."""
    experiment = _finished(engine, experiment_id)
    if isinstance(parse_spec(experiment.spec), PipelineSpec):
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            f"experiment {experiment_id} measures a Collector pipeline: name it as pipeline_experiment of a "
            "service experiment's cost",
        )
    pipeline = None
    if query.pipeline_experiment is not None:
        pipeline = load_experiment(engine, query.pipeline_experiment)
        if not isinstance(parse_spec(pipeline.spec), PipelineSpec) or pipeline.status != "completed":
            raise _invalid("pipeline_experiment", f"{pipeline.id} is not a completed Collector pipeline experiment")
    try:
        collector = collector_figure(pipeline, query.pipeline_variant)
    except PipelineChoiceError as error:
        raise _invalid("pipeline_variant", str(error)) from None
    with engine.sessions() as session:
        stored = repo.get_experiment(session, experiment_id)
        if stored is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no experiment {experiment_id}")
        spec = ExperimentSpec.model_validate(stored.spec)  # a service's: a pipeline's was refused above
        diagnostics = report.build(session, stored, manifest_for(spec, engine.subjects.services))
        readings = repo.ledger_readings(session, experiment_id)
        return build_cost(stored, readings, query.inputs(), collector, diagnostics.recommendation.start_from)
