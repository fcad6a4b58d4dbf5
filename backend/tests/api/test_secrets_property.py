"""No read answer ever carries a secret (issue 40, item 1): for arbitrary specs whose request
headers and env hold credential-carrying names with random values, submitted as an experiment,
a check, a calibration and a tuning, no value of a secret-named key appears in the answer of any
read route of the API (every GET the OpenAPI lists, ids filled in), whatever its status."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterator
from typing import Any

import hypothesis.strategies as st
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from tests.api.conftest import go_spec
from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.main import create_app

# Reads that ask a backend (all on closed ports here) or stream: left out, each answer waiting
# for a timeout would only slow the examples. Their answers are the backends' text or progress,
# not a spec (the SSE events go through the same redaction all the same).
ASKS_A_BACKEND_OR_STREAMS = re.compile(r"^/api/health|/traces/|/logs$|/events$")

SECRET_HEADER = st.sampled_from(
    ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token"]
) | st.from_regex(r"\AX-[A-Za-z]{1,8}-(Token|Key|Secret|Session)\Z")
SECRET_ENV = st.sampled_from(["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"]) | st.from_regex(
    r"\AOTEL_[A-Z]{1,8}_(TOKEN|API_KEY|PASSWORD|SECRET)\Z"
)
# A marker and 10+ characters: a value no answer could hold by chance (ids, times, figures).
SECRET_VALUE = st.text(alphabet=string.ascii_letters + string.digits + "=-_.:/+,", min_size=10, max_size=60).map(
    lambda text: f"sv-{text}"
)


@pytest.fixture
def generated(offline_settings: Settings) -> Iterator[TestClient]:
    """No operator's token: reads need none, as on a machine `make up` started."""
    changed = offline_settings.model_copy(update={"api_token": None, "max_queue_length": 100_000})
    with TestClient(create_app(changed, run_experiments=False)) as client:
        yield client


def token_of(client: TestClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {client.app.state.api_token.value()}"}  # type: ignore[attr-defined]


def submit(client: TestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(path, json=body, headers=token_of(client))
    assert response.status_code == 202, response.text
    answer: dict[str, Any] = response.json()
    return answer


def read_paths(client: TestClient, ids: dict[str, str]) -> list[str]:
    paths = []
    for template, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        if "get" in operations and not ASKS_A_BACKEND_OR_STREAMS.search(template):
            paths.append(re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], template))
    return paths


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    headers=st.dictionaries(SECRET_HEADER, SECRET_VALUE, min_size=1, max_size=3),
    env=st.dictionaries(SECRET_ENV, SECRET_VALUE, min_size=1, max_size=3),
)
def test_no_read_answer_carries_a_secret_value(
    generated: TestClient, headers: dict[str, str], env: dict[str, str]
) -> None:
    load = {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0, "headers": headers}
    candidate = {"preset": "batch-default", "env": env}
    service = {"kind": "demo", "language": "go"}
    experiment = submit(
        generated, "/api/v1/experiments", go_spec(load=load, configurations=[{"preset": "none"}, candidate])
    )
    check = submit(
        generated,
        "/api/v1/checks",
        {
            "service": service,
            "baseline": {"preset": "none"},
            "candidate": candidate,
            "load": load,
            "rounds": 1,
            "budget": {"p99_overhead_pct": 10},
        },
    )
    calibration = submit(
        generated,
        "/api/v1/calibrations",
        {"service": service, "configuration": {"preset": "none", "env": env}, "load": load, "rounds": 2},
    )
    engine: EngineRuntime = generated.app.state.engine  # type: ignore[attr-defined]
    with engine.sessions() as session:
        tuning = repo.create_tuning(session, {"service": service, "load": load, "current_env": env}, "property")
    ids = {
        "experiment_id": experiment["id"],
        "check_id": check["id"],
        "calibration_id": calibration["id"],
        "tuning_id": tuning.id,
        "configuration": "batch-default",
        "service": "go",
    }
    secrets = [*headers.values(), *env.values()]
    read = 0
    for path in read_paths(generated, ids):
        answer = generated.get(path)
        read += answer.status_code == 200
        for value in secrets:
            assert value not in answer.text and json.dumps(value)[1:-1] not in answer.text, (path, value)
    assert read >= 8  # the experiment, check, calibration and tuning, their lists, ... answered
    shown = generated.get(f"/api/v1/experiments/{experiment['id']}").json()["spec"]
    assert set(shown["load"]["headers"].values()) == {"***"}
