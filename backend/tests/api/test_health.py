"""GET /api/health on the running backend of the real stack."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import httpx
import pytest

from tracetax.native_stack.components import MIMIR_VERSION
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack


def health_url(stack: NativeStack) -> str:
    return f"{stack.component('backend').url}/api/health"


async def test_health_is_all_green_with_versions(native_stack: NativeStack) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        response = await http.get(health_url(native_stack))
    report = response.json()
    assert response.status_code == 200, report
    assert report["status"] == "ok"
    by_name = {component["name"]: component for component in report["components"]}
    assert set(by_name) == {"backend", "tempo", "loki", "mimir", "collector"}
    assert all(component["ready"] for component in by_name.values())
    assert by_name["mimir"]["version"] == MIMIR_VERSION
    assert by_name["mimir"]["url"].rstrip("/") == native_stack.component("mimir").url
    assert by_name["loki"]["version"] == "3.7.8"
    assert by_name["tempo"]["version"].startswith("2.6.0")
    assert by_name["collector"]["version"] == "0.160.0"


async def test_killed_component_shows_not_ready_within_seconds(native_stack: NativeStack) -> None:
    collector = native_stack.component("collector")
    pid = native_stack.supervisor.running_pid("collector")
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)
    try:
        deadline = time.monotonic() + 5
        async with httpx.AsyncClient(timeout=10) as http:
            while True:
                response = await http.get(health_url(native_stack))
                by_name = {c["name"]: c for c in response.json()["components"]}
                if not by_name["collector"]["ready"] or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.25)
        assert response.status_code == 503
        assert response.json()["status"] == "degraded"
        assert not by_name["collector"]["ready"]
        assert by_name["collector"]["detail"]
        assert by_name["tempo"]["ready"], "only the killed component may be reported down"
    finally:
        # Bring it back so the rest of the session (and a reused `make up` stack) is whole.
        native_stack.supervisor.start(collector)
        assert (await asyncio.to_thread(native_stack.supervisor.wait_ready, collector)).ready
