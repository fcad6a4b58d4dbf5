"""Numbers you can bet on, on the real engine, services and stack, with the default design
(each round's side-by-side phase for CPU per request, RSS and p50; tails solo):

- an A/A on Go asking for a precision stops at the first look that resolves CPU per request
  to ±5% (its interval at most 5% wide either side of the estimate, holding 0); it is not
  significant on any metric and reports its noise floor;
- a configuration that busy-waits 1 ms per request is measured as +1 ms p50 and +1 ms CPU
  per request, within ±5%;
- a configuration whose background thread burns 60 ms every 2 s (never on a request) shows
  in CPU per request, and the tail of a configuration that ran beside it in every side-by-side
  phase does not move: the A/A configuration there has its p99 within the noise floor;
- nothing of the stack ran on the service's core during a measured phase.

Two experiments, not one: a neighbour that spins 1 ms per request makes the others' requests
wait behind it now and then, which leaves their CPU and p50 pairs unbiased but noisier, so the
clean A/A is measured apart (docs/diagnostics.md, "Side by side").

The A/A promise is statistical (at most 5% of A/As show a significant metric), so a first
A/A with a significant metric is run once more: two in a row happen 1 in 400 times. The ±5%
band of the injected millisecond holds on a quiet machine (docs/benchmarks.md); on a noisier
one an estimate can miss it while its own interval still reaches the band: that run is
repeated once. An interval wholly outside the band fails at once: then the measurement is
wrong, not noisy. The band, not exactly 1 ms, because a request that spins 1 ms occasionally
queues behind another.
"""

from __future__ import annotations

import math
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
# 60 ms every 2 s at 200 req/s: about +150 µs of CPU per request. 20 ms (+50 µs) read +43 µs
# in one run, not significant after Holm over the metrics at 4 rounds; 40 ms read +22% to +54%
# per round in another (the baseline beside the busy-1ms neighbour spread 176-210 µs), t = 6
# with 3 degrees of freedom, again not significant after Holm. The test holds the burner's
# cost to show, not to be small.
BACKGROUND_US = 60_000
PLAIN_SERVER = Path(__file__).parent.parent / "fixtures" / "plain_server.py"
# The A/A's CPU per request interval, and the injected millisecond's band.
WITHIN_PCT = 5.0
LOAD = {"rate": 300, "warmup_s": 1, "duration_s": 4, "connections": 4, "max_throughput_s": 0}
RATE_A_A = 1000


def a_a_spec(seed: int = 11) -> dict[str, Any]:
    return {
        "name": "truth: A/A until CPU per request is within ±5%",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [{"preset": "none"}, {"preset": "none", "name": "none-again", "baseline": False}],
        # The side-by-side phase as the default has it (5 s warm-up, 10 s): after a 1 s warm-up
        # and 6 s the pairs spread so much more that ±5% took 18 rounds (318 s). The solo phases
        # give no figure asked for here (the tails' floor only): short, 3 s less a round.
        # RATE_A_A, not 300 req/s: at 300 a request's CPU is a third wake-ups and idle (about
        # 180 µs against 110 µs at 1,000), which two fresh processes pay differently: the rounds'
        # log ratios spread 0.054 to 0.087 and ±5% took 12 to 25 rounds (312-573 s), once not
        # reached in the 900 s budget. At 1,000 the work per request dominates.
        # Two rounds cannot resolve it (Student's t with one degree of freedom): rounds are added.
        "load": {
            **LOAD,
            "rate": RATE_A_A,
            "warmup_s": 0.5,
            "duration_s": 1,
            "side_by_side_s": 10,
            "side_by_side_warmup_s": 5,
        },
        "rounds": 2,
        "precision": {"metrics": ["cpu_per_request_us"], "half_width_pct": WITHIN_PCT, "max_wall_time_s": 900},
        "seed": seed,
        "sample_stacks": False,
    }


def known_costs_spec(seed: int = 11) -> dict[str, Any]:
    return {
        "name": "truth: an injected millisecond and a background cost",
        "service": {"kind": "demo", "language": "go"},
        "configurations": [
            {"preset": "none"},
            {"preset": "none", "name": "none-again", "baseline": False},
            {"preset": "none", "name": "busy-1ms", "baseline": False, "inject_busy_us": BUSY_US},
            {
                "preset": "none",
                "name": "background",
                "baseline": False,
                "inject_background_us": BACKGROUND_US,
                "inject_background_period_ms": 2000,
            },
        ],
        "load": {**LOAD, "rate": 200, "query": {"iters": 100, "spans": 1}, "side_by_side_s": 8},
        "rounds": 4,
        "seed": seed,
        "sample_stacks": False,
    }


async def run(http: httpx.AsyncClient, base: str, spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    created = await http.post(f"{base}/experiments", json=spec)
    assert created.status_code == 202, created.text
    detail = await wait_final(http, base, created.json()["id"], timeout_s=1200)
    assert detail["status"] == "completed", detail
    diagnostics = await http.get(f"{base}/experiments/{detail['id']}/diagnostics")
    assert diagnostics.status_code == 200, diagnostics.text
    return detail, diagnostics.json()


def summaries(changes: dict[str, Any]) -> list[str]:
    return [changes[m]["summary"] for m in ("p50", "cpu_per_request_us")]


def injected_cost_within_band(changes: dict[str, Any]) -> bool:
    """True when p50 and CPU per request both read +1 ms ±5%; fails the test at once when an
    interval lies wholly outside that band (a wrong measurement rather than a noisy one)."""
    within = True
    band = WITHIN_PCT / 100 * BUSY_US
    for metric in ("p50", "cpu_per_request_us"):
        absolute = changes[metric]["absolute"]
        reaches_band = absolute["low"] <= BUSY_US + band and absolute["high"] >= BUSY_US - band
        assert reaches_band, (metric, changes[metric]["summary"])
        within &= abs(absolute["estimate"] - BUSY_US) <= band
    return within


def significant(changes: dict[str, Any]) -> list[str]:
    return [metric for metric, change in changes.items() if change["significant"]]


async def test_an_a_a_asking_for_a_precision_stops_when_reached_and_is_not_significant(
    native_stack: NativeStack,
) -> None:
    base = api(native_stack)
    async with stack_client(native_stack, timeout=60) as http:
        detail, diagnostics = await run(http, base, a_a_spec())
        if significant(diagnostics["overhead"]["none-again"]):
            print(f"first A/A had significant {significant(diagnostics['overhead']['none-again'])}; once more")
            detail, diagnostics = await run(http, base, a_a_spec(seed=12))
        results = (await http.get(f"{base}/experiments/{detail['id']}/results")).json()

    # It stopped at the first look that resolved CPU per request to ±5%, not at its time budget.
    precision = diagnostics["precision"]
    assert precision["reached"], precision
    assert [look["reached"] for look in precision["looks_read"]] == [False] * (len(precision["looks_read"]) - 1) + [
        True
    ], precision
    assert len(precision["looks_read"]) >= 2, ("it had to add rounds at least once", precision)
    assert max(r["round_index"] for r in results["rounds"]) + 1 == precision["rounds"], precision
    # CPU per request, RSS and p50 were paired side by side.
    assert diagnostics["side_by_side"] is not None and diagnostics["side_by_side"]["rounds"], diagnostics

    a_a = diagnostics["overhead"]["none-again"]
    assert not significant(a_a), a_a
    # Resolved to ±5%: the interval is at most 5% wide on either side of its estimate (in log
    # terms) and holds 0. Around an estimate of -2.6% (two fresh processes differ by a few
    # percent) that reads -6.2% to +1.1%: the width is the resolution, the offset the instance.
    cpu = a_a["cpu_per_request_us"]["relative_pct"]
    half_width = 100 * (math.log1p(cpu["high"] / 100) - math.log1p(cpu["low"] / 100)) / 2
    assert half_width <= WITHIN_PCT and cpu["low"] <= 0 <= cpu["high"], a_a["cpu_per_request_us"]
    assert diagnostics["noise_floor"]["p50"]["relative_pct"] is not None, diagnostics["noise_floor"]["p50"]
    # No closed-loop phase here: max throughput is unknown, never "unchanged" or 0.
    assert {c["direction"] for c in a_a.values()} == {"unchanged", "unknown"}
    # Nothing the stack or the engine started ran on the service's cores while it was measured.
    stack_pids = {native_stack.supervisor.running_pid(c.name) for c in native_stack.components}
    for round_ in results["rounds"]:
        for phase, record in round_["isolation"].items():
            foreign = {task["pid"] for task in record["foreign_tasks"]}
            assert not foreign & stack_pids, (round_["configuration"], phase, record)


async def test_an_injected_millisecond_and_a_background_cost_are_measured_as_they_are(
    native_stack: NativeStack,
) -> None:
    base = api(native_stack)
    async with stack_client(native_stack, timeout=60) as http:
        _, diagnostics = await run(http, base, known_costs_spec())
        if not injected_cost_within_band(diagnostics["overhead"]["busy-1ms"]):
            print(
                f"busy-1ms missed ±5% within its interval: {summaries(diagnostics['overhead']['busy-1ms'])}; "
                "running it once more",
                file=sys.stderr,
            )
            _, diagnostics = await run(http, base, known_costs_spec(seed=12))
    busy = diagnostics["overhead"]["busy-1ms"]
    assert injected_cost_within_band(busy), summaries(busy)
    for metric in ("p50", "cpu_per_request_us"):
        assert busy[metric]["direction"] == "worse"
    # The absolute change leads the line, in its unit at a readable scale (921 µs, 1.02 ms).
    assert busy["p50"]["summary"].startswith("+") and " p50 (" in busy["p50"]["summary"], busy["p50"]["summary"]

    # The background burner's CPU shows; the tails beside it stay each configuration's own.
    background = diagnostics["overhead"]["background"]
    assert background["cpu_per_request_us"]["direction"] == "worse", background["cpu_per_request_us"]
    a_a_p99 = diagnostics["overhead"]["none-again"]["p99"]
    p99_floor = diagnostics["noise_floor"]["p99"]["relative_pct"]
    assert abs(a_a_p99["relative_pct"]["estimate"]) <= p99_floor, (a_a_p99, p99_floor)


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
        "sample_stacks": False,
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
