"""GET /experiments/{id}/cost through the app/costs use case: each refusal with its status and
field (404 unknown, 409 not finished or a pipeline's, 422 naming the pipeline input), and a
finished service experiment's report."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from tests.api.conftest import go_spec
from tests.api.test_results_answers import finish, service_round, store_rounds
from tracetax.db import repository as repo
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import ExperimentSpec

EXPERIMENTS = "/api/v1/experiments"
# As stored: every default written out.
SERVICE_SPEC = ExperimentSpec.model_validate(go_spec()).model_dump(mode="json")
NAMES = [c["name"] for c in SERVICE_SPEC["configurations"]]
PIPELINE_SPEC = PipelineSpec.model_validate(
    {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}],
        "load": {"spans_per_s": 1000, "duration_s": 1},
    }
).model_dump(mode="json")


def sessions_of(client: TestClient) -> sessionmaker[Session]:
    return client.app.state.engine.sessions  # type: ignore[attr-defined,no-any-return]


def stored(client: TestClient, spec: dict[str, Any], status: str) -> str:
    with sessions_of(client)() as session:
        experiment = repo.create_experiment(session, spec, "go", "costed")
        if status != "queued":
            repo.set_status(session, experiment, "running")
        if status not in ("queued", "running"):
            repo.set_status(session, experiment, status)
        return experiment.id


def measured_round(name: str, index: int, scale: float) -> dict[str, Any]:
    measured = service_round(name, index, scale)
    measured["resources"]["isolation"] = {"open": {"flagged": False}}  # per phase, as a round stores it
    return measured


def completed_service(client: TestClient) -> str:
    rounds = [measured_round(name, i, 1 + 0.1 * j) for i in range(2) for j, name in enumerate(NAMES)]
    experiment_id, _ = store_rounds(sessions_of(client), SERVICE_SPEC, rounds)
    finish(sessions_of(client), experiment_id, {})
    return experiment_id


def test_an_unknown_experiment_is_404(client: TestClient) -> None:
    answer = client.get(f"{EXPERIMENTS}/nope/cost")
    assert answer.status_code == 404 and "nope" in answer.json()["detail"]


def test_an_unfinished_experiment_is_409(client: TestClient) -> None:
    running = stored(client, SERVICE_SPEC, "running")
    answer = client.get(f"{EXPERIMENTS}/{running}/cost")
    assert answer.status_code == 409 and "running" in answer.json()["detail"]


def test_a_pipeline_experiment_is_409_naming_where_it_goes(client: TestClient) -> None:
    pipeline = stored(client, PIPELINE_SPEC, "completed")
    answer = client.get(f"{EXPERIMENTS}/{pipeline}/cost")
    assert answer.status_code == 409 and "pipeline_experiment" in answer.json()["detail"]


def test_a_pipeline_input_that_is_not_a_completed_pipeline_is_422_naming_it(client: TestClient) -> None:
    service = completed_service(client)
    for other in (stored(client, SERVICE_SPEC, "completed"), stored(client, PIPELINE_SPEC, "failed")):
        answer = client.get(f"{EXPERIMENTS}/{service}/cost", params={"pipeline_experiment": other})
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"][0]["loc"] == ["query", "pipeline_experiment"]
    assert client.get(f"{EXPERIMENTS}/{service}/cost", params={"pipeline_experiment": "nope"}).status_code == 404


def test_an_unknown_pipeline_variant_is_422_naming_it(client: TestClient) -> None:
    service, pipeline = completed_service(client), stored(client, PIPELINE_SPEC, "completed")
    answer = client.get(
        f"{EXPERIMENTS}/{service}/cost", params={"pipeline_experiment": pipeline, "pipeline_variant": "batch"}
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["loc"] == ["query", "pipeline_variant"]
    assert "passthrough" in answer.json()["detail"][0]["msg"]


def test_a_finished_service_experiment_is_costed_per_configuration(client: TestClient) -> None:
    answer = client.get(f"{EXPERIMENTS}/{completed_service(client)}/cost", params={"requests_per_s": 250})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [c["configuration"] for c in body["configurations"]] == NAMES
    assert body["collector"]["measured"] is False  # no pipeline named: the documented figure
