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
    response = bounded.post(TUNINGS, json=tuning(load={"rate": 500, "duration_s": 10, "side_by_side_s": 0}))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "wall_time_s"] and "last rung" in item["msg"], item["msg"]


# -- every phase, the side-by-side phase and its instances included (issue 40, item 2) ------

# The spec: accepted before (202, about 7,239 s), its side-by-side phase 360 million
# requests for each of the 4 instances of each configuration.
SIDE_BY_SIDE_FLOOD = {"rate": 100_000, "duration_s": 1, "side_by_side_s": 3600, "side_by_side_instances": 4}


def test_the_side_by_side_phase_counts_against_the_phase_cap_every_instance_included(client: TestClient) -> None:
    response = client.post(EXPERIMENTS, json=go_spec(load=SIDE_BY_SIDE_FLOOD))
    assert response.status_code == 422, response.text
    items = {tuple(item["loc"]): item["msg"] for item in response.json()["detail"]}
    phase = items[("body", "load", "side_by_side_s")]
    assert "TRACETAX_MAX_PHASE_REQUESTS" in phase and "2,880,000,000 requests" in phase, phase
    assert "8 loads (2 configurations x 4 instances" in phase, phase
    # Eight loads at 100,000/s at once: past what one load may send.
    assert "800,000 requests/s together" in items[("body", "load", "side_by_side_instances")]
    assert "TRACETAX_MAX_EXPERIMENT_REQUESTS" in items[("body", "rounds")]
    assert client.get(EXPERIMENTS).json() == []


def test_the_side_by_side_phases_loads_together_are_bounded_by_one_loads_rate(client: TestClient) -> None:
    # 30,000/s for 1 s is far within every request cap; 2 configurations x 2 instances send 120,000/s.
    load = {"rate": 30_000, "warmup_s": 0, "duration_s": 1, "max_throughput_s": 0, "side_by_side_instances": 2}
    response = client.post(EXPERIMENTS, json=go_spec(load=load, sample_stacks=False))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "load", "side_by_side_instances"] and "120,000 requests/s" in item["msg"]
    # Measured one at a time, the same load is accepted.
    alone = client.post(EXPERIMENTS, json=go_spec(load=load | {"side_by_side_s": 0}, sample_stacks=False))
    assert alone.status_code == 202, alone.text


@pytest.mark.parametrize("bounded", [{"max_experiment_requests": 10_000}], indirect=True)
def test_the_whole_experiments_requests_are_bounded_by_their_own_setting(bounded: TestClient) -> None:
    # A round of go_spec: 2 configurations x 800 requests alone (warm-up, measured phase and
    # stacks at 100/s), and 2 x 300 side by side (its warm-up and window as long as the solo's).
    response = bounded.post(EXPERIMENTS, json=go_spec(rounds=5))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "rounds"], item
    assert "TRACETAX_MAX_EXPERIMENT_REQUESTS" in item["msg"] and "11,000 requests" in item["msg"], item["msg"]
    assert bounded.post(EXPERIMENTS, json=go_spec(rounds=4)).status_code == 202


@pytest.mark.parametrize("bounded", [{"max_experiment_requests": 10_000}], indirect=True)
def test_a_precisions_most_rounds_count_against_the_experiment_cap(bounded: TestClient) -> None:
    precision = {"metrics": ["p50"], "half_width_pct": 5, "max_wall_time_s": 3600}
    response = bounded.post(EXPERIMENTS, json=go_spec(rounds=2, precision=precision))
    assert response.status_code == 422, response.text
    assert locations(response) == [("body", "precision", "max_wall_time_s")]


def test_the_estimate_on_submission_counts_the_side_by_side_phase(client: TestClient) -> None:
    # Each configuration: start 3, warm-up 1, measure 2, stacks 5, stop 2 (13 s); side by side:
    # start 3, warm-up 1, 30 s, stop 2, settle 2.5 (38.5 s).
    response = client.post(EXPERIMENTS, json=go_spec(load=go_spec()["load"] | {"side_by_side_s": 30}))
    assert response.status_code == 202, response.text
    assert response.json()["estimated_seconds"] == pytest.approx(2 * 13 + 38.5)


@pytest.mark.parametrize(
    ("url", "body"),
    [
        (CHECKS, go_check(load=SIDE_BY_SIDE_FLOOD)),
        (CALIBRATIONS, {"service": {"kind": "demo", "language": "go"}, "load": SIDE_BY_SIDE_FLOOD, "rounds": 2}),
    ],
)
def test_checks_and_calibrations_count_the_side_by_side_phase(client: TestClient, url: str, body: Any) -> None:
    response = client.post(url, json=body)
    assert response.status_code == 422, response.text
    assert ("body", "load", "side_by_side_s") in locations(response), response.text
    assert client.get(url).json() == [] and client.get(EXPERIMENTS).json() == []


def test_a_tunings_largest_rung_counts_its_side_by_side_phase(client: TestClient) -> None:
    # A rung may run 6 candidates beside the 2 references, 4 instances each, at 5,000/s: 160,000/s.
    load = {"rate": 5000, "duration_s": 10, "warmup_s": 1, "side_by_side_instances": 4}
    response = client.post(TUNINGS, json=tuning(load=load))
    assert response.status_code == 422, response.text
    assert ("body", "load", "side_by_side_instances") in locations(response), response.text
    assert client.get(TUNINGS).json() == []


def pipeline(load: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {
        "subject": "collector",
        "configurations": [{"pipeline": "passthrough", "baseline": True}, {"pipeline": "batch-default"}],
        "load": load,
    } | changes


def test_a_pipelines_side_by_side_phase_counts_against_the_span_cap(client: TestClient) -> None:
    load = {"spans_per_s": 600_000, "duration_s": 5, "side_by_side_s": 3600}
    response = client.post(EXPERIMENTS, json=pipeline(load))
    assert response.status_code == 422, response.text
    items = {tuple(item["loc"]): item["msg"] for item in response.json()["detail"]}
    assert "TRACETAX_MAX_PHASE_SPANS" in items[("body", "load", "side_by_side_s")]
    assert "1,200,000 spans/s together" in items[("body", "load", "spans_per_s")]
    assert "TRACETAX_MAX_EXPERIMENT_SPANS" in items[("body", "rounds")]
    assert client.get(EXPERIMENTS).json() == []


@pytest.mark.parametrize("bounded", [{"max_phase_spans": 1_000_000}], indirect=True)
def test_a_pipelines_ramp_step_counts_against_the_span_cap(bounded: TestClient) -> None:
    # The ramp's fastest step: 10,000 x 1.5^7 spans/s, its last under its top of 200,000/s, for 10 s.
    load = {"spans_per_s": 10_000, "duration_s": 5, "side_by_side_s": 0, "ramp": {"step_s": 10}}
    response = bounded.post(EXPERIMENTS, json=pipeline(load))
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", "load", "ramp", "step_s"] and "TRACETAX_MAX_PHASE_SPANS" in item["msg"], item
    assert "about 1,708,594 spans" in item["msg"], item["msg"]


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
