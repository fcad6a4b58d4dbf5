"""/api/health/ready: what the probes of Helm and compose ask. Ready while the experiment
queue's worker runs; 503, saying so, once it is gone (experiments would wait `queued` for good)."""

from __future__ import annotations

import asyncio

import httpx
from pydantic import SecretStr

from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.main import create_app


async def test_ready_while_the_worker_runs_and_503_once_it_is_gone(offline_settings: Settings) -> None:
    app = create_app(offline_settings)  # with its worker (no experiment is submitted)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            ready = await client.get("/api/health/ready")
            runtime: EngineRuntime = app.state.engine
            worker = runtime.queue._worker
            assert worker is not None
            worker.cancel()  # what any death of the task looks like from outside
            await asyncio.gather(worker, return_exceptions=True)
            dead = await client.get("/api/health/ready")
            live = await client.get("/api/health/live")
    assert ready.status_code == 200 and ready.json() == {"status": "ready", "detail": ""}
    assert dead.status_code == 503
    assert dead.json()["status"] == "not ready"
    assert "queue's worker has stopped" in dead.json()["detail"]
    assert live.status_code == 200  # liveness stays trivial


async def test_ready_without_a_worker_and_not_ready_while_stopping(offline_settings: Settings) -> None:
    app = create_app(offline_settings, run_experiments=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            ready = await client.get("/api/health/ready")
            app.state.engine.queue.begin_stop()
            stopping = await client.get("/api/health/ready")
    assert ready.status_code == 200
    assert stopping.status_code == 503 and stopping.json()["detail"] == "the backend is stopping"


async def test_readiness_needs_no_token(offline_settings: Settings) -> None:
    guarded = offline_settings.model_copy(update={"api_token": SecretStr("a-token-of-sixteen-chars-or-more")})
    app = create_app(guarded, run_experiments=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            response = await client.get("/api/health/ready")
    assert response.status_code == 200
