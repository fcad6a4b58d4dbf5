"""/api/v1/meta: the version, and Grafana only when it is configured."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import AnyHttpUrl

from tracetax.core.config import Settings
from tracetax.main import create_app


@pytest.mark.parametrize("grafana", [None, "http://grafana.example:3000/"])
async def test_meta_reports_grafana_when_configured(grafana: str | None, tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'db.sqlite'}",
        work_dir=tmp_path,
        api_token_file=tmp_path / "api-token",
        grafana_url=AnyHttpUrl(grafana) if grafana else None,
        grafana_tempo_datasource="Tempo",
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            meta = (await client.get("/api/v1/meta")).json()
    assert meta["version"]
    if grafana is None:
        assert meta["grafana"] is None
    else:
        assert meta["grafana"] == {
            "url": "http://grafana.example:3000",
            "tempo_datasource": "Tempo",
            "loki_datasource": "loki",
            "metrics_datasource": "prometheus",
        }
