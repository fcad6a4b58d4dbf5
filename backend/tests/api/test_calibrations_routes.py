"""The calibration routes offline: an A/A experiment is queued and stored with its signature;
once a calibration of the same service, baseline and load has completed, a check whose
relative budget is tighter than that machine resolves is refused naming the budget field."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from tests.api.conftest import go_check
from tests.diagnostics.test_overhead import experiment as synthetic_rounds
from tracetax.db import repository as repo

CALIBRATIONS = "/api/v1/calibrations"
LOAD = {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0}


def calibration(**overrides: Any) -> dict[str, Any]:
    return {"service": {"kind": "demo", "language": "go"}, "load": LOAD, "rounds": 3} | overrides


def complete(sessions: sessionmaker[Session], experiment_id: str) -> None:
    """Store a finished A/A run: 5 rounds of synthetic but realistic latencies (p50 sd ~3%)."""
    base, again = synthetic_rounds(5, seed=3, drift=0.15)
    with sessions() as session:
        experiment = repo.get_experiment(session, experiment_id)
        assert experiment is not None
        repo.set_status(session, experiment, "running")
        slots = [(i, order, name) for i in range(5) for order, name in enumerate(("none", "again"))]
        for round_, slot in zip(repo.create_rounds(session, experiment, slots), slots, strict=True):
            sample = (base if slot[2] == "none" else again)[slot[0]]
            resources = {"cpu_per_request_us": sample.cpu_per_request_us, "rss_max_bytes": sample.rss_max_bytes}
            repo.update_round(session, round_, status="completed", histogram=sample.histogram, resources=resources)
        repo.set_status(session, experiment, "completed")


def test_a_calibration_is_an_a_a_experiment(client: TestClient) -> None:
    created = client.post(CALIBRATIONS, json=calibration())
    assert created.status_code == 202, created.text
    body = created.json()
    experiment = client.get(f"/api/v1/experiments/{body['experiment_id']}").json()
    assert experiment["configurations"] == ["none", "again"]
    status = client.get(f"{CALIBRATIONS}/{body['id']}").json()
    assert status["status"] == "queued" and status["noise_floor"] is None
    assert status["signature"]["load"]["rate"] == 100
    assert [c["id"] for c in client.get(CALIBRATIONS).json()] == [body["id"]]


def test_unknown_calibration_is_404_and_bad_rounds_422(client: TestClient) -> None:
    assert client.get(f"{CALIBRATIONS}/nope").status_code == 404
    response = client.post(CALIBRATIONS, json=calibration(rounds=1))
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "rounds"]


def test_a_budget_tighter_than_the_calibration_is_refused(client: TestClient) -> None:
    created = client.post(CALIBRATIONS, json=calibration()).json()
    complete(client.app.state.engine.sessions, created["experiment_id"])
    floor = client.get(f"{CALIBRATIONS}/{created['id']}").json()["noise_floor"]
    assert floor["p50"]["relative_pct"] > 0, floor

    check = go_check(load=LOAD, rounds=3, budget={"p50_overhead_pct": 0.1})
    refused = client.post("/api/v1/checks", json=check)
    assert refused.status_code == 422, refused.text
    detail = refused.json()["detail"][0]
    assert detail["loc"] == ["body", "budget", "p50_overhead_pct"]
    assert "rounds" in detail["msg"] and created["id"] in detail["msg"]
    # A budget the machine resolves, or another load, is accepted.
    assert (
        client.post("/api/v1/checks", json=go_check(load=LOAD, rounds=3, budget={"p50_overhead_pct": 80})).status_code
        == 202
    )
    other_load = {**LOAD, "rate": 150}
    assert (
        client.post("/api/v1/checks", json=go_check(load=other_load, budget={"p50_overhead_pct": 0.1})).status_code
        == 202
    )
