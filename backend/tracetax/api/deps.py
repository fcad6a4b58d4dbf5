"""FastAPI dependencies shared by the routes."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute

from tracetax.app.retention import NotFoundError, StillActiveError
from tracetax.app.runtime import EngineRuntime
from tracetax.app.submission import QueueFullError, UnknownServiceError, with_stored_secrets
from tracetax.clients.health import Backends
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.spec.base import SpecError, SubjectSpec
from tracetax.subjects.registry import SUBJECTS


def get_backends(request: Request) -> Backends:
    backends: Backends = request.app.state.backends
    return backends


def get_app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


BackendsDep = Annotated[Backends, Depends(get_backends)]
SettingsDep = Annotated[Settings, Depends(get_app_settings)]


def get_engine(request: Request) -> EngineRuntime:
    runtime: EngineRuntime = request.app.state.engine
    return runtime


EngineDep = Annotated[EngineRuntime, Depends(get_engine)]


def load_experiment(engine: EngineRuntime, experiment_id: str) -> Experiment:
    """The stored experiment with its rounds and results, or 404 naming the id."""
    with engine.sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
    if experiment is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no experiment {experiment_id}")
    return experiment


# A run again: the experiment whose stored spec fills the secrets answered as "***".
FromExperiment = Annotated[
    str | None,
    Query(
        max_length=36,
        description='Run again: the experiment this spec was copied from. Each "***" where a secret goes '
        "(a credential-carrying header or env name, as every answer shows it) is filled with that "
        'experiment\'s stored value; without it, or with no value to fill, a "***" is 422 naming the field.',
    ),
]


def secrets_filled(engine: EngineRuntime, spec: SubjectSpec, from_experiment: str | None) -> SubjectSpec:
    """The spec with the secrets of `from_experiment` filled in (404 naming it when unknown);
    call it inside `submission_errors` (a "***" left unfilled is a SpecError)."""
    if from_experiment is None:
        return spec
    return with_stored_secrets(spec, load_experiment(engine, from_experiment).spec)


@contextmanager
def submission_errors(
    locate: Callable[[Sequence[Any]], Sequence[Any]] = lambda loc: loc,
) -> Iterator[None]:
    """An unknown demo service is 404; a spec that does not fit the service is 422 with one
    `detail` item per field, shaped like FastAPI's own validation errors; a full queue is 429.
    `locate` maps a field of the experiment spec to the request body's own (the checks route's)."""
    try:
        yield
    except UnknownServiceError as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    except QueueFullError as error:
        raise HTTPException(status.HTTP_429_TOO_MANY_REQUESTS, str(error)) from None
    except SpecError as error:
        raise HTTPException(
            status.HTTP_422_UNPROCESSABLE_CONTENT,
            [{"type": "value_error", "loc": ["body", *locate(e["loc"])], "msg": e["msg"]} for e in error.errors],
        ) from None


@contextmanager
def deletion_errors() -> Iterator[None]:
    """A DELETE of something unknown is 404; of something queued or running, 409 saying to
    cancel it first."""
    try:
        yield
    except NotFoundError as error:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(error)) from None
    except StillActiveError as error:
        raise HTTPException(status.HTTP_409_CONFLICT, str(error)) from None


def require_configuration(experiment: Experiment, configuration: str) -> None:
    """404 naming the experiment's configurations unless `configuration` is one of them."""
    names = [c["name"] for c in experiment.spec["configurations"]]
    if configuration not in names:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"experiment {experiment.id} has no configuration {configuration!r}; it has: {', '.join(names)}",
        )


class SpecRoute(APIRoute):
    """A route whose body is a spec of either subject (`subject` selects it). Pydantic puts the
    union's tag into each error's location ("body", "collector", "load", ...); the user wrote
    no such key, so the 422 names the field as it appears in the spec."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as error:
                raise RequestValidationError([_untagged(item) for item in error.errors()], body=error.body) from None

        return handle


def _untagged(item: dict[str, Any]) -> dict[str, Any]:
    loc = tuple(item.get("loc", ()))
    if len(loc) >= 2 and loc[0] == "body" and loc[1] in SUBJECTS:
        return {**item, "loc": (loc[0], *loc[2:])}
    return item
