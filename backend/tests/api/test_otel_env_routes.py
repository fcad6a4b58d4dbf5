"""A spec's OTEL_* variables that point at the backend's files, code or processes are a 422
naming the variable, why, and what to do instead (issue 40; the list: tracetax/spec/otel_env.py)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.conftest import go_spec
from tests.api.test_tunings_routes import body as tuning


def with_env(env: dict[str, str]) -> dict[str, Any]:
    spec = go_spec()
    spec["configurations"] = [{"preset": "none"}, {"preset": "batch-default", "env": env}]
    return spec


def test_an_experiment_setting_one_is_a_422_naming_it_why_and_what_instead(client: TestClient) -> None:
    response = client.post("/api/v1/experiments", json=with_env({"OTEL_JAVAAGENT_CONFIGURATION_FILE": "/etc/shadow"}))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "configurations", 1, "env"]
    assert "OTEL_JAVAAGENT_CONFIGURATION_FILE may not be set by a spec" in item["msg"]
    assert "reads its settings from this file" in item["msg"] and "OTEL_* variables of their own" in item["msg"]
    assert client.get("/api/v1/experiments").json() == []


def test_a_check_and_a_tuning_refuse_them_too(client: TestClient) -> None:
    check = {
        "service": {"kind": "demo", "language": "go"},
        "baseline": {"preset": "none"},
        "candidate": {"preset": "batch-default", "env": {"OTEL_EXPORTER_OTLP_CLIENT_KEY": "/root/.ssh/id_rsa"}},
        "load": go_spec()["load"],
        "budget": {"p99_overhead_pct": 10},
    }
    response = client.post("/api/v1/checks", json=check)
    assert response.status_code == 422 and "OTEL_EXPORTER_OTLP_CLIENT_KEY" in response.text, response.text
    response = client.post("/api/v1/tunings", json=tuning(current_env={"OTEL_JAVAAGENT_EXTENSIONS": "/opt/evil/x.jar"}))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "current_env"] and "loads these jars as code" in item["msg"], item
    assert client.get("/api/v1/tunings").json() == []
