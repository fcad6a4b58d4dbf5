"""Node's on-demand CPU profiler against the real service, through the engine's sampler: nothing
is profiled until the sampler's first SIGUSR2, the second one writes the profile, which folds
into stacks the classification puts on the request path. No stack needed (mode none)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from tracetax.demos.catalog import demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.profiling.classify import RULES, summarize
from tracetax.profiling.samplers import NodeCpuProfile
from tracetax.system.ports import free_port

pytestmark = pytest.mark.services  # starts the real demo services: not in make test-unit


def load(http: httpx.Client, seconds: float) -> int:
    sent, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert http.get("/work", params={"iters": 3_000_000}).status_code == 200
        sent += 1
    return sent


def test_sigusr2_toggles_the_profiler_and_its_profile_folds(tmp_path: Path) -> None:
    manifest = demo_services()["node"]
    sampler = NodeCpuProfile(manifest.directory, tmp_path)
    argv = sampler.argv(manifest.argv("none"))
    assert argv == manifest.argv("none")  # no --cpu-prof: the profiler is not on for the process's life
    port = free_port()
    service = ServiceProcess(
        argv,
        cwd=manifest.directory,
        env={"TRACETAX_PROCESSOR": "none", "PORT": str(port), **sampler.environment()},
        port=port,
        log_path=tmp_path / "node.log",
        name="node (none, profiled)",
    )
    service.start()
    try:
        service.wait_healthy(30)
        with httpx.Client(base_url=service.base_url, timeout=10) as http:
            load(http, 0.5)  # before the window: not profiled
            assert list(sampler.profile_dir.iterdir()) == []
            window_start_us = time.monotonic() * 1e6
            sampler.start(service.pid, 2)
            load(http, 1.5)
            sampler.end_window()
            window_end_us = time.monotonic() * 1e6
            load(http, 0.3)  # after the window: not profiled either
            # A second window (the next round's sampler) writes the next profile: the toggle
            # does not get out of step.
            second = NodeCpuProfile(manifest.directory, tmp_path)
            second.start(service.pid, 1)
            load(http, 0.3)
            second.end_window()
        assert sampler.profile is not None
        profile = json.loads(sampler.profile.read_text())
        stacks = sampler.folded()
    finally:
        exit_code = service.stop(10)
    assert exit_code == 0, service.last_lines()

    # V8's timestamps are CLOCK_MONOTONIC µs, like time.monotonic(): the profile spans the window.
    assert window_start_us <= profile["startTime"] <= profile["endTime"] <= window_end_us
    assert sampler.profile.name.endswith(".cpuprofile") and not list(sampler.profile_dir.glob("*.tmp"))
    samples = sum(stacks.values())
    # 1.5 s of mostly busy time at one sample every 2 ms: hundreds of samples (fewer on a busy machine).
    assert samples > 100, stacks
    # The work itself (compute, or work when V8 inlined compute into it) is the leaf.
    in_work = sum(count for stack, count in stacks.items() if stack.endswith("handler.js"))
    assert in_work > samples / 2, stacks
    summary = summarize(RULES["v8-cpu-prof"], stacks)
    assert summary.cells["request/application"].share > 0.5, summary.cells
    assert second.profile is not None and second.profile != sampler.profile
    assert sum(second.folded().values()) > 0
