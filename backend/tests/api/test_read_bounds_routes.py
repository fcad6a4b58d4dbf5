"""Reads cannot hold the machine (issue 40, item 3), offline: the diagnostics' bootstrap is
computed once per experiment whatever the CPU budget asked, the checks list is bounded, reads
that compute and event streams are bounded in number at once (429 with Retry-After) and
refused from other sites' pages (403), and a non-finite query number is a 422 naming it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import HTTPException
from fastapi.testclient import TestClient

from tests.api.conftest import go_spec, offline_headers
from tests.api.test_results_answers import finish, pipeline_round, service_round, store_rounds
from tracetax.api.routes import experiments as experiment_routes
from tracetax.core.config import Settings
from tracetax.diagnostics import pipeline, report
from tracetax.engine.aggregate import RoundData
from tracetax.main import create_app
from tracetax.spec.collector import PipelineSpec
from tracetax.subjects.collector.aggregate import aggregate_variant
from tracetax.subjects.service.aggregate import aggregate
from tracetax.subjects.union import parse_spec

EXPERIMENTS = "/api/v1/experiments"
CHECKS = "/api/v1/checks"


@pytest.fixture
def bounded(offline_settings: Settings, request: pytest.FixtureRequest) -> Iterator[TestClient]:
    settings = offline_settings.model_copy(update=request.param)
    with TestClient(create_app(settings, run_experiments=False), headers=offline_headers()) as client:
        yield client


def finished_experiment(client: TestClient) -> str:
    """A completed experiment of go_spec's two configurations, two rounds each."""
    sessions = client.app.state.engine.sessions  # type: ignore[attr-defined]
    spec = parse_spec(go_spec(rounds=2)).model_dump(mode="json")
    names = [configuration["name"] for configuration in spec["configurations"]]
    rounds = [service_round(name, i, 1 + 0.1 * j) for i in range(2) for j, name in enumerate(names)]
    for round_ in rounds:  # isolation as the engine records it: by measured phase
        round_["resources"]["isolation"] = {"open": {"flagged": False}}
    experiment_id, stored = store_rounds(sessions, spec, rounds)
    data = [RoundData(r.configuration, r.round_index, "completed", r.histogram, r.figures, r.resources) for r in stored]
    finish(sessions, experiment_id, aggregate(names, data, dict.fromkeys(names)))
    return experiment_id


# -- the diagnostics' bootstrap, once per experiment ------------------------------------------


def test_a_new_cpu_budget_costs_no_new_bootstrap(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "_CACHE", {})
    builds: list[str] = []
    build = report._build

    def counted(experiment: Any, *args: Any) -> Any:
        builds.append(experiment.id)
        return build(experiment, *args)

    monkeypatch.setattr(report, "_build", counted)
    experiment_id = finished_experiment(client)
    answers = [
        client.get(f"{EXPERIMENTS}/{experiment_id}/diagnostics", params={"cpu_budget_pct": budget})
        for budget in (10, 5, 7.5, 12.25, 5)
    ]
    assert [answer.status_code for answer in answers] == [200] * 5, answers[-1].text
    assert builds == [experiment_id]
    # The budget still applies: the answer at the default is the one without a budget.
    plain = client.get(f"{EXPERIMENTS}/{experiment_id}/diagnostics").json()
    assert plain == answers[0].json() and builds == [experiment_id]


def test_a_new_target_span_rate_costs_no_new_bootstrap(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "_CACHE", {})
    builds: list[str] = []
    build = pipeline.build_pipeline

    def counted(experiment: Any, *args: Any, **kwargs: Any) -> Any:
        builds.append(experiment.id)
        return build(experiment, *args, **kwargs)

    monkeypatch.setattr(pipeline, "build_pipeline", counted)
    sessions = client.app.state.engine.sessions  # type: ignore[attr-defined]
    names = ("batch-default", "batch-tuned")
    spec = PipelineSpec.model_validate(
        {
            "subject": "collector",
            "configurations": [{"pipeline": names[0], "baseline": True}, {"pipeline": names[1]}],
            "load": {"spans_per_s": 1000, "duration_s": 2},
            "rounds": 2,
        }
    ).model_dump(mode="json")
    rounds = [pipeline_round(name, i, stored_ledger=True) for i in range(2) for name in names]
    experiment_id, stored = store_rounds(sessions, spec, rounds)
    data = [RoundData(r.configuration, r.round_index, "completed", None, r.figures, r.resources) for r in stored]
    finish(sessions, experiment_id, {n: aggregate_variant(n, [d for d in data if d.configuration == n]) for n in names})
    targets = [None, 5000, 20_000, 5000]
    answers = [
        client.get(f"{EXPERIMENTS}/{experiment_id}/diagnostics", params={"target_spans_per_s": t} if t else {})
        for t in targets
    ]
    assert [answer.status_code for answer in answers] == [200] * 4, answers[-1].text
    assert builds == [experiment_id]
    sized = [answer.json()["recommendation"]["target_spans_per_s"] for answer in answers]
    assert sized == [1000, 5000, 20_000, 5000]


# -- non-finite query numbers ----------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "Infinity"])
@pytest.mark.parametrize(
    ("path", "parameter"),
    [("diagnostics", "cpu_budget_pct"), ("diagnostics", "target_spans_per_s"), ("stacks/none", "min_share")],
)
def test_a_non_finite_query_number_is_a_422_naming_it(
    client: TestClient, path: str, parameter: str, value: str
) -> None:
    experiment_id = finished_experiment(client)
    answer = client.get(f"{EXPERIMENTS}/{experiment_id}/{path}", params={parameter: value})
    assert answer.status_code == 422, answer.text
    assert [item["loc"] for item in answer.json()["detail"]] == [["query", parameter]]


# -- the checks list --------------------------------------------------------------------------


def test_the_checks_list_answers_at_most_100(client: TestClient) -> None:
    answer = client.get(CHECKS, params={"limit": 500})
    assert answer.status_code == 422, answer.text
    assert [item["loc"] for item in answer.json()["detail"]] == [["query", "limit"]]
    assert client.get(CHECKS, params={"limit": 100}).status_code == 200


# -- other sites' pages ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}, {"Origin": "null"}],
)
@pytest.mark.parametrize("path", ["/api/v1/experiments/x/diagnostics", "/api/v1/experiments/x/events", CHECKS])
def test_a_heavy_read_from_another_sites_page_is_a_403(client: TestClient, path: str, headers: dict[str, str]) -> None:
    answer = client.get(path, headers=headers)
    assert answer.status_code == 403, answer.text
    assert "other sites" in answer.json()["detail"]


@pytest.mark.parametrize(
    "headers", [{}, {"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}, {"Origin": "http://testserver"}]
)
def test_a_heavy_read_from_the_backends_own_pages_or_a_tool_is_answered(
    client: TestClient, headers: dict[str, str]
) -> None:
    assert client.get(CHECKS, headers=headers).status_code == 200
    assert client.get(f"{EXPERIMENTS}/nope/diagnostics", headers=headers).status_code == 404


def test_a_badge_may_be_shown_on_another_sites_page(client: TestClient) -> None:
    answer = client.get("/api/v1/badges/go/batch.svg", headers={"Sec-Fetch-Site": "cross-site"})
    assert answer.status_code != 403, answer.text


# -- how many at once --------------------------------------------------------------------------


class Held:
    """experiments.load_experiment, held until released: a heavy read or an event stream in
    progress."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()

    def __call__(self, engine: Any, experiment_id: str) -> Any:
        self.entered.set()
        self.release.wait(30)
        raise HTTPException(404, f"no experiment {experiment_id}")


def hold(client: TestClient, monkeypatch: pytest.MonkeyPatch, path: str) -> tuple[Held, Callable[[], int]]:
    """Start GET `path` in a thread, held inside its route; returns the hold and a join that
    gives the held request's status."""
    held = Held()
    monkeypatch.setattr(experiment_routes, "load_experiment", held)
    answers: list[int] = []
    thread = threading.Thread(target=lambda: answers.append(client.get(path).status_code), daemon=True)
    thread.start()
    assert held.entered.wait(30)

    def join() -> int:
        held.release.set()
        thread.join(30)
        return answers[0]

    return held, join


@pytest.mark.parametrize("bounded", [{"max_heavy_reads": 1}], indirect=True)
def test_heavy_reads_past_the_limit_are_a_429_with_retry_after(
    bounded: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, join = hold(bounded, monkeypatch, f"{EXPERIMENTS}/x/diagnostics")
    refused = bounded.get(CHECKS)
    assert refused.status_code == 429, refused.text
    assert refused.headers["Retry-After"] == "2" and "TRACETAX_MAX_HEAVY_READS" in refused.json()["detail"]
    # Light reads are not counted.
    assert bounded.get("/api/v1/presets").status_code == 200
    assert join() == 404
    assert bounded.get(CHECKS).status_code == 200


@pytest.mark.parametrize("bounded", [{"max_event_streams": 1}], indirect=True)
def test_event_streams_past_the_limit_are_a_429_with_retry_after(
    bounded: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = experiment_routes.load_experiment
    _, join = hold(bounded, monkeypatch, f"{EXPERIMENTS}/x/events")
    refused = bounded.get(f"{EXPERIMENTS}/y/events")
    assert refused.status_code == 429, refused.text
    assert refused.headers["Retry-After"] == "15" and "TRACETAX_MAX_EVENT_STREAMS" in refused.json()["detail"]
    assert join() == 404
    # The stream closed: its place is free again (404: the experiment is unknown).
    monkeypatch.setattr(experiment_routes, "load_experiment", original)
    assert bounded.get(f"{EXPERIMENTS}/y/events").status_code == 404
