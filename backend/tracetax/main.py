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
from tracetax.api.access_log import redact_tokens_in_access_log
from tracetax.api.errors import validation_error
from tracetax.api.main import api_router
from tracetax.api.middleware import AllowedHosts, BodyLimit, HostGuard, ReadGuard, TokenGuard
from tracetax.api.redacted import RedactSecrets
from tracetax.api.shutdown import on_termination
from tracetax.app.retention import RetentionTask, Store
from tracetax.app.runtime import EngineRuntime
from tracetax.app.submission import refuse_queued_commands
from tracetax.app.tunings import fail_interrupted as fail_interrupted_tunings
from tracetax.app.tunings import stop_all as stop_tunings
from tracetax.clients.health import Backends
from tracetax.core.api_token import ApiToken
from tracetax.core.config import Settings, get_settings


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
        # The generated token exists from the first start on (and a bad token file stops it here).
        await asyncio.to_thread(api_token.value)
        app.state.backends = Backends(settings)
        runtime = EngineRuntime.create(settings)
        runtime.broker.bind(asyncio.get_running_loop())
        app.state.engine = runtime
        refuse_queued_commands(runtime)
        fail_interrupted_tunings(runtime)
        await runtime.queue.start(worker=run_experiments)
        # Deletes old experiments (settings' retention_*) at start-up and every interval.
        retention_task = RetentionTask(Store.of(runtime), settings)
        retention_task.start()

        def begin_shutdown() -> None:
            # Event streams end and the running experiment stops now, while the server drains.
            runtime.broker.close()
            runtime.queue.begin_stop()

        restore_signals = on_termination(begin_shutdown)
        try:
            yield
        finally:
            restore_signals()
            begin_shutdown()
            await asyncio.to_thread(stop_tunings)
            await retention_task.stop()
            await runtime.queue.stop(settings.shutdown_grace_s)
            runtime.dispose()
            await app.state.backends.aclose()

    app = FastAPI(
        title="TraceTax",
        version=__version__,
        description="What OpenTelemetry costs a service, measured against real backends.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    redact_tokens_in_access_log()
    api_token = ApiToken(settings)
    app.state.api_token = api_token
    # Innermost: every JSON answer, a route's or an error's, hides the spec's secrets
    # (api/redacted.py); `?reveal=true` with the token shows them.
    app.add_middleware(RedactSecrets)
    # The last added runs first: Host and Origin, then the body's size, then the token, then
    # the heavy reads' site and number, all before routing and before any body is read
    # (api/middleware.py).
    allowed = AllowedHosts(settings.host, settings.allowed_hosts)
    app.add_middleware(
        ReadGuard,
        allowed=allowed,
        max_heavy_reads=settings.max_heavy_reads,
        max_event_streams=settings.max_event_streams,
    )
    app.add_middleware(TokenGuard, token=api_token)
    app.add_middleware(BodyLimit, limit=settings.max_request_body_bytes)
    app.add_middleware(HostGuard, allowed=allowed)
    app.add_exception_handler(RequestValidationError, validation_error)
    app.include_router(api_router)
    if (settings.frontend_dist / "index.html").exists():
        # Registered last so /api/* always wins over the UI's files.
        app.mount("/", SPAStaticFiles(directory=settings.frontend_dist, html=True), name="ui")
    return app
