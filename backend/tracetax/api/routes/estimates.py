"""How long a spec, a check or a calibration would take, before it is submitted: the forms'
estimate, from the backend's own arithmetic (spec/estimate.py). Parsing only: nothing is
validated against the catalog, stored or queued; a body that does not parse is 422 naming the
field, as its submission would be."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body

from tracetax.api.deps import SpecRoute, submission_errors
from tracetax.api.schemas.calibrations import CalibrationRequest
from tracetax.api.schemas.checks import CheckBody, field_of
from tracetax.api.schemas.errors import error_responses
from tracetax.spec.estimate import SpecEstimate, estimate_of
from tracetax.subjects.union import SpecBody

# SpecRoute: a body of either subject; its 422s name fields as written.
router = APIRouter(prefix="/api/v1", tags=["estimates"], route_class=SpecRoute)


# A body that is not JSON is a 400, as on every POST that takes one.
NOT_JSON = error_responses({400: "the body is not UTF-8 JSON"})


@router.post("/experiments/estimate", response_model=SpecEstimate, responses=NOT_JSON)
def estimate_experiment(spec: Annotated[SpecBody, Body()]) -> SpecEstimate:
    """The estimated wall time of an experiment spec (the body of `POST /experiments`), and how
    it adds up: rounds x (configurations x one run + the side-by-side phase)."""
    return estimate_of(spec)


@router.post("/checks/estimate", response_model=SpecEstimate, responses=NOT_JSON)
def estimate_check(request: CheckBody) -> SpecEstimate:
    """The estimated wall time of a check's experiment (the body of `POST /checks`)."""
    with submission_errors(field_of):
        return estimate_of(request.experiment_spec())


@router.post("/calibrations/estimate", response_model=SpecEstimate, responses=NOT_JSON)
def estimate_calibration(request: CalibrationRequest) -> SpecEstimate:
    """The estimated wall time of a calibration's A/A experiment (the body of `POST /calibrations`)."""
    with submission_errors():
        return estimate_of(request.experiment_spec())
