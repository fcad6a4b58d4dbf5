"""The tuning routes' refusals, offline (no run starts): a wall time too small for one
candidate, a launch the service has not, an unknown run."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def body(**changes: Any) -> dict[str, Any]:
    return {
        "service": {"kind": "demo", "language": "go"},
        "load": {"rate": 500, "duration_s": 10, "warmup_s": 1},
        "budgets": {"p99_overhead_pct": 10, "cpu_overhead_pct": 20},
        "wall_time_s": 1200,
    } | changes


def test_a_wall_time_too_small_names_the_field_and_the_minimum(client: TestClient) -> None:
    response = client.post("/api/v1/tunings", json=body(wall_time_s=20))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "wall_time_s"] and "at least" in item["msg"]


def test_a_launch_the_service_has_not_is_named_as_the_processor(client: TestClient) -> None:
    response = client.post("/api/v1/tunings", json=body(processor="agent"))
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "processor"]


def test_an_unknown_tuning_is_404_and_the_list_starts_empty(client: TestClient) -> None:
    assert client.get("/api/v1/tunings/nope").status_code == 404
    assert client.post("/api/v1/tunings/nope/cancel").status_code == 404
    assert client.get("/api/v1/tunings").json() == []


def test_a_concurrency_knob_the_service_lacks_is_named_as_the_tunings_field(client: TestClient) -> None:
    response = client.post("/api/v1/tunings", json=body(concurrency={"threads": 8}))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "concurrency", "threads"] and "gomaxprocs" in item["msg"]
