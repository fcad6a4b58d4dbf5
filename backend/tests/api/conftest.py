"""The app offline: a temporary database (SQLite, and PostgreSQL once more) and state
directory, every backend on a closed port, and a queue that accepts experiments but never
starts a measurement. It has an operator's token (OFFLINE_TOKEN), which the `client` sends
with every request, and answers the TestClient's host name ("testserver")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import AnyHttpUrl, SecretStr

from tracetax.core.config import Settings
from tracetax.main import create_app
from tracetax.system.ports import free_port

OFFLINE_TOKEN = "offline-token-0123456789abcdef"
TEST_HOST = "testserver"  # the Host header TestClient sends


def offline_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {OFFLINE_TOKEN}"}


def closed_url() -> AnyHttpUrl:
    return AnyHttpUrl(f"http://127.0.0.1:{free_port()}")


@pytest.fixture
def offline_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, migrated_database_url: str) -> Settings:
    # The measurement lock and anything else under the state directory stay in tmp_path.
    # The database: SQLite, and PostgreSQL once more (tests/conftest.py's `databases`).
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))
    return Settings(
        api_token=SecretStr(OFFLINE_TOKEN),
        reads_need_token=None,
        api_token_file=tmp_path / "state" / "api-token",  # where tests drop api_token
        allowed_hosts=[TEST_HOST],
        database_url=migrated_database_url,
        work_dir=tmp_path / "work",
        frontend_dist=tmp_path / "no-ui",
        tempo_url=closed_url(),
        loki_url=closed_url(),
        metrics_url=closed_url(),
        collector_health_url=closed_url(),
        collector_otlp_http_endpoint=closed_url(),
        backend_timeout_s=2,
        health_probe_timeout_s=0.5,
        ledger_settle_s=0,
    )


@pytest.fixture
def client(offline_settings: Settings) -> Iterator[TestClient]:
    # run_experiments=False: experiments are queued, positioned and cancelled like in
    # production, but none starts a measurement (no services or load generator run here).
    with TestClient(create_app(offline_settings, run_experiments=False), headers=offline_headers()) as client:
        yield client


def go_spec(**overrides: Any) -> dict[str, Any]:
    """A valid experiment on the Go demo service (its none/simple/batch modes are available
    wherever the manifest is, built or not)."""
    spec: dict[str, Any] = {
        "name": "offline",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
        "rounds": 1,
    }
    return {**spec, **overrides}


def go_check(**overrides: Any) -> dict[str, Any]:
    check: dict[str, Any] = {
        "service": {"kind": "demo", "language": "go"},
        "baseline": {"preset": "none"},
        "candidate": {"preset": "batch-default"},
        "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0},
        "budget": {"p99_overhead_pct": 10},
        "rounds": 1,
    }
    return {**check, **overrides}
