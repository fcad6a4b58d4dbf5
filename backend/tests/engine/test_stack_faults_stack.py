"""Tempo and the Collector stopped in the middle of a round of the real stack: the engine's
probe after that round (and before the next) finds them down, the rounds are flagged with
them, and the ledger's stages read from them are unknown, never 0, even once they are back
and the ledger is collected again. The stack's watcher is paused meanwhile (it would start them
again within seconds: tests/native_stack/test_heal_stack.py); both are started again afterwards
for the later tests, and the watcher with them."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from tests.engine.test_engine_stack import api, wait_final
from tests.stack_api import stack_client
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack
KILLED = ("collector", "tempo")
COLLECTOR_STAGES = ("collector_accepted", "collector_refused", "exporter_sent", "exporter_failed")

SPEC: dict[str, Any] = {
    "name": "stack faults mid-round",
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 6, "connections": 2, "max_throughput_s": 0},
    "rounds": 1,
    "seed": 1,
    "sample_stacks": False,
}


async def wait_measuring(http: httpx.AsyncClient, base: str, experiment_id: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        detail = (await http.get(f"{base}/experiments/{experiment_id}")).json()
        if any(r["status"] == "running" for r in detail["rounds"]):
            await asyncio.sleep(2)  # into the measured phase: the service is exporting
            return
        await asyncio.sleep(0.3)
    raise AssertionError("no round started")


def restart(stack: NativeStack, names: tuple[str, ...]) -> None:
    for name in names:
        component = stack.component(name)
        stack.supervisor.start(component)
        status = stack.supervisor.wait_ready(component)
        assert status.ready, status.detail
    stack.supervisor.start_watcher()


def signal_stages(ledger: list[dict[str, Any]], configuration: str) -> dict[str, dict[str, Any]]:
    entry = next(e for e in ledger if e["configuration"] == configuration)
    spans = next(s for s in entry["signals"] if s["signal"] == "spans")
    return {stage["stage"]: stage for stage in spans["stages"]}


async def test_components_down_mid_round_flag_it_and_leave_their_stages_unknown(native_stack: NativeStack) -> None:
    base = api(native_stack)
    async with stack_client(native_stack, timeout=60) as http:
        created = await http.post(f"{base}/experiments", json=SPEC)
        assert created.status_code == 202, created.text
        experiment_id = created.json()["id"]
        try:
            await wait_measuring(http, base, experiment_id)
            await asyncio.to_thread(native_stack.supervisor.stop_watcher)  # they stay down
            for name in KILLED:
                await asyncio.to_thread(native_stack.supervisor._stop_one, name)
            detail = await wait_final(http, base, experiment_id, timeout_s=240)
        finally:
            await asyncio.to_thread(restart, native_stack, KILLED)

        assert detail["status"] == "completed", detail
        for round_ in detail["rounds"]:
            health = round_["stack_health"]
            assert health["flagged"] is True, round_
            assert set(KILLED) <= set(health["down"]), health

        # Collected again now that both are back: still unknown, never 0.
        recollected = await http.post(f"{base}/experiments/{experiment_id}/ledger")
        assert recollected.status_code == 200, recollected.text
        diagnostics = (await http.get(f"{base}/experiments/{experiment_id}/diagnostics")).json()
    for configuration in ("none", "batch-default"):
        stages = signal_stages(recollected.json(), configuration)
        for name in (*COLLECTOR_STAGES, "stored"):
            assert stages[name]["value"] is None, (configuration, stages[name])
            assert stages[name]["unknown_reason"], (configuration, stages[name])
        # Never inferred from the unknown receiver as "everything dropped in the SDK".
        dropped = stages["sdk_dropped"]
        assert dropped["value"] is None or (dropped["source"] or "").startswith("SDK counter"), dropped
    labels = diagnostics["stack_down_rounds"]
    assert len(labels) == 2 and all("collector" in label and "tempo" in label for label in labels), labels
