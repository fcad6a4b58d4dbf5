"""Builds the FastAPI app: the API under /api and, when built, the UI at /."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Scope

from tracetax import __version__
from tracetax.api.errors import validation_error
from tracetax.api.main import api_router
from tracetax.core.config import Settings, get_settings
from tracetax.health import Backends
from tracetax.runtime import EngineRuntime
from tracetax.submission import refuse_queued_commands
from tracetax.tunings import fail_interrupted as fail_interrupted_tunings
from tracetax.tunings import stop_all as stop_tunings


class SPAStaticFiles(StaticFiles):
    """The built UI. A path that is not a file (and not under api/) gets index.html, so the
    UI's own routes (/experiments/<id>, shared as links) load the app instead of a 404."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        try:
            return await super().get_response(path, scope)
        except HTTPException as error:
            last = path.rsplit("/", 1)[-1]
            if error.status_code != 404 or path == "api" or path.startswith("api/") or "." in last:
                raise
            return await super().get_response("index.html", scope)


def create_app(settings: Settings | None = None, *, run_experiments: bool = True) -> FastAPI:
    """The app. `run_experiments=False` keeps the queue (submit, positions, cancel) but never
    starts a measurement: for tests that exercise the API without the stack."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.backends = Backends(settings)
        runtime = EngineRuntime.create(settings)
        runtime.broker.bind(asyncio.get_running_loop())
        app.state.engine = runtime
        refuse_queued_commands(runtime)
        fail_interrupted_tunings(runtime)
        await runtime.queue.start(worker=run_experiments)
        try:
            yield
        finally:
            await asyncio.to_thread(stop_tunings)
            await runtime.queue.stop()
            runtime.dispose()
            await app.state.backends.aclose()

    app = FastAPI(
        title="TraceTax",
        version=__version__,
        description="What OpenTelemetry costs a service, measured against real backends.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.add_exception_handler(RequestValidationError, validation_error)
    app.include_router(api_router)
    if (settings.frontend_dist / "index.html").exists():
        # Registered last so /api/* always wins over the UI's files.
        app.mount("/", SPAStaticFiles(directory=settings.frontend_dist, html=True), name="ui")
    return app
