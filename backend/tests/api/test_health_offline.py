"""/api/health when nothing answers: every dependency is reported down with a reason."""

from __future__ import annotations

import httpx
from pydantic import AnyHttpUrl

from tests.api.conftest import offline_headers
from tracetax.core.config import Settings
from tracetax.main import create_app
from tracetax.native_stack.watch import write_record
from tracetax.system.paths import state_dir


async def test_all_down_is_503_with_reasons(offline_settings: Settings) -> None:
    # A temporary database and no queue worker: never the user's own experiments.
    app = create_app(offline_settings, run_experiments=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=offline_headers()
        ) as client:
            response = await client.get("/api/health")
            live = await client.get("/api/health/live")
            # Run by a native stack whose watcher restarted the Collector twice:
            state_dir().mkdir(parents=True, exist_ok=True)
            collector = {"restarts": 2, "last_exit": "killed by SIGKILL", "last_exit_at": 1.7e9, "state": "running"}
            write_record(state_dir(), {"collector": collector, "tempo": {"restarts": 0, "state": "running"}})
            supervised = (await client.get("/api/health")).json()["supervision"]
    assert response.json()["supervision"] is None  # no native stack's watcher here
    assert supervised["watching"] is True  # this process wrote the record and runs
    restarts = {c["name"]: c for c in supervised["components"]}
    assert restarts["collector"]["restarts"] == 2 and restarts["collector"]["last_exit"] == "killed by SIGKILL"
    assert restarts["collector"]["last_exit_at"].startswith("2023-11-14T22:13:20")
    assert restarts["tempo"] == {
        "name": "tempo",
        "restarts": 0,
        "last_exit": None,
        "last_exit_at": None,
        "state": "running",
        "last_error": None,
    }
    assert live.status_code == 200
    assert response.status_code == 503
    report = response.json()
    assert report["status"] == "degraded"
    by_name = {c["name"]: c for c in report["components"]}
    assert by_name["backend"]["ready"] is True
    for name in ("tempo", "loki", "mimir", "collector"):
        assert by_name[name]["ready"] is False
        assert "ConnectError" in by_name[name]["detail"], by_name[name]


async def test_openapi_documents_health() -> None:
    app = create_app(Settings())
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        schema = (await client.get("/openapi.json")).json()
    assert "/api/health" in schema["paths"]
    assert "503" in schema["paths"]["/api/health"]["get"]["responses"]


async def test_health_shows_no_credential_of_a_store_url(offline_settings: Settings) -> None:
    """A store URL with userinfo or a token in its query is used as configured, shown without them."""
    with_credentials = {
        name: AnyHttpUrl(str(url).replace("http://", "http://reader:hunter2@").rstrip("/") + "/?token=hunter2")
        for name, url in offline_settings.model_dump(include={"tempo_url", "loki_url", "metrics_url"}).items()
    }
    settings = offline_settings.model_copy(
        update={**with_credentials, "collector_health_url": AnyHttpUrl("http://u:hunter2@127.0.0.1:9/?api_key=hunter2")}
    )
    app = create_app(settings, run_experiments=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://testserver", headers=offline_headers()
        ) as client:
            response = await client.get("/api/health")
    assert response.status_code == 503
    assert "hunter2" not in response.text and "reader" not in response.text, response.text
    by_name = {c["name"]: c for c in response.json()["components"]}
    assert by_name["tempo"]["url"] == str(with_credentials["tempo_url"]).replace("reader:hunter2@", "").replace(
        "token=hunter2", "token=***"
    )
    assert by_name["collector"]["url"] == "http://127.0.0.1:9/?api_key=***"
