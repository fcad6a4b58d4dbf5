"""Secrets stay secret (issue 40, item 1): a spec's credential-carrying header and env values are
stored as given and answered as "***" to every read, names kept; `?reveal=true` with the token
shows them (without it, 401); a run again names the experiment it copies (`from_experiment`) and
gets the stored values filled in; a "***" with nothing to fill it is a 422 naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import go_check, go_spec
from tracetax.api.routes.experiments import progress_event
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.main import create_app

BEARER = "Bearer s3cret-bearer-value"
OTLP_HEADERS = "api-key=s3cret-otlp-value"


@pytest.fixture
def generated(offline_settings: Settings) -> Iterator[TestClient]:
    """No operator's token (`make up`): reads need none, so anyone on the machine reads."""
    settings = offline_settings.model_copy(update={"api_token": None})
    with TestClient(create_app(settings, run_experiments=False)) as client:
        yield client


def token_of(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.app.state.api_token.value()}"}  # type: ignore[attr-defined]


def runtime(client: TestClient) -> EngineRuntime:
    engine: EngineRuntime = client.app.state.engine  # type: ignore[attr-defined]
    return engine


def spec_with_secrets() -> dict[str, Any]:
    return go_spec(
        load={
            "rate": 100,
            "warmup_s": 1,
            "duration_s": 2,
            "max_throughput_s": 0,
            "headers": {"Authorization": BEARER, "Accept": "text/plain"},
        },
        configurations=[
            {"preset": "none"},
            {"preset": "batch-default", "env": {"OTEL_EXPORTER_OTLP_HEADERS": OTLP_HEADERS}},
        ],
    )


def submitted(client: TestClient, spec: dict[str, Any], **params: str) -> str:
    response = client.post("/api/v1/experiments", json=spec, params=params, headers=token_of(client))
    assert response.status_code == 202, response.text
    experiment_id: str = response.json()["id"]
    return experiment_id


def test_an_experiments_secrets_are_stars_to_a_reader_without_the_token(generated: TestClient) -> None:
    experiment_id = submitted(generated, spec_with_secrets())
    answer = generated.get(f"/api/v1/experiments/{experiment_id}")
    assert answer.status_code == 200
    spec = answer.json()["spec"]
    assert spec["load"]["headers"] == {"Authorization": "***", "Accept": "text/plain"}
    assert spec["configurations"][1]["env"]["OTEL_EXPORTER_OTLP_HEADERS"] == "***"
    assert "s3cret" not in answer.text
    # Stored as given: the run needs them.
    with runtime(generated).sessions() as session:
        stored = repo.get_experiment(session, experiment_id)
        assert stored is not None
        assert stored.spec["load"]["headers"]["Authorization"] == BEARER


def test_reveal_needs_the_token_and_then_shows_the_stored_values(generated: TestClient) -> None:
    experiment_id = submitted(generated, spec_with_secrets())
    path = f"/api/v1/experiments/{experiment_id}"
    assert generated.get(path, params={"reveal": "true"}).status_code == 401
    wrong = {"Authorization": "Bearer not-the-token"}
    assert generated.get(path, params={"reveal": "true"}, headers=wrong).status_code == 401
    answer = generated.get(path, params={"reveal": "true"}, headers=token_of(generated))
    assert answer.status_code == 200
    spec = answer.json()["spec"]
    assert spec["load"]["headers"]["Authorization"] == BEARER
    assert spec["configurations"][1]["env"]["OTEL_EXPORTER_OTLP_HEADERS"] == OTLP_HEADERS
    # With the token but without asking: still redacted.
    assert "s3cret" not in generated.get(path, headers=token_of(generated)).text


def test_a_tunings_spec_is_redacted(generated: TestClient) -> None:
    spec = {"service": {"kind": "demo", "language": "go"}, "load": spec_with_secrets()["load"]}
    spec["current_env"] = {"OTEL_EXPORTER_OTLP_HEADERS": OTLP_HEADERS}
    with runtime(generated).sessions() as session:
        tuning_id = repo.create_tuning(session, spec, "stored").id
    answer = generated.get(f"/api/v1/tunings/{tuning_id}")
    assert answer.status_code == 200
    assert answer.json()["spec"]["current_env"] == {"OTEL_EXPORTER_OTLP_HEADERS": "***"}
    assert "s3cret" not in answer.text
    revealed = generated.get(f"/api/v1/tunings/{tuning_id}", params={"reveal": "true"}, headers=token_of(generated))
    assert revealed.json()["spec"]["current_env"] == {"OTEL_EXPORTER_OTLP_HEADERS": OTLP_HEADERS}


def test_a_calibrations_signature_is_redacted(generated: TestClient) -> None:
    body = {
        "service": {"kind": "demo", "language": "go"},
        "configuration": {"preset": "none", "env": {"OTEL_EXPORTER_OTLP_HEADERS": OTLP_HEADERS}},
        "load": spec_with_secrets()["load"],
        "rounds": 2,
    }
    created = generated.post("/api/v1/calibrations", json=body, headers=token_of(generated))
    assert created.status_code == 202, created.text
    answer = generated.get(f"/api/v1/calibrations/{created.json()['id']}")
    assert answer.status_code == 200
    assert "s3cret" not in answer.text
    listed = generated.get("/api/v1/calibrations")
    assert "s3cret" not in listed.text


def test_a_run_again_from_the_redacted_answer_gets_the_stored_secrets(generated: TestClient) -> None:
    first = submitted(generated, spec_with_secrets())
    answered = generated.get(f"/api/v1/experiments/{first}").json()["spec"]
    assert answered["load"]["headers"]["Authorization"] == "***"
    again = submitted(generated, answered, from_experiment=first)
    with runtime(generated).sessions() as session:
        stored = repo.get_experiment(session, again)
        assert stored is not None
        assert stored.spec["load"]["headers"]["Authorization"] == BEARER
        assert stored.spec["configurations"][1]["env"]["OTEL_EXPORTER_OTLP_HEADERS"] == OTLP_HEADERS


def test_stars_with_nothing_to_fill_them_are_422_naming_the_field(generated: TestClient) -> None:
    first = submitted(generated, go_spec())  # no secrets stored
    redacted = spec_with_secrets()
    redacted["load"]["headers"]["Authorization"] = "***"
    redacted["configurations"][1]["env"]["OTEL_EXPORTER_OTLP_HEADERS"] = "***"
    for params in ({}, {"from_experiment": first}):
        answer = generated.post("/api/v1/experiments", json=redacted, params=params, headers=token_of(generated))
        assert answer.status_code == 422, answer.text
        assert {tuple(item["loc"]) for item in answer.json()["detail"]} == {
            ("body", "load", "headers", "Authorization"),
            ("body", "configurations", 1, "env", "OTEL_EXPORTER_OTLP_HEADERS"),
        }
        assert all("from_experiment" in item["msg"] for item in answer.json()["detail"])


def test_a_run_again_from_an_unknown_experiment_is_404(generated: TestClient) -> None:
    answer = generated.post(
        "/api/v1/experiments", json=spec_with_secrets(), params={"from_experiment": "nope"}, headers=token_of(generated)
    )
    assert answer.status_code == 404
    assert "nope" in answer.text


def test_a_check_run_again_gets_its_experiments_secrets(generated: TestClient) -> None:
    check = go_check(candidate={"preset": "batch-default", "env": {"OTEL_EXPORTER_OTLP_HEADERS": OTLP_HEADERS}})
    created = generated.post("/api/v1/checks", json=check, headers=token_of(generated))
    assert created.status_code == 202, created.text
    experiment_id = generated.get(f"/api/v1/checks/{created.json()['id']}").json()["experiment_id"]
    assert "s3cret" not in generated.get(f"/api/v1/experiments/{experiment_id}").text
    again = go_check(candidate={"preset": "batch-default", "env": {"OTEL_EXPORTER_OTLP_HEADERS": "***"}})
    refused = generated.post("/api/v1/checks", json=again, headers=token_of(generated))
    assert refused.status_code == 422
    assert [tuple(item["loc"]) for item in refused.json()["detail"]] == [
        ("body", "candidate", "env", "OTEL_EXPORTER_OTLP_HEADERS")
    ]
    accepted = generated.post(
        "/api/v1/checks", json=again, params={"from_experiment": experiment_id}, headers=token_of(generated)
    )
    assert accepted.status_code == 202, accepted.text


def test_a_422_never_echoes_a_secret(generated: TestClient) -> None:
    spec = spec_with_secrets()
    spec["configurations"][1]["env"]["OTEL_EXPORTER_OTLP_HEADERS"] = "s3cret" * 2000  # too long
    spec["load"]["headers"]["Cookie"] = "s3cret-cookie\n"  # a line break
    answer = generated.post("/api/v1/experiments", json=spec, headers=token_of(generated))
    assert answer.status_code == 422
    assert "s3cret" not in answer.text


def test_a_progress_event_is_redacted() -> None:
    event = progress_event({"phase": "round", "env": {"OTEL_EXPORTER_OTLP_HEADERS": OTLP_HEADERS}})
    assert event.data == {"phase": "round", "env": {"OTEL_EXPORTER_OTLP_HEADERS": "***"}}


def test_a_tuning_with_stars_for_a_secret_is_422_naming_it(generated: TestClient) -> None:
    tuning = {
        "service": {"kind": "demo", "language": "go"},
        "load": {"rate": 500, "duration_s": 10, "warmup_s": 1},
        "budgets": {"p99_overhead_pct": 10, "cpu_overhead_pct": 20},
        "wall_time_s": 1200,
        "current_env": {"OTEL_EXPORTER_OTLP_HEADERS": "***"},
    }
    answer = generated.post("/api/v1/tunings", json=tuning, headers=token_of(generated))
    assert answer.status_code == 422, answer.text
    assert [item["loc"] for item in answer.json()["detail"]] == [["body", "current_env", "OTEL_EXPORTER_OTLP_HEADERS"]]
