"""Bounded input at the API (issue 21, items 4 and 8), offline: a typo'd field is a 422 naming it
as written, NaN and Infinity are 422s naming the field, a load phase or a spec past the
operator's bounds is a 422 naming the setting, and a full queue is a 429 for whatever enqueues,
with nothing stored."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import go_check, go_spec, offline_headers
from tests.api.test_tunings_routes import body as tuning_request
from tracetax.core.config import Settings
from tracetax.main import create_app

EXPERIMENTS = "/api/v1/experiments"
CHECKS = "/api/v1/checks"
CALIBRATIONS = "/api/v1/calibrations"
TUNINGS = "/api/v1/tunings"


def locations(response: Any) -> list[tuple[Any, ...]]:
    return [tuple(item["loc"]) for item in response.json()["detail"]]


def post_text(client: TestClient, url: str, text: str) -> Any:
    """A body as written: NaN and Infinity are JavaScript's literals, which Python's JSON parser
    (and so the backend's) accepts, and which httpx's own encoder refuses to send."""
    return client.post(url, content=text, headers={"content-type": "application/json"})


# A valid tuning request, as the tunings routes' own tests write it.
tuning = tuning_request


@pytest.fixture
def bounded(offline_settings: Settings, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The offline app with the settings the test is parametrized with indirectly."""
    settings = offline_settings.model_copy(update=request.param)
    with TestClient(create_app(settings, run_experiments=False), headers=offline_headers()) as client:
        yield client


# -- a typo is named, never dropped ---------------------------------------------------------


def test_a_typo_in_the_load_is_a_422_naming_it_and_nothing_is_queued(client: TestClient) -> None:
    response = client.post(EXPERIMENTS, json=go_spec(load={"rate": 100, "duration": 600}))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "load", "duration"] and item["type"] == "extra_forbidden"
    assert client.get(EXPERIMENTS).json() == []


def test_a_typo_in_a_pipeline_spec_is_named_as_written(client: TestClient) -> None:
    body = {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
        "load": {"spans_per_s": 1000, "duration": 5},
    }
    response = client.post(EXPERIMENTS, json=body)
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "load", "duration")]


@pytest.mark.parametrize(
    ("url", "body", "location"),
    [
        (
            CHECKS,
            go_check(budget={"p99_overhead_pct": 10, "p99_overhed_pct": 5}),
            ("body", "budget", "p99_overhed_pct"),
        ),
        (CHECKS, go_check(candidate={"preset": "simple", "evn": {}}), ("body", "candidate", "evn")),
        (
            CALIBRATIONS,
            {"service": {"kind": "demo", "language": "go"}, "load": {"rate": 100}, "round": 3},
            ("body", "round"),
        ),
        (TUNINGS, tuning(wall_time=600), ("body", "wall_time")),
        (
            TUNINGS,
            tuning(budgets={"p99_overhead_pct": 10, "cpu_overhead_pct": 20, "lost": 0}),
            ("body", "budgets", "lost"),
        ),
    ],
)
def test_a_typo_in_any_request_is_a_422_naming_it(
    client: TestClient, url: str, body: dict[str, Any], location: tuple[Any, ...]
) -> None:
    response = client.post(url, json=body)
    assert response.status_code == 422, response.text
    assert location in locations(response), response.text
    assert client.get(url).json() == []


# -- NaN and Infinity ---------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", '"NaN"', '"inf"'])
def test_a_check_budget_that_is_not_finite_is_a_422_and_nothing_is_stored(client: TestClient, literal: str) -> None:
    text = json.dumps(go_check(budget={"p99_overhead_pct": "@"})).replace('"@"', literal)
    response = post_text(client, CHECKS, text)
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "budget", "p99_overhead_pct"] and item["type"] == "finite_number"
    assert client.get(CHECKS).json() == [] and client.get(EXPERIMENTS).json() == []


@pytest.mark.parametrize("literal", ["NaN", "Infinity"])
def test_a_tuning_budget_that_is_not_finite_is_a_422(client: TestClient, literal: str) -> None:
    text = json.dumps(tuning(budgets={"p99_overhead_pct": 10, "cpu_overhead_pct": "@"})).replace('"@"', literal)
    response = post_text(client, TUNINGS, text)
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "budgets", "cpu_overhead_pct")]
    assert client.get(TUNINGS).json() == []


def test_a_nan_cost_input_of_a_budget_is_named(client: TestClient) -> None:
    text = json.dumps(go_check(budget={"max_usd_per_month": 10, "cost": {"requests_per_s": "@"}})).replace('"@"', "NaN")
    response = post_text(client, CHECKS, text)
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "budget", "cost", "requests_per_s")]


# -- the operator's bounds ------------------------------------------------------------------


def test_rate_times_duration_over_the_cap_is_a_422_naming_the_field_and_the_setting(client: TestClient) -> None:
    # The default cap: 3 million requests a phase; this asks for 12 million.
    load = {"rate": 20_000, "warmup_s": 1, "duration_s": 600, "max_throughput_s": 0}
    response = client.post(EXPERIMENTS, json=go_spec(load=load))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "load", "duration_s"]
    assert "TRACETAX_MAX_PHASE_REQUESTS" in item["msg"] and "12,000,000 requests" in item["msg"], item["msg"]
    assert client.get(EXPERIMENTS).json() == []


def test_a_checks_phase_over_the_cap_is_named_in_the_check_request(client: TestClient) -> None:
    load = {"rate": 20_000, "warmup_s": 1, "duration_s": 600, "max_throughput_s": 0}
    response = client.post(CHECKS, json=go_check(load=load))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "load", "duration_s")]
    assert client.get(CHECKS).json() == []


@pytest.mark.parametrize("bounded", [{"max_spec_estimate_s": 60}], indirect=True)
def test_a_spec_longer_than_the_estimate_cap_is_a_422_naming_the_setting(bounded: TestClient) -> None:
    response = bounded.post(EXPERIMENTS, json=go_spec(rounds=5))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "rounds"] and "TRACETAX_MAX_SPEC_ESTIMATE_S" in item["msg"]
    tuned = bounded.post(TUNINGS, json=tuning())
    assert tuned.status_code == 422, tuned.text
    assert ("body", "wall_time_s") in locations(tuned)
    assert bounded.get(EXPERIMENTS).json() == [] and bounded.get(TUNINGS).json() == []


@pytest.mark.parametrize("bounded", [{"max_phase_requests": 20_000}], indirect=True)
def test_a_tunings_longest_rung_counts_against_the_phase_cap(bounded: TestClient) -> None:
    # 500 req/s for the load's 10 s is 5,000 requests; its last rung may measure ~100 s of 1200.
    response = bounded.post(TUNINGS, json=tuning())
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "wall_time_s"] and "last rung" in item["msg"], item["msg"]


# -- the queue's length ---------------------------------------------------------------------


@pytest.mark.parametrize("bounded", [{"max_queue_length": 2}], indirect=True)
def test_a_full_queue_is_a_429_for_whatever_enqueues_and_nothing_is_stored(bounded: TestClient) -> None:
    first, second = (bounded.post(EXPERIMENTS, json=go_spec()) for _ in range(2))
    assert first.status_code == second.status_code == 202, second.text
    refused = {
        EXPERIMENTS: bounded.post(EXPERIMENTS, json=go_spec()),
        CHECKS: bounded.post(CHECKS, json=go_check()),
        CALIBRATIONS: bounded.post(
            CALIBRATIONS, json={"service": {"kind": "demo", "language": "go"}, "load": go_spec()["load"], "rounds": 2}
        ),
        TUNINGS: bounded.post(TUNINGS, json=tuning()),
    }
    for url, response in refused.items():
        assert response.status_code == 429, (url, response.text)
        detail = response.json()["detail"]
        assert "the queue holds 2 experiments waiting" in detail and "TRACETAX_MAX_QUEUE_LENGTH" in detail, detail
    assert len(bounded.get(EXPERIMENTS).json()) == 2
    assert bounded.get(CHECKS).json() == bounded.get(CALIBRATIONS).json() == bounded.get(TUNINGS).json() == []
    # A place freed is a place taken.
    assert bounded.post(f"{EXPERIMENTS}/{first.json()['id']}/cancel").status_code == 200
    assert bounded.post(CHECKS, json=go_check()).status_code == 202
