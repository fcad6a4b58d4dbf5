"""The engine through the REST API of the running backend, on real services and the real stack.

Short load phases keep this under a couple of minutes; the figures it checks are structural
(counts, monotonic percentiles, positive CPU, run ids, cleanup), not performance targets.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.stack_api import stack_client
from tracetax.demos.catalog import demo_services
from tracetax.engine.loadgen import oha_binary
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack
FINAL = {"completed", "failed", "cancelled", "interrupted"}
RATE, DURATION_S = 200, 2


def api(stack: NativeStack) -> str:
    return f"{stack.component('backend').url}/api/v1"


def go_spec(**overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "name": "engine integration",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {
            "rate": RATE,
            "warmup_s": 1,
            "duration_s": DURATION_S,
            "connections": 4,
            "max_throughput_s": 2,
            "query": {"iters": 1000, "spans": 3},
        },
        "rounds": 2,
        "seed": 1,
        # The stacks phase (5 s a slot) is the diagnostics tests' to prove, where its samples are read.
        "sample_stacks": False,
    }
    return spec | overrides


async def wait_final(http: httpx.AsyncClient, base: str, experiment_id: str, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        detail: dict[str, Any] = (await http.get(f"{base}/experiments/{experiment_id}")).json()
        if detail["status"] in FINAL:
            return detail
        await asyncio.sleep(1)
    raise AssertionError(f"experiment {experiment_id} did not finish within {timeout_s}s")


def processes_running(fragment: str) -> list[str]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if fragment in text:
            found.append(text)
    return found


@pytest.fixture(scope="module", autouse=True)
def needs_tools() -> None:
    if not oha_binary().exists():
        pytest.fail(f"the load generator is missing at {oha_binary()}: run `make tools`")
    if "go" not in demo_services():
        pytest.fail("the Go demo service is missing")


async def test_two_configurations_two_rounds_on_go(native_stack: NativeStack) -> None:
    base = api(native_stack)
    async with stack_client(native_stack, timeout=30) as http:
        # GOMAXPROCS through `concurrency` (a validated field, not an environment variable).
        configurations = [{"preset": "none"}, {"preset": "batch-default", "concurrency": {"gomaxprocs": 3}}]
        created = await http.post(f"{base}/experiments", json=go_spec(configurations=configurations))
        assert created.status_code == 202, created.text
        experiment_id = created.json()["id"]
        assert created.json()["queue_position"] in (0, 1)

        # The live stream delivers progress with the fields the UI shows.
        events: list[dict[str, Any]] = []
        async with http.stream("GET", f"{base}/experiments/{experiment_id}/events") as stream:
            async for line in stream.aiter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))
                if len(events) >= 5:
                    break
        assert {"phase", "rounds", "elapsed_s"} <= set(events[-1])

        detail = await wait_final(http, base, experiment_id)
        results = (await http.get(f"{base}/experiments/{experiment_id}/results", params={"raw": "true"})).json()

    assert detail["status"] == "completed", detail
    assert detail["environment"]["placement"]["cores"] >= 1
    rounds = results["rounds"]
    assert len(rounds) == 4
    assert len({r["run_id"] for r in rounds}) == 4
    for round_ in rounds:
        assert round_["status"] == "completed", round_
        assert round_["exit_code"] == 0
        expected = RATE * DURATION_S
        assert abs(round_["requests"] - expected) <= 0.1 * expected, round_["requests"]
        assert round_["resources"]["cpu_user_s"] + round_["resources"]["cpu_system_s"] > 0
        assert round_["resources"]["loadgen_cpu_s"] > 0, "the harness's own footprint must be on record"
        assert len(round_["samples"]) >= DURATION_S * 3  # every 250 ms
        assert round_["max_throughput_rps"] > 0
        tuned = round_["configuration"] == "batch-default"
        assert round_["resources"].get("concurrency") == ({"gomaxprocs": 3} if tuned else None), round_["resources"]
        assert sum(g["cpu_s"] for g in round_["resources"]["thread_groups"].values()) > 0
    for aggregate in results["configurations"]:
        latency = aggregate["latency_us"]
        values = [latency[k] for k in ("p50", "p90", "p99", "p99.9", "p99.99", "max")]
        assert values == sorted(values), values
        assert aggregate["cpu_per_request_us"] > 0
        assert aggregate["rounds_completed"] == 2
        # Go's threads all carry the program's name: one group, and per span where spans are made.
        [(group, figures)] = aggregate["thread_groups"].items()
        assert group.startswith("demo-go") and figures["cpu_per_request_us"] > 0, aggregate["thread_groups"]
        assert (figures["cpu_per_span_us"] is not None) == (aggregate["configuration"] == "batch-default")
    # Orders were shuffled per round and every round ran both configurations.
    assert {tuple(r["configuration"] for r in rounds if r["round_index"] == i) for i in (0, 1)} <= {
        ("none", "batch-default"),
        ("batch-default", "none"),
    }
    assert not processes_running("bin/demo-go"), "a demo service outlived its experiment"
    assert not processes_running(str(oha_binary())), "the load generator outlived its experiment"


async def test_bad_spec_is_422_naming_fields_and_unknown_service_404(native_stack: NativeStack) -> None:
    base = api(native_stack)
    async with stack_client(native_stack, timeout=30) as http:
        invalid = await http.post(f"{base}/experiments", json=go_spec(rounds=0, load={"rate": -5}))
        unknown = await http.post(f"{base}/experiments", json=go_spec(service={"kind": "demo", "language": "cobol"}))
        bad_mode = await http.post(
            f"{base}/experiments",
            json=go_spec(configurations=[{"preset": "none"}, {"preset": "java-agent"}]),
        )
    assert invalid.status_code == 422
    locations = {tuple(item["loc"]) for item in invalid.json()["detail"]}
    assert {("body", "rounds"), ("body", "load", "rate")} <= locations
    assert unknown.status_code == 404
    assert "cobol" in unknown.json()["detail"]
    assert bad_mode.status_code == 422
    assert any("go has no mode 'agent'" in item["msg"] for item in bad_mode.json()["detail"])


async def test_service_that_never_gets_healthy_fails_its_rounds_with_its_log(native_stack: NativeStack) -> None:
    base = api(native_stack)
    crash = "import sys; print('listening... no, config error: missing DB_URL', flush=True); sys.exit(3)"
    spec = go_spec(
        service={"kind": "command", "argv": [sys.executable, "-c", crash], "port": 18999, "health_path": "/healthz"},
        configurations=[{"preset": "none"}, {"preset": "batch-default"}],
        rounds=1,
    )
    async with stack_client(native_stack, timeout=30) as http:
        created = await http.post(f"{base}/experiments", json=spec)
        assert created.status_code == 202, created.text
        detail = await wait_final(http, base, created.json()["id"], timeout_s=120)
    assert detail["status"] == "failed"
    assert len(detail["rounds"]) == 2, "the run goes on after a failed round"
    for round_ in detail["rounds"]:
        assert round_["status"] == "failed"
        assert "exited with code 3" in round_["error"]
        assert "missing DB_URL" in round_["service_log_tail"]


async def test_queue_position_and_cancel_while_queued(native_stack: NativeStack) -> None:
    base = api(native_stack)
    slow = go_spec(configurations=[{"preset": "none"}, {"preset": "simple"}], rounds=1)
    async with stack_client(native_stack, timeout=30) as http:
        first = (await http.post(f"{base}/experiments", json=slow)).json()
        second = (await http.post(f"{base}/experiments", json=slow)).json()
        assert second["queue_position"] >= 1
        cancelled = await http.post(f"{base}/experiments/{second['id']}/cancel")
        assert cancelled.status_code == 200
        assert cancelled.json()["status"] == "cancelled"
        # Cancelling the running one stops its processes.
        await asyncio.sleep(3)
        running = await http.post(f"{base}/experiments/{first['id']}/cancel")
        assert running.status_code == 200
        detail = await wait_final(http, base, first["id"], timeout_s=60)
        again = await http.post(f"{base}/experiments/{first['id']}/cancel")
    assert detail["status"] == "cancelled"
    assert again.status_code == 409
    assert not processes_running("bin/demo-go")
    assert not processes_running(str(oha_binary()))
