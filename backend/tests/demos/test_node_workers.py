"""The Node demo's cluster (TRACETAX_WORKERS > 1): a primary that loads no OpenTelemetry module
forks the workers, each serving the port with an SDK of its own and a service.instance.id of its
own; SIGTERM to the primary stops them all gracefully and in bounded time (even with every export
stuck on a closed port); a worker that dies is not replaced and fails the service; the workers do
not outlive a killed primary; SIGUSR2 reaches every worker, each writes its own CPU profile. No
stack needed: spans and logs go to a closed port, the metrics to a local OTLP capture."""

from __future__ import annotations

import gzip
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import psutil
import pytest

from tests.demos.test_bad_input import run
from tests.demos.test_demo_services import UNREACHABLE, start_service
from tracetax.demos.catalog import demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.profiling.samplers import NodeCpuProfile
from tracetax.system import procfs

pytestmark = pytest.mark.services  # starts the real demo services: not in make test-unit

NODE = demo_services()["node"]
WORKERS = 2
STOP_WITHIN_S = 15.0


@contextmanager
def otlp_metrics_capture() -> Iterator[tuple[str, list[bytes]]]:
    """A local OTLP/HTTP metrics endpoint that keeps every request body (protobuf: its strings,
    the resource attributes among them, are plain bytes)."""
    bodies: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.read_body()
            bodies.append(gzip.decompress(body) if self.headers.get("Content-Encoding") == "gzip" else body)
            self.send_response(200)  # an empty ExportMetricsServiceResponse
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
                return self.rfile.read(int(self.headers.get("Content-Length", "0")))
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()  # after the last chunk (no trailers)
            return b"".join(chunks)

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1/metrics", bodies
    finally:
        server.shutdown()
        server.server_close()


def start_cluster(mode: str, env: dict[str, str], log_dir: Path) -> ServiceProcess:
    process = start_service(NODE, mode, {"TRACETAX_PROCESSOR": mode, "TRACETAX_WORKERS": str(WORKERS), **env}, log_dir)
    try:
        health = process.wait_healthy(60)
    except Exception:
        process.stop(5)
        raise
    assert health.get("processor") == mode and health.get("otel_loaded") is (mode != "none"), health
    return process


def workers(process: ServiceProcess) -> list[psutil.Process]:
    primary = psutil.Process(process.pid)
    children = primary.children()
    assert len(children) == WORKERS, [child.cmdline() for child in children]
    # node:cluster runs the same script again: <node> <directory>/main.js
    assert all(c.exe() == primary.exe() and c.cmdline()[-1] == str(NODE.directory / "main.js") for c in children)
    return children


def work(process: ServiceProcess, requests: int, iters: int) -> None:
    # A new connection each: the primary hands connections to the workers in turn.
    for _ in range(requests):
        response = httpx.get(f"{process.base_url}/work", params={"iters": iters, "spans": 3}, timeout=10)
        assert response.status_code == 200, response.text


def cpu_s(worker: psutil.Process) -> float:
    times = worker.cpu_times()
    return times.user + times.system


def nothing_left(pgid: int, timeout_s: float) -> bool:
    """No process of the service's group (its session: primary and workers) is running."""
    deadline = time.monotonic() + timeout_s
    while procfs.group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not procfs.group_members(pgid)


def stopped_within(process: ServiceProcess, timeout_s: float) -> tuple[int | None, float]:
    """SIGTERM to the top process (as the engine does); its exit code and how long it took."""
    started = time.monotonic()
    os.kill(process.pid, signal.SIGTERM)
    assert process.process is not None
    try:
        code: int | None = process.process.wait(timeout_s)
    except Exception:
        code = None
    return code, time.monotonic() - started


@pytest.mark.parametrize("mode", ["none", "batch"])
def test_workers_serve_and_stop_gracefully_with_the_primary(mode: str, tmp_path: Path) -> None:
    run_id = uuid.uuid4().hex
    with otlp_metrics_capture() as (metrics_url, bodies):
        env = {
            "OTEL_RESOURCE_ATTRIBUTES": f"tracetax.run.id={run_id},tracetax.config={mode}",
            # Spans and logs stuck on a closed port: the shutdown must stay bounded anyway.
            "OTEL_EXPORTER_OTLP_ENDPOINT": UNREACHABLE,
            "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": metrics_url,
            "OTEL_METRIC_EXPORT_INTERVAL": "500",
        }
        process = start_cluster(mode, env, tmp_path)
        try:
            children = workers(process)
            before = [cpu_s(child) for child in children]
            work(process, 16, 10_000_000)
            # Each worker served its share: the primary hands the 16 connections out in turn, 8
            # each. Shares, not seconds: a faster core (CI's) runs 10^7 iterations in about 8 ms,
            # and CPU times tick at 10 ms, so a fixed floor of 40 ms for 4 requests failed there.
            used = [cpu_s(child) - at_start for child, at_start in zip(children, before, strict=True)]
            assert min(used) > 0.3 * sum(used) > 0, used
            code, took = stopped_within(process, STOP_WITHIN_S)
            assert code == 0 and took < STOP_WITHIN_S, (code, took, process.last_lines())
            assert nothing_left(process.pid, 2), procfs.group_members(process.pid)
        finally:
            process.stop(5)

    log = process.log_path.read_text()
    assert f"workers={WORKERS}" in log and log.count("stopped (SIGTERM)") == WORKERS + 1, log
    if mode == "none":
        assert bodies == []
        return
    # Every worker exported its own metrics under its own service.instance.id, next to the run's
    # own attributes.
    ids = {f"tracetax-demo-node-worker-{index}-{child.pid}".encode() for index, child in enumerate(children, 1)}
    seen = set()
    for body in bodies:
        mine = [instance for instance in ids if instance in body]
        assert len(mine) == 1 and b"service.instance.id" in body and run_id.encode() in body, body[:300]
        seen.update(mine)
    assert seen == ids


@pytest.mark.parametrize("value", ["0", "65", "x"])
def test_a_bad_worker_count_is_refused_naming_the_variable(value: str) -> None:
    result = run(NODE.argv("none"), NODE.directory, {"TRACETAX_PROCESSOR": "none", "TRACETAX_WORKERS": value})
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "TRACETAX_WORKERS" in result.stderr and "1..64" in result.stderr, result.stderr


def test_a_dead_worker_is_not_replaced_and_fails_the_service(tmp_path: Path) -> None:
    process = start_cluster("none", {}, tmp_path)
    try:
        victim, survivor = workers(process)
        victim.kill()
        assert process.process is not None
        code = process.process.wait(STOP_WITHIN_S)
        assert code == 1, process.last_lines()
        assert not survivor.is_running() or survivor.status() == psutil.STATUS_ZOMBIE
        assert nothing_left(process.pid, 2)
    finally:
        process.stop(5)
    assert f"worker 1 (pid {victim.pid}) exited on its own" in process.log_path.read_text()


def test_the_workers_do_not_outlive_a_killed_primary(tmp_path: Path) -> None:
    process = start_cluster("none", {}, tmp_path)
    try:
        workers(process)
        os.kill(process.pid, signal.SIGKILL)
        assert nothing_left(process.pid, 5), procfs.group_members(process.pid)
    finally:
        process.stop(5)


def test_sigusr2_reaches_every_worker_and_each_writes_a_profile(tmp_path: Path) -> None:
    sampler = NodeCpuProfile(NODE.directory, tmp_path)
    process = start_cluster("none", sampler.environment(), tmp_path)
    try:
        children = workers(process)
        sampler.prepare(process.pid)  # as the engine does once the service is healthy
        sampler.start(process.pid, 1)  # SIGUSR2 to the primary: start
        work(process, 8, 2_000_000)
        sampler.end_window()  # SIGUSR2 again: stop, every worker writes its profile
        stacks = sampler.folded()
        code, _ = stopped_within(process, STOP_WITHIN_S)
    finally:
        process.stop(5)
    assert code == 0, process.last_lines()
    assert sorted(path.name.split(".")[1] for path in sampler.profiles) == sorted(str(c.pid) for c in children)
    assert sorted(sampler.profile_dir.iterdir()) == sampler.profiles  # no .tmp left, nothing else
    assert sum(count for stack, count in stacks.items() if stack.endswith("handler.js")) > 0, stacks
