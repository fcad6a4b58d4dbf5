"""POST /experiments/estimate, /checks/estimate and /calibrations/estimate: the forms'
estimate from the backend's arithmetic, nothing stored; a body that does not parse is 422
naming the field as written."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.conftest import go_check, go_spec
from tracetax.spec.service import ExperimentSpec


def test_an_experiment_spec_is_estimated_as_the_queue_would_and_nothing_is_stored(client: TestClient) -> None:
    answer = client.post("/api/v1/experiments/estimate", json=go_spec(rounds=3))

    assert answer.status_code == 200, answer.text
    assert answer.json()["seconds"] == ExperimentSpec.model_validate(go_spec(rounds=3)).estimated_seconds()
    assert answer.json()["rounds"] == 3 and answer.json()["configurations"] == 2
    assert client.get("/api/v1/experiments").json() == []


def test_a_pipeline_spec_is_estimated(client: TestClient) -> None:
    pipeline = {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}],
        "load": {"spans_per_s": 1000, "duration_s": 5},
        "rounds": 2,
    }
    answer = client.post("/api/v1/experiments/estimate", json=pipeline)
    assert answer.status_code == 200, answer.text
    assert answer.json()["configurations"] == 1 and answer.json()["seconds"] > 10


def test_a_check_and_a_calibration_are_estimated_from_the_experiment_they_queue(client: TestClient) -> None:
    check = client.post("/api/v1/checks/estimate", json=go_check(rounds=2))
    calibration = client.post(
        "/api/v1/calibrations/estimate",
        json={"service": {"kind": "demo", "language": "go"}, "load": {"rate": 50, "duration_s": 5}, "rounds": 3},
    )

    assert check.status_code == 200 and calibration.status_code == 200, check.text + calibration.text
    assert (check.json()["configurations"], check.json()["rounds"]) == (2, 2)
    assert (calibration.json()["configurations"], calibration.json()["rounds"]) == (2, 3)


def test_a_spec_that_does_not_parse_is_422_naming_the_field_as_written(client: TestClient) -> None:
    answer = client.post("/api/v1/experiments/estimate", json=go_spec(rounds=0))
    assert answer.status_code == 422
    assert [item["loc"] for item in answer.json()["detail"]] == [["body", "rounds"]]
