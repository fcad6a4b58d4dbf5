"""TRACETAX_WORKERS in the Python demo: N worker processes serve one port, each with an SDK of its
own; SIGTERM to the top process stops every worker gracefully and leaves no process behind; a
worker that dies, or a supervisor that dies, takes the rest down; a bad value is refused.

No stack needed: exports go to a closed port (or nowhere, in `none` mode).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.demos.test_bad_input import run
from tests.demos.test_demo_services import UNREACHABLE, start_service
from tracetax.demos.catalog import demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.system import procfs
from tracetax.system.ports import free_port

pytestmark = pytest.mark.services  # starts the real demo service: not in make test-unit

PYTHON = demo_services()["python"]
WORKERS = "TRACETAX_WORKERS"
STOP_WITHIN_S = 15.0
# Long enough to keep one worker's event loop busy while another answers (0.7 s unloaded).
LONG_ITERS = 10_000_000


def start(mode: str, tmp_path: Path, **env: str) -> ServiceProcess:
    process = start_service(PYTHON, mode, {"TRACETAX_PROCESSOR": mode, WORKERS: "2", **env}, tmp_path)
    process.wait_healthy(60)
    return process


def workers_of(process: ServiceProcess) -> list[procfs.Stat]:
    return [stat for stat in procfs.all_stats() if stat.ppid == process.pid and not stat.zombie]


def cpu_s(pids: list[int]) -> dict[int, float]:
    return {pid: stat.cpu_s for pid in pids if (stat := procfs.read_stat(pid)) is not None}


def sigterm_and_wait(process: ServiceProcess) -> tuple[int, float]:
    """SIGTERM to the top process only (as the engine stops a service); its exit code and how long it took."""
    started = time.monotonic()
    os.kill(process.pid, signal.SIGTERM)
    assert process.process is not None
    try:
        code = process.process.wait(STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running {STOP_WITHIN_S:.0f}s after SIGTERM\n{process.last_lines()}")
    return code, time.monotonic() - started


def assert_nothing_left(process: ServiceProcess, timeout_s: float = 0.0) -> None:
    deadline = time.monotonic() + timeout_s
    while (left := procfs.group_members(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"left running: {[(stat.pid, stat.comm) for stat in left]}\n{process.last_lines()}"


async def test_two_workers_serve_and_stop_on_sigterm(tmp_path: Path) -> None:
    process = await asyncio.to_thread(start, "none", tmp_path)
    try:
        workers = [stat.pid for stat in workers_of(process)]
        assert len(workers) == 2, workers
        assert {stat.pgid for stat in workers_of(process)} == {process.pid}
        async with (
            httpx.AsyncClient(base_url=process.base_url, timeout=60) as busy,
            httpx.AsyncClient(base_url=process.base_url, timeout=10) as other,
        ):
            # One worker's event loop is blocked in a long request (its CPU time shows which)...
            before = cpu_s(workers)
            long = asyncio.create_task(busy.get("/work", params={"iters": LONG_ITERS}))
            for _ in range(1500):  # at most about 30 s on a loaded machine
                if long.done() or max(cpu_s(workers)[pid] - before[pid] for pid in workers) >= 0.1:
                    break
                await asyncio.sleep(0.02)
            assert not long.done(), "the long request ended before it could be seen running"
            # ... so the other worker answers meanwhile, on a new connection.
            response = await other.get("/work", params={"iters": 1000, "spans": 3})
            assert response.status_code == 200 and response.json()["sum"] == 468480, response.text
            assert not long.done(), "a second request was answered only after the long one"
            # SIGTERM with that request in flight: it is finished, then everything stops.
            stopping = asyncio.create_task(asyncio.to_thread(sigterm_and_wait, process))
            assert (await long).status_code == 200
            code, took = await stopping
        assert code == 0, f"exit code {code}\n{process.last_lines()}"
        assert took < STOP_WITHIN_S
        assert_nothing_left(process)
        log = process.log_path.read_text()
        assert "workers=2" in log and "tracetax-demo-python: stopped" in log, log
    finally:
        await asyncio.to_thread(process.stop, 2)


def test_batch_sdk_per_worker_stops_in_time_with_the_endpoint_down(tmp_path: Path) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": UNREACHABLE, "OTEL_RESOURCE_ATTRIBUTES": "tracetax.run.id=workers-test"}
    process = start("batch", tmp_path, **env)
    try:
        assert len(workers_of(process)) == 2
        health = httpx.get(f"{process.base_url}/healthz", timeout=10).json()
        assert health["processor"] == "batch" and health["otel_loaded"] is True, health
        with httpx.Client(base_url=process.base_url, timeout=10) as http:
            for _ in range(20):
                assert http.get("/work", params={"iters": 1000, "spans": 3}).status_code == 200
        code, took = sigterm_and_wait(process)
        assert code == 0, f"exit code {code}\n{process.last_lines()}"
        assert took < STOP_WITHIN_S
        assert_nothing_left(process)
    finally:
        process.stop(2)


def test_a_dead_worker_stops_the_service_with_an_error(tmp_path: Path) -> None:
    process = start("none", tmp_path)
    try:
        victim = workers_of(process)[0].pid
        os.kill(victim, signal.SIGKILL)
        assert process.process is not None
        code = process.process.wait(STOP_WITHIN_S)
        assert code != 0
        assert f"(pid {victim}) was killed by signal 9" in process.log_path.read_text(), process.last_lines()
        assert_nothing_left(process)
    finally:
        process.stop(2)


def test_workers_do_not_outlive_a_killed_supervisor(tmp_path: Path) -> None:
    process = start("none", tmp_path)
    try:
        assert len(workers_of(process)) == 2
        os.kill(process.pid, signal.SIGKILL)
        # The kernel sends each worker SIGTERM (PR_SET_PDEATHSIG): a graceful stop of its own.
        assert_nothing_left(process, STOP_WITHIN_S)
    finally:
        process.stop(2)


def test_port_taken_is_an_error_naming_the_port() -> None:
    port = free_port()
    with socket.create_server(("0.0.0.0", port)):  # noqa: S104 - as the service binds it
        env = {"TRACETAX_PROCESSOR": "none", WORKERS: "2", "PORT": str(port)}
        result = run(PYTHON.argv("none"), PYTHON.directory, env)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert f"cannot listen on 0.0.0.0:{port}" in result.stderr, result.stderr


@pytest.mark.parametrize("value", ["0", "65", "x", "-1", "2.5"])
def test_bad_workers_value_is_refused(value: str) -> None:
    result = run(PYTHON.argv("batch"), PYTHON.directory, {"TRACETAX_PROCESSOR": "batch", WORKERS: value})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert f'{WORKERS}="{value}"' in result.stderr and "1..64" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
