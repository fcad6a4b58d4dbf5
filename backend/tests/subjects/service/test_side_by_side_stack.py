"""Pooled instances in the side-by-side phase, on real services and the real stack: with
`load.side_by_side_instances: 2` every configuration runs two live instances, each on its own
port under its own load at the spec's rate, and its phase figures pool both."""

from __future__ import annotations

import pytest

from tests.engine.test_engine_stack import api, go_spec, processes_running, wait_final
from tests.stack_api import stack_client
from tracetax.engine.loadgen import oha_binary
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack
RATE, SIDE_BY_SIDE_S = 200, 2


async def test_two_instances_per_configuration_are_measured_and_pooled(native_stack: NativeStack) -> None:
    base = api(native_stack)
    # One round, the solo phases as short as they measure: what is shown is the phase's pooling.
    load = {
        **go_spec()["load"],
        "rate": RATE,
        "warmup_s": 0.5,
        "duration_s": 1,
        "max_throughput_s": 0,
        "side_by_side_warmup_s": 1,
        "side_by_side_s": SIDE_BY_SIDE_S,
        "side_by_side_instances": 2,
    }
    async with stack_client(native_stack, timeout=30) as http:
        created = await http.post(f"{base}/experiments", json=go_spec(name="two instances", rounds=1, load=load))
        assert created.status_code == 202, created.text
        detail = await wait_final(http, base, created.json()["id"])
        results = (await http.get(f"{base}/experiments/{detail['id']}/results", params={"raw": "true"})).json()

    assert detail["status"] == "completed", detail
    for aggregate in results["configurations"]:
        side = aggregate["side_by_side"]
        assert side is not None and side["failed_rounds"] == [], side
        [phase] = side["per_round"]
        assert phase["instances"] == 2, phase
        # Both instances' requests: each load ran at the spec's rate for the phase.
        expected = 2 * RATE * SIDE_BY_SIDE_S
        assert abs(phase["requests"] - expected) <= 0.15 * expected, phase
        assert abs(phase["achieved_rps"] - RATE) <= 0.15 * RATE, phase
        assert phase["cpu_per_request_us"] > 0 and phase["rss_max_bytes"] > 0 and phase["p50_us"] > 0, phase
        # The busy share of one process: the two instances' mean, not their sum.
        share = phase["utilisation"]["configurations"][aggregate["configuration"]]
        assert 0 < share < phase["utilisation"]["service"], phase["utilisation"]
    assert not processes_running("bin/demo-go"), "a demo service outlived its experiment"
    assert not processes_running(str(oha_binary())), "the load generator outlived its experiment"
