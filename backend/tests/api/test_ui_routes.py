"""The backend serves the built UI, including its client-side routes (shareable links)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tracetax.core.config import Settings
from tracetax.main import create_app


async def test_client_routes_get_index_and_api_stays_api(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><div id=root></div>")
    (dist / "assets" / "app.js").write_text("console.log(1)")
    app = create_app(Settings(frontend_dist=dist, database_url=f"sqlite:///{tmp_path / 'db.sqlite'}"))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        for path in ("/", "/experiments/abc", "/experiments/new", "/stack"):
            response = await client.get(path)
            assert response.status_code == 200, path
            assert "id=root" in response.text
        assert (await client.get("/assets/app.js")).status_code == 200
        assert (await client.get("/assets/missing.js")).status_code == 404
        assert (await client.get("/api/v1/nope")).status_code == 404
        assert (await client.get("/api/health/live")).json() == {"status": "alive"}
