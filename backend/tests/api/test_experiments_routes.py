"""The experiments routes offline: 404, 409 and 422 answers, each naming what was wrong."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import go_spec
from tracetax.app.runtime import EngineRuntime
from tracetax.db import repository as repo
from tracetax.spec.service import ExperimentSpec

EXPERIMENTS = "/api/v1/experiments"


def runtime(client: TestClient) -> EngineRuntime:
    engine: EngineRuntime = client.app.state.engine  # type: ignore[attr-defined]
    return engine


def stored(client: TestClient, status: str) -> str:
    """An experiment stored directly in `status` (never queued), as a finished run leaves it."""
    with runtime(client).sessions() as session:
        spec = ExperimentSpec.model_validate(go_spec()).model_dump(mode="json")
        experiment = repo.create_experiment(session, spec, "go", "stored")
        if status != "queued":
            repo.set_status(session, experiment, "running")
        if status != "running":
            repo.set_status(session, experiment, status, None if status == "completed" else f"it {status}")
        return experiment.id


def locations(response: Any) -> list[tuple[Any, ...]]:
    return [tuple(item["loc"]) for item in response.json()["detail"]]


def test_created_experiments_wait_in_fifo_order(client: TestClient) -> None:
    first = client.post(EXPERIMENTS, json=go_spec())
    second = client.post(EXPERIMENTS, json=go_spec(name="second"))
    assert first.status_code == second.status_code == 202, first.text
    assert (first.json()["queue_position"], second.json()["queue_position"]) == (1, 2)
    assert first.json()["status"] == "queued"
    assert first.json()["estimated_seconds"] > 0
    listed = {e["id"]: e["queue_position"] for e in client.get(EXPERIMENTS).json()}
    assert listed == {first.json()["id"]: 1, second.json()["id"]: 2}
    # Cancelling the first moves the second up.
    assert client.post(f"{EXPERIMENTS}/{first.json()['id']}/cancel").json()["status"] == "cancelled"
    assert client.get(f"{EXPERIMENTS}/{second.json()['id']}").json()["queue_position"] == 1


@pytest.mark.parametrize(
    "path",
    ["", "/results", "/diagnostics", "/stacks/none", "/logs", "/events"],
)
def test_unknown_experiment_is_404_naming_it(client: TestClient, path: str) -> None:
    response = client.get(f"{EXPERIMENTS}/no-such-id{path}")
    assert response.status_code == 404
    assert response.json() == {"detail": "no experiment no-such-id"}


@pytest.mark.parametrize("method_path", [("post", "/cancel"), ("post", "/ledger")])
def test_unknown_experiment_actions_are_404(client: TestClient, method_path: tuple[str, str]) -> None:
    method, path = method_path
    response = client.request(method.upper(), f"{EXPERIMENTS}/no-such-id{path}")
    assert response.status_code == 404
    assert "no-such-id" in response.json()["detail"]


@pytest.mark.parametrize("status", ["completed", "failed", "cancelled", "interrupted"])
def test_cancel_of_a_finished_experiment_is_409(client: TestClient, status: str) -> None:
    experiment_id = stored(client, status)
    response = client.post(f"{EXPERIMENTS}/{experiment_id}/cancel")
    assert response.status_code == 409
    assert response.json() == {"detail": f"experiment {experiment_id} is {status}"}


def test_cancel_twice_is_409_the_second_time(client: TestClient) -> None:
    experiment_id = client.post(EXPERIMENTS, json=go_spec()).json()["id"]
    assert client.post(f"{EXPERIMENTS}/{experiment_id}/cancel").status_code == 200
    second = client.post(f"{EXPERIMENTS}/{experiment_id}/cancel")
    assert second.status_code == 409
    assert "is cancelled" in second.json()["detail"]


@pytest.mark.parametrize("path", ["/diagnostics", "/ledger"])
def test_diagnostics_of_an_unfinished_experiment_are_409(client: TestClient, path: str) -> None:
    queued = client.post(EXPERIMENTS, json=go_spec()).json()["id"]
    running = stored(client, "running")
    for experiment_id, status in ((queued, "queued"), (running, "running")):
        method = "POST" if path == "/ledger" else "GET"
        response = client.request(method, f"{EXPERIMENTS}/{experiment_id}{path}")
        assert response.status_code == 409, response.text
        assert response.json() == {"detail": f"experiment {experiment_id} is {status}"}


def test_unknown_configuration_is_404_naming_the_ones_it_has(client: TestClient) -> None:
    experiment_id = stored(client, "failed")
    response = client.get(f"{EXPERIMENTS}/{experiment_id}/stacks/nope")
    assert response.status_code == 404
    assert "has no configuration 'nope'; it has: none, batch-default" in response.json()["detail"]


def test_mode_the_service_lacks_is_422_naming_the_field(client: TestClient) -> None:
    spec = go_spec(configurations=[{"preset": "none"}, {"name": "agent", "processor": "agent"}])
    response = client.post(EXPERIMENTS, json=spec)
    assert response.status_code == 422
    assert locations(response) == [("body", "configurations", 1, "processor")]
    assert "go has no mode 'agent'" in response.json()["detail"][0]["msg"]


def test_invalid_fields_are_422_each_named(client: TestClient) -> None:
    spec = go_spec(
        configurations=[{"preset": "none"}, {"preset": "simple", "env": {"TRACETAX_PROCESSOR": "batch"}}],
        load={"rate": -1},
        rounds=0,
    )
    response = client.post(EXPERIMENTS, json=spec)
    assert response.status_code == 422
    assert set(locations(response)) == {
        ("body", "configurations", 1, "env"),
        ("body", "load", "rate"),
        ("body", "rounds"),
    }


@pytest.mark.parametrize("preset", [{"name": "none"}, ["none"], 3, "batchy"])
def test_bad_preset_is_422_naming_it(client: TestClient, preset: Any) -> None:
    response = client.post(EXPERIMENTS, json=go_spec(configurations=[{"preset": "none"}, {"preset": preset}]))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "configurations", 1, "preset")]


def test_env_that_is_not_an_object_is_422_naming_it(client: TestClient) -> None:
    response = client.post(
        EXPERIMENTS, json=go_spec(configurations=[{"preset": "none"}, {"preset": "simple", "env": []}])
    )
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "configurations", 1, "env")]


def test_unknown_service_is_404_naming_the_available_ones(client: TestClient) -> None:
    response = client.post(EXPERIMENTS, json=go_spec(service={"kind": "demo", "language": "cobol"}))
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert detail.startswith("unknown service 'cobol'; available: ")
    assert "go" in detail


def test_events_of_a_finished_experiment_end_at_once(client: TestClient) -> None:
    experiment_id = stored(client, "interrupted")
    with client.stream("GET", f"{EXPERIMENTS}/{experiment_id}/events") as response:
        body = "".join(response.iter_text())
    assert response.status_code == 200
    assert body.count("event: progress") == 1
    assert '"phase": "finished"' in body and '"status": "interrupted"' in body


def test_trace_id_is_validated_like_every_other_field(client: TestClient) -> None:
    response = client.get("/api/v1/traces/not-hex")
    assert response.status_code == 422
    assert locations(response) == [("path", "trace_id")]
    # A well-formed id goes to Tempo, which is down here: 502 naming it, not a 500.
    down = client.get("/api/v1/traces/abc123")
    assert down.status_code == 502
    assert down.json()["detail"].startswith("tempo")


def pipeline_spec(**changes: Any) -> dict[str, Any]:
    return {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
        "load": {"spans_per_s": 1000, "duration_s": 2},
        "rounds": 1,
    } | changes


def test_a_pipeline_spec_with_bad_fields_is_422_naming_them_as_written(client: TestClient) -> None:
    spec = pipeline_spec(load={"spans_per_s": 0}, rounds=0)
    response = client.post(EXPERIMENTS, json=spec)
    assert response.status_code == 422, response.text
    # Named as in the spec: no union tag ("collector") between "body" and the field.
    assert set(locations(response)) == {("body", "load", "spans_per_s"), ("body", "rounds")}


def test_an_unknown_subject_is_422_naming_it(client: TestClient) -> None:
    response = client.post(EXPERIMENTS, json=go_spec(subject="database"))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "subject")]


def test_the_shipped_pipeline_variants_are_listed_passthrough_first(client: TestClient) -> None:
    variants = client.get("/api/v1/pipelines").json()
    names = [v["name"] for v in variants]
    assert names[0] == "passthrough"
    assert {"batch-default", "batch-tuned", "memory-limited", "groupbytrace", "tail-sampling", "loadbalancing"} <= set(
        names
    )
    balanced = next(v for v in variants if v["name"] == "loadbalancing")
    assert balanced["downstreams"] == 2 and balanced["file"] == "collector-pipelines/lab/loadbalancing.yaml"
    assert all(v["description"] and v["config"].startswith("#") for v in variants)


@pytest.mark.services
def test_an_overlay_naming_an_unknown_component_is_422_naming_file_line_and_component(
    client: TestClient, tmp_path: Any
) -> None:
    # The backend's default overlays directory: `pipeline-overlays` in its state directory.
    overlay = tmp_path / "state" / "pipeline-overlays" / "mine.yaml"
    overlay.parent.mkdir(parents=True, exist_ok=True)
    overlay.write_text(
        "# Mine: a processor type the Collector does not have.\n"
        "processors:\n"
        "  sampler9000/mine: {}\n"
        "service:\n"
        "  pipelines:\n"
        "    traces/lab:\n"
        "      processors: [sampler9000/mine]\n"
    )
    variants = [{"pipeline": "passthrough", "baseline": True}, {"name": "mine", "config_file": str(overlay)}]
    response = client.post(EXPERIMENTS, json=pipeline_spec(configurations=variants))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "configurations", 1, "config_file")]
    message = response.json()["detail"][0]["msg"]
    assert f"{overlay}:3: sampler9000/mine" in message and "unknown type" in message, message
    assert client.get(EXPERIMENTS).json() == []  # nothing queued, nothing started


def test_a_number_json_cannot_carry_is_a_422_naming_the_field(client: TestClient) -> None:
    # Python's JSON parser accepts NaN; the 422 echoing it back must still be JSON.
    body = (
        '{"service": {"kind": "demo", "language": "go"}, "configurations": [{"preset": "none"}], "load": {"rate": NaN}}'
    )
    response = client.post("/api/v1/experiments", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    assert any(item["loc"][-1] == "rate" and item["input"] == "nan" for item in response.json()["detail"])
