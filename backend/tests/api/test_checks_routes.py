"""The checks routes offline: queued through the same validation as experiments, 404 for an
unknown service, 422 naming the check's own fields, and no verdict before the run ends."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import go_check

CHECKS = "/api/v1/checks"


def locations(response: Any) -> list[tuple[Any, ...]]:
    return [tuple(item["loc"]) for item in response.json()["detail"]]


def test_check_is_queued_and_has_no_verdict_yet(client: TestClient) -> None:
    created = client.post(CHECKS, json=go_check())
    assert created.status_code == 202, created.text
    check = created.json()
    assert check["status"] == "queued" and check["queue_position"] == 1
    status = client.get(f"{CHECKS}/{check['id']}").json()
    assert status["experiment_id"] == check["experiment_id"]
    assert status["status"] == "queued"
    assert status["verdict"] is None
    assert status["overall"] is None  # no verdict yet: no overall one either
    assert status["budget"]["p99_overhead_pct"] == 10
    junit = client.get(f"{CHECKS}/{check['id']}", params={"format": "junit"})
    assert junit.status_code == 409
    assert junit.json() == {"detail": f"check {check['id']} is queued: no verdict yet"}
    assert [c["id"] for c in client.get(CHECKS).json()] == [check["id"]]
    # Its experiment is an ordinary one: baseline and candidate under fixed names.
    experiment = client.get(f"/api/v1/experiments/{check['experiment_id']}").json()
    assert experiment["configurations"] == ["baseline", "candidate"]
    assert experiment["baseline"] == "baseline"


def test_cancelled_check_experiment_gives_an_error_verdict(client: TestClient) -> None:
    check = client.post(CHECKS, json=go_check()).json()
    client.post(f"/api/v1/experiments/{check['experiment_id']}/cancel")
    status = client.get(f"{CHECKS}/{check['id']}").json()
    assert status["status"] == "cancelled"
    assert status["verdict"]["verdict"] == "error"
    assert status["overall"] == "error"
    assert "cancelled" in status["error"]
    junit = client.get(f"{CHECKS}/{check['id']}", params={"format": "junit"})
    assert junit.status_code == 200
    assert junit.headers["content-type"].startswith("application/xml")


def test_unknown_check_is_404(client: TestClient) -> None:
    response = client.get(f"{CHECKS}/no-such-check")
    assert response.status_code == 404
    assert response.json() == {"detail": "no check no-such-check"}


def test_unknown_service_is_404(client: TestClient) -> None:
    response = client.post(CHECKS, json=go_check(service={"kind": "demo", "language": "cobol"}))
    assert response.status_code == 404
    assert response.json()["detail"].startswith("unknown service 'cobol'; available: ")


@pytest.mark.parametrize("preset", [{"a": 1}, ["none"], "batchy"])
def test_bad_preset_is_422_naming_the_side(client: TestClient, preset: Any) -> None:
    response = client.post(CHECKS, json=go_check(candidate={"preset": preset}))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "candidate", "preset")]


def test_mode_the_service_lacks_is_422_naming_the_checks_field(client: TestClient) -> None:
    response = client.post(CHECKS, json=go_check(baseline={"name": "agent", "processor": "agent"}))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "baseline", "processor")]
    assert "go has no mode 'agent'" in response.json()["detail"][0]["msg"]


def test_a_wall_time_shorter_than_the_rounds_is_422_naming_the_checks_field(client: TestClient) -> None:
    # Found by schemathesis: the check's experiment refused it, and the route answered 500.
    response = client.post(CHECKS, json=go_check(max_wall_time_s=1, rounds=3))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["msg"].startswith("Value error, max_wall_time_s (1 s) is less than the estimated time"), item


def pipeline_check(**changes: Any) -> dict[str, Any]:
    return {
        "subject": "collector",
        "baseline": {"pipeline": "passthrough"},
        "candidate": {"pipeline": "batch-default"},
        "load": {"spans_per_s": 1000, "duration_s": 2},
        "budget": {"cores_per_10k_overhead_pct": 20},
        "rounds": 2,
    } | changes


def test_a_pipeline_check_refuses_a_service_budget_naming_it(client: TestClient) -> None:
    response = client.post(CHECKS, json=pipeline_check(budget={"p99_overhead_pct": 10}))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "budget")]
    assert "p99_overhead_pct does not apply to a check of a Collector pipeline" in response.json()["detail"][0]["msg"]


def test_a_service_check_refuses_a_pipeline_budget_naming_it(client: TestClient) -> None:
    response = client.post(CHECKS, json=go_check(budget={"max_lost_spans": 0}))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "budget")]


@pytest.mark.services
def test_a_pipeline_check_is_queued_with_its_experiment(client: TestClient) -> None:
    created = client.post(CHECKS, json=pipeline_check())
    assert created.status_code == 202, created.text
    experiment = client.get(f"/api/v1/experiments/{created.json()['experiment_id']}").json()
    assert experiment["spec"]["subject"] == "collector"
    assert experiment["configurations"] == ["baseline", "candidate"]
