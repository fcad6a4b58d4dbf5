"""Provenance and the history gate through the API, offline: a check keeps where it came from,
its configurations' own names and its gate; an experiment keeps its provenance beside its spec
(never in it); bad provenance is a 422 naming the field."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.conftest import go_check, go_spec
from tracetax.api.schemas.checks import CheckRequest, PipelineCheckRequest

CHECKS = "/api/v1/checks"
EXPERIMENTS = "/api/v1/experiments"
PROVENANCE = {
    "repository": "acme/shop",
    "branch": "faster-export",
    "commit": "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "pull_request": "42",
    "ci_run_url": "https://github.com/acme/shop/actions/runs/1658821493",
    "ci_system": "github-actions",
}
GATE = {"branch": "main", "points": 10, "max_growth_pct": 2.5}


def test_a_check_keeps_its_provenance_names_and_gate(client: TestClient) -> None:
    created = client.post(CHECKS, json=go_check(provenance=PROVENANCE, against_history=GATE))
    assert created.status_code == 202, created.text
    status = client.get(f"{CHECKS}/{created.json()['id']}").json()
    assert status["provenance"] == PROVENANCE
    assert (status["configuration"], status["baseline_configuration"]) == ("batch-default", "none")
    assert status["against_history"] == GATE
    assert status["machine"] is None  # recorded when its experiment starts
    experiment = client.get(f"{EXPERIMENTS}/{status['experiment_id']}").json()
    assert experiment["provenance"] == PROVENANCE
    assert "provenance" not in experiment["spec"]


def test_a_check_without_provenance_has_none(client: TestClient) -> None:
    created = client.post(CHECKS, json=go_check())
    status = client.get(f"{CHECKS}/{created.json()['id']}").json()
    assert (status["provenance"], status["against_history"]) == (None, None)
    assert status["configuration"] == "batch-default"


def test_an_experiment_keeps_its_provenance_beside_its_spec(client: TestClient) -> None:
    created = client.post(EXPERIMENTS, json=go_spec(provenance={"branch": "main", "commit": "abc123"}))
    assert created.status_code == 202, created.text
    experiment = client.get(f"{EXPERIMENTS}/{created.json()['id']}").json()
    assert experiment["provenance"] == {
        "branch": "main",
        "commit": "abc123",
        "repository": None,
        "pull_request": None,
        "ci_run_url": None,
        "ci_system": None,
    }
    assert "provenance" not in experiment["spec"]
    listed = client.get(EXPERIMENTS).json()
    assert listed[0]["provenance"]["commit"] == "abc123"


def test_bad_provenance_and_gate_are_422_naming_the_field(client: TestClient) -> None:
    response = client.post(
        CHECKS, json=go_check(provenance={"commit": ""}, against_history={"branch": "main", "points": 1})
    )
    assert response.status_code == 422, response.text
    locations = {tuple(item["loc"]) for item in response.json()["detail"]}
    assert locations == {("body", "provenance", "commit"), ("body", "against_history", "points")}


def test_a_pipeline_check_keeps_its_variants_names_and_provenance() -> None:
    body: dict[str, Any] = {
        "subject": "collector",
        "baseline": {"pipeline": "passthrough"},
        "candidate": {"pipeline": "batch-default"},
        "load": {"spans_per_s": 1000, "duration_s": 2},
        "budget": {"max_lost_spans": 0},
        "provenance": {"branch": "main"},
        "against_history": {"branch": "main"},
    }
    request = PipelineCheckRequest.model_validate(body)
    origin = request.origin()
    assert (origin.configuration, origin.baseline_configuration) == ("batch-default", "passthrough")
    assert origin.against_history is not None and origin.against_history.points == 10
    assert request.experiment_spec().provenance == request.provenance


def test_a_check_samples_stacks_only_when_asked() -> None:
    # A verdict reads no stacks: a check runs as short as it can unless the differential flame
    # graph is wanted (`sample_stacks`, `tracetax check --sample-stacks`).
    body: dict[str, Any] = {
        "service": {"kind": "demo", "language": "go"},
        "baseline": {"preset": "none"},
        "candidate": {"preset": "batch-default"},
        "load": {"rate": 100, "duration_s": 2},
        "budget": {"p99_overhead_pct": 50},
    }
    assert CheckRequest.model_validate(body).experiment_spec().sample_stacks is False
    assert CheckRequest.model_validate({**body, "sample_stacks": True}).experiment_spec().sample_stacks is True
