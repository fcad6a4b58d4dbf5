"""What a finished service experiment's configurations cost at the user's traffic: the use case
behind `GET /api/v1/experiments/{id}/cost`. Each experiment is loaded and its spec parsed once.

Knows nothing of HTTP: an unknown experiment raises `NotFoundError`, one that cannot be costed
(not finished, or a pipeline's) `NotCostableError`, a bad choice of pipeline `CostInputError`
naming the query field; the route turns them into 404, 409 and 422.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from tracetax.app.retention import NotFoundError
from tracetax.app.runtime import EngineRuntime
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.diagnostics import report
from tracetax.diagnostics.cost import CostInputs
from tracetax.diagnostics.cost_report import (
    CollectorFigure,
    CostReport,
    PipelineChoiceError,
    build_cost,
    collector_figure,
)
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.validation import manifest_for
from tracetax.subjects.union import parse_spec


class NotCostableError(RuntimeError):
    """The experiment is not finished, or measures a Collector pipeline (no service to cost)."""


class CostInputError(ValueError):
    """A cost input that names something unusable; `field` is the input's name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def experiment_cost(
    runtime: EngineRuntime,
    experiment_id: str,
    inputs: CostInputs,
    pipeline_experiment: str | None = None,
    pipeline_variant: str | None = None,
) -> CostReport:
    """Per configuration at the inputs' rate: extra service cores, the Collector's cores (a
    pipeline experiment's measured variant, or the documented figure), volume and $/month, and
    what the recommended configuration costs against the baseline."""
    with runtime.sessions() as session:
        experiment = _experiment(session, experiment_id)
        if experiment.status not in repo.FINAL_EXPERIMENT_STATES:
            raise NotCostableError(f"experiment {experiment_id} is {experiment.status}")
        spec = parse_spec(experiment.spec)
        if not isinstance(spec, ExperimentSpec):
            raise NotCostableError(
                f"experiment {experiment_id} measures a Collector pipeline: name it as pipeline_experiment of a "
                "service experiment's cost"
            )
        try:
            collector = _collector(session, pipeline_experiment, pipeline_variant)
        except PipelineChoiceError as error:
            raise CostInputError("pipeline_variant", str(error)) from None
        diagnostics = report.build(session, experiment, manifest_for(spec, runtime.subjects.services))
        readings = repo.ledger_readings(session, experiment_id)
        return build_cost(experiment, readings, inputs, collector, diagnostics.recommendation.start_from, spec=spec)


def _experiment(session: Session, experiment_id: str) -> Experiment:
    experiment = repo.get_experiment(session, experiment_id)
    if experiment is None:
        raise NotFoundError(f"no experiment {experiment_id}")
    return experiment


def _collector(session: Session, pipeline_experiment: str | None, variant: str | None) -> CollectorFigure:
    """The Collector's cores per 10k spans/s: the documented figure, or the variant of the named
    completed Collector pipeline experiment (PipelineChoiceError when it has no such figure)."""
    if pipeline_experiment is None:
        return collector_figure(None, None)
    pipeline = _experiment(session, pipeline_experiment)
    spec = parse_spec(pipeline.spec)
    if not isinstance(spec, PipelineSpec) or pipeline.status != "completed":
        raise CostInputError("pipeline_experiment", f"{pipeline.id} is not a completed Collector pipeline experiment")
    return collector_figure(pipeline, variant, spec=spec)
