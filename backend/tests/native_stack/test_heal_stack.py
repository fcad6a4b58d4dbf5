"""A stack that heals, on the real native stack: each component killed once (SIGKILL, as a
crash or the OOM killer would) is started again by the watcher `stack up` started, and
counted, in `stack status` and in /api/health. While one is down and nothing starts it again,
the next experiment waits for it, saying so in the API and its event stream, and can be
cancelled meanwhile."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.stack_api import stack_client
from tracetax.native_stack.native import NativeStack
from tracetax.native_stack.supervisor import format_table, http_ready
from tracetax.native_stack.watch import read_supervision

pytestmark = pytest.mark.stack

SPEC: dict[str, Any] = {
    "name": "held for the Collector",
    "service": {"kind": "demo", "language": "go"},
    "configurations": [{"preset": "none"}, {"preset": "batch-default"}],
    "load": {"rate": 100, "warmup_s": 1, "duration_s": 2, "connections": 2, "max_throughput_s": 0},
    "rounds": 1,
    "sample_stacks": False,
}


def wait_for(condition: Callable[[], object], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def restarts(stack: NativeStack, name: str) -> int:
    supervision = read_supervision(stack.state)
    return int(supervision.components.get(name, {}).get("restarts") or 0) if supervision else 0


def ensure_watcher(stack: NativeStack) -> None:
    """A stack started before the watcher existed (a reused `make up`) gets one now."""
    stack.supervisor.start_watcher()
    wait_for(lambda: read_supervision(stack.state) is not None, 30, "the watcher's first record")


def test_each_component_killed_is_started_again_and_counted(native_stack: NativeStack) -> None:
    supervisor = native_stack.supervisor
    ensure_watcher(native_stack)
    for component in native_stack.components:
        name, counted = component.name, restarts(native_stack, component.name)
        pid = supervisor.running_pid(name)
        assert pid is not None, f"{name} is not running\n{format_table(supervisor.status())}"
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: restarts(native_stack, name) == counted + 1, 30, f"{name} started again")  # noqa: B023
        new_pid = supervisor.running_pid(name)
        assert new_pid not in (None, pid)
        wait_for(lambda: http_ready(component.ready_url)[0], component.start_timeout_s, f"{name} ready")  # noqa: B023
        supervision = read_supervision(native_stack.state)
        assert supervision is not None and supervision.watching
        entry = supervision.components[name]
        assert entry["last_exit"] and entry["state"] == "running", entry

    rows = {row.name: row for row in supervisor.status()}
    assert all(row.ready for row in rows.values()), format_table(list(rows.values()))
    assert all(row.restarts.startswith("restarted ") for row in rows.values()), format_table(list(rows.values()))
    assert "watcher: running" in supervisor.watcher_line()
    health = httpx.get(f"{native_stack.component('backend').url}/api/health", headers=auth(native_stack), timeout=30)
    assert health.status_code == 200, health.text
    supervision_answer = health.json()["supervision"]
    assert supervision_answer["watching"] is True
    counted = {c["name"]: c["restarts"] for c in supervision_answer["components"]}
    assert set(counted) == {c.name for c in native_stack.components} and all(n >= 1 for n in counted.values())


def auth(stack: NativeStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {(stack.state / 'api-token').read_text().strip()}"}


async def first_event(http: httpx.AsyncClient, url: str) -> dict[str, Any]:
    async with http.stream("GET", url) as stream:
        async for line in stream.aiter_lines():
            if line.startswith("data:"):
                event: dict[str, Any] = json.loads(line.removeprefix("data:"))
                return event
    raise AssertionError("no event")


async def test_the_next_experiment_waits_for_a_component_that_is_down(native_stack: NativeStack) -> None:
    supervisor = native_stack.supervisor
    collector = native_stack.component("collector")
    base = f"{native_stack.component('backend').url}/api/v1"
    supervisor.stop_watcher()  # nothing starts the Collector again until the watcher is back
    try:
        pid = supervisor.running_pid("collector")
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not http_ready(collector.ready_url)[0], 10, "the Collector down")
        async with stack_client(native_stack, timeout=30) as http:
            created = await http.post(f"{base}/experiments", json=SPEC)
            assert created.status_code == 202, created.text
            experiment_id = created.json()["id"]
            try:
                detail: dict[str, Any] = {}
                deadline = time.monotonic() + 30
                while not detail.get("waiting_for") and time.monotonic() < deadline:
                    detail = (await http.get(f"{base}/experiments/{experiment_id}")).json()
                assert detail["status"] == "queued" and detail["queue_position"] == 1, detail
                assert detail["waiting_for"].startswith("waiting for the Collector (not ready"), detail
                event = await first_event(http, f"{base}/experiments/{experiment_id}/events")
                assert event["phase"] == "queued" and event["message"] == detail["waiting_for"], event
            finally:
                cancelled = await http.post(f"{base}/experiments/{experiment_id}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            detail = (await http.get(f"{base}/experiments/{experiment_id}")).json()
            assert detail["status"] == "cancelled" and detail["waiting_for"] is None, detail
    finally:
        supervisor.start_watcher()
        wait_for(lambda: http_ready(collector.ready_url)[0], collector.start_timeout_s, "the Collector back")
