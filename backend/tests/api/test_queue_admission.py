"""The queue's cap under parallel submissions: counting what waits and taking a place is one
step, so submissions at once never take more places than TRACETAX_MAX_QUEUE_LENGTH allows,
whatever enqueues (experiments, checks, calibrations, tunings, and a mix of them)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import go_check, go_spec, offline_headers
from tests.api.test_tunings_routes import body as tuning
from tracetax.core.config import Settings
from tracetax.lab import pipelines
from tracetax.main import create_app

CAP = 3
SUBMISSIONS = 10
EXPERIMENTS = "/api/v1/experiments"
CHECKS = "/api/v1/checks"
CALIBRATIONS = "/api/v1/calibrations"
TUNINGS = "/api/v1/tunings"


def calibration() -> dict[str, Any]:
    return {"service": {"kind": "demo", "language": "go"}, "load": go_spec()["load"], "rounds": 2}


BODIES: dict[str, Callable[[], dict[str, Any]]] = {
    EXPERIMENTS: go_spec,
    CHECKS: go_check,
    CALIBRATIONS: calibration,
    TUNINGS: tuning,
}


@pytest.fixture
def capped(offline_settings: Settings) -> Iterator[TestClient]:
    settings = offline_settings.model_copy(update={"max_queue_length": CAP})
    with TestClient(create_app(settings, run_experiments=False), headers=offline_headers()) as client:
        yield client


def post_at_once(client: TestClient, requests: list[tuple[str, dict[str, Any]]]) -> list[httpx.Response]:
    """Every request from a thread of its own, released together."""
    start = threading.Barrier(len(requests))

    def post(request: tuple[str, dict[str, Any]]) -> httpx.Response:
        start.wait()
        return client.post(request[0], json=request[1])

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(post, requests))


def waiting(client: TestClient) -> int:
    queued = [e for e in client.get(EXPERIMENTS, params={"limit": 1000}).json() if e["status"] == "queued"]
    pending = [t for t in client.get(TUNINGS).json() if t["status"] == "queued"]
    return len(queued) + len(pending)


@pytest.mark.parametrize("url", list(BODIES))
def test_parallel_submissions_take_exactly_the_places_the_cap_allows(capped: TestClient, url: str) -> None:
    responses = post_at_once(capped, [(url, BODIES[url]()) for _ in range(SUBMISSIONS)])
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [202] * CAP + [429] * (SUBMISSIONS - CAP), [r.text for r in responses]
    if url == TUNINGS:
        # Each tuning's first rung takes the tuning's place when its thread queues it.
        deadline = time.monotonic() + 10
        while len(capped.get(EXPERIMENTS).json()) < CAP and time.monotonic() < deadline:
            time.sleep(0.05)
    assert waiting(capped) == CAP


def test_a_mix_of_parallel_submissions_takes_exactly_the_cap(capped: TestClient) -> None:
    requests = [(url, make()) for url, make in BODIES.items() for _ in range(3)]
    responses = post_at_once(capped, requests)
    assert sum(response.status_code == 202 for response in responses) == CAP, [r.text for r in responses]
    assert all(response.status_code in (202, 429) for response in responses), [r.text for r in responses]


def pipeline_spec(variants: int) -> dict[str, Any]:
    configurations = [
        {"name": f"v{n}", "pipeline": "batch-tuned", "settings": {"LAB_X": str(n)}} for n in range(variants)
    ]
    configurations[0]["baseline"] = True
    return {"subject": "collector", "configurations": configurations, "load": {"spans_per_s": 100, "duration_s": 1}}


def pipeline_check() -> dict[str, Any]:
    return {
        "subject": "collector",
        "baseline": {"pipeline": "batch-tuned"},
        "candidate": {"pipeline": "memory-limited"},
        "load": {"spans_per_s": 100, "duration_s": 1},
        "budget": {"cores_per_10k_overhead_pct": 10},
    }


def test_a_full_queue_refuses_a_pipeline_spec_before_any_collector_validation(
    capped: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(CAP):
        assert capped.post(EXPERIMENTS, json=go_spec()).status_code == 202
    validations: list[object] = []
    monkeypatch.setattr(pipelines, "validate", lambda *args, **kwargs: validations.append(args))
    for url, body in ((EXPERIMENTS, pipeline_spec(12)), (CHECKS, pipeline_check())):
        response = capped.post(url, json=body)
        assert response.status_code == 429, response.text
    assert validations == []
