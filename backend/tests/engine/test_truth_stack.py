"""Numbers you can bet on, on the real engine, services and stack:

- an A/A on Go is not significant on any metric, and its noise floor is reported;
- a configuration that busy-waits 1 ms per request is measured as +1 ms p50 and +1 ms CPU
  per request, within ±10%;
- a user's service without a SIGTERM handler keeps its measured phases;
- nothing of the stack ran on the service's core during a measured phase.

The A/A promise is statistical (at most 5% of A/As show a significant metric), so a first
A/A with a significant metric is run once more: two in a row happen 1 in 400 times.

Five rounds, the default spec's: with three (two degrees of freedom) a round whose ratio
strays leaves even +280% p50 "not significant" after Holm over six metrics (CI saw it).
The ±10% promise holds on a quiet machine (docs/benchmarks.md: three runs within 2%). On a
noisier one an estimate can miss it while its own interval still reaches the ±10% band; that
run is repeated once. An interval wholly outside the band fails at once: then the measurement
is wrong, not noisy. The band, not exactly 1 ms, because a request that spins 1 ms
occasionally queues behind another: CI measured +1.02 ms p50 (+1.01 to +1.04 ms), a real
cost of the injected work, not an error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.engine.test_engine_stack import api, needs_tools, wait_final
from tests.stack_api import stack_client
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack
__all__ = ["needs_tools"]  # the module fixture checks oha and the Go service
BUSY_US = 1000
PLAIN_SERVER = Path(__file__).parent.parent / "fixtures" / "plain_server.py"


def truth_spec(rounds: int = 5) -> dict[str, Any]:
    return {
        "name": "truth: A/A and an injected millisecond",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"preset": "none"},
            {"preset": "none", "name": "none-again", "baseline": False},
            {"preset": "none", "name": "busy-1ms", "baseline": False, "inject_busy_us": BUSY_US},
        ],
        "load": {
            "rate": 200,
            "warmup_s": 1,
            "duration_s": 5,
            "connections": 4,
            "max_throughput_s": 0,
            "query": {"iters": 100, "spans": 1},
        },
        "rounds": rounds,
        "seed": 11,
        "sample_stacks": False,
    }


async def run(http: httpx.AsyncClient, base: str, spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    created = await http.post(f"{base}/experiments", json=spec)
    assert created.status_code == 202, created.text
    detail = await wait_final(http, base, created.json()["id"], timeout_s=600)
    assert detail["status"] == "completed", detail
    diagnostics = await http.get(f"{base}/experiments/{detail['id']}/diagnostics")
    assert diagnostics.status_code == 200, diagnostics.text
    return detail, diagnostics.json()


def summaries(changes: dict[str, Any]) -> list[str]:
    return [changes[m]["summary"] for m in ("p50", "cpu_per_request_us")]


def injected_cost_within_10pct(changes: dict[str, Any]) -> bool:
    """True when p50 and CPU per request both read +1 ms ±10%; fails the test at once when
    an interval lies wholly outside that band (a wrong measurement rather than a noisy one)."""
    within = True
    for metric in ("p50", "cpu_per_request_us"):
        absolute = changes[metric]["absolute"]
        reaches_band = absolute["low"] <= 1.1 * BUSY_US and absolute["high"] >= 0.9 * BUSY_US
        assert reaches_band, (metric, changes[metric]["summary"])
        within &= abs(absolute["estimate"] - BUSY_US) <= 0.1 * BUSY_US
    return within


async def test_a_a_is_not_significant_and_an_injected_millisecond_is_measured(native_stack: NativeStack) -> None:
    base = api(native_stack)
    async with stack_client(native_stack, timeout=60) as http:
        detail, diagnostics = await run(http, base, truth_spec())
        significant = [m for m, c in diagnostics["overhead"]["none-again"].items() if c["significant"]]
        if significant:
            print(f"first A/A had significant {significant}; running it once more", file=sys.stderr)
            detail, diagnostics = await run(http, base, truth_spec() | {"seed": 12})
            significant = [m for m, c in diagnostics["overhead"]["none-again"].items() if c["significant"]]
        results = (await http.get(f"{base}/experiments/{detail['id']}/results")).json()
    assert not significant, diagnostics["overhead"]["none-again"]
    assert diagnostics["noise_floor"]["p50"]["relative_pct"] is not None, diagnostics["noise_floor"]["p50"]
    # No closed-loop phase here: max throughput is unknown, never "unchanged" or 0.
    assert {c["direction"] for c in diagnostics["overhead"]["none-again"].values()} == {"unchanged", "unknown"}

    busy = diagnostics["overhead"]["busy-1ms"]
    if not injected_cost_within_10pct(busy):
        print(
            f"busy-1ms missed ±10% within its interval: {summaries(busy)}, flagged rounds "
            f"{diagnostics.get('flagged_rounds')}; running it once more",
            file=sys.stderr,
        )
        async with stack_client(native_stack, timeout=60) as http:
            _, diagnostics = await run(http, base, truth_spec() | {"seed": 13})
        busy = diagnostics["overhead"]["busy-1ms"]
        assert injected_cost_within_10pct(busy), summaries(busy)
    for metric in ("p50", "cpu_per_request_us"):
        assert busy[metric]["direction"] == "worse"
    # The absolute change leads the line, in its unit at a readable scale (921 µs, 1.02 ms).
    assert busy["p50"]["summary"].startswith("+") and " p50 (" in busy["p50"]["summary"], busy["p50"]["summary"]
    # Nothing the stack or the engine started ran on the service's cores while it was measured.
    stack_pids = {native_stack.supervisor.running_pid(c.name) for c in native_stack.components}
    for round_ in results["rounds"]:
        for phase, record in round_["isolation"].items():
            foreign = {task["pid"] for task in record["foreign_tasks"]}
            assert not foreign & stack_pids, (round_["configuration"], phase, record)


async def test_a_service_that_dies_by_sigterm_keeps_its_measured_phases(
    native_stack: NativeStack, unused_tcp_port: int
) -> None:
    spec = {
        "name": "plain server without a SIGTERM handler",
        "service": {
            "kind": "command",
            "argv": [sys.executable, str(PLAIN_SERVER)],
            "port": unused_tcp_port,
            "health_path": "/healthz",
        },
        "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
        "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "max_throughput_s": 0, "path": "/", "query": {}},
        "rounds": 1,
    }
    async with stack_client(native_stack, timeout=60) as http:
        created = await http.post(f"{api(native_stack)}/experiments", json=spec)
        assert created.status_code == 202, created.text
        detail = await wait_final(http, api(native_stack), created.json()["id"], timeout_s=300)
        results = (await http.get(f"{api(native_stack)}/experiments/{detail['id']}/results")).json()
    assert detail["status"] == "completed", detail
    for round_ in results["rounds"]:
        assert round_["status"] == "completed", round_
        assert round_["exit_code"] == -15
        assert round_["shutdown"]["clean"] is False and "SIGTERM" in round_["shutdown"]["note"]
        assert round_["requests"] and round_["requests"] > 0
