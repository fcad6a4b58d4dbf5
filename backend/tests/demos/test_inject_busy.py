"""TRACETAX_INJECT_BUSY_US, the known cost for checking the harness: every /work request spins
that many microseconds of its thread's CPU time. 2000 µs must add 2 ms of CPU and about 2 ms of
latency to one request.

Not a benchmark: two instances of the service run side by side, without and with the busy-wait,
and take turns answering a few sequential keep-alive requests, so each pair of requests sees the
same machine load; the median of the pairs' differences is what the busy-wait added to the
latency (a preempted spin lasts longer: the median leaves those out), and the two processes' CPU
over the measured requests (the engine's own sampler: schedstat, nanoseconds) what it added to
the CPU. No
stack needed: exports go to a closed port and the services are not asked for a graceful exit.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import httpx
import pytest

from tracetax.demos.catalog import demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.engine.sampler import Sampler, resource_summary
from tracetax.system.ports import free_port

pytestmark = pytest.mark.services  # starts the real demo services: not in make test-unit

SERVICES = demo_services()
BUSY_US = 2000
WARM_UP, MEASURED = 10, 60
# Go and Python without OpenTelemetry and with the batch SDK (Go's is another binary), Node without.
# Java is left out: on a loaded machine its hand-off of each request between the HttpServer's threads
# varies by more than this allows (its bad values are refused in test_bad_input.py).
CASES = [
    pytest.param(language, mode, id=f"{language}-{mode}")
    for language, modes in (("go", ("none", "batch")), ("python", ("none", "batch")), ("node", ("none",)))
    for mode in modes
]


def start(language: str, mode: str, busy_us: int, log_dir: Path) -> ServiceProcess:
    manifest = SERVICES[language]
    port = free_port()
    env = {
        "TRACETAX_PROCESSOR": mode,
        "TRACETAX_INJECT_BUSY_US": str(busy_us),
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "500",
        "PORT": str(port),
    }
    process = ServiceProcess(
        manifest.argv(mode),
        cwd=manifest.directory,
        env=env,
        port=port,
        log_path=log_dir / f"{language}-{mode}-{busy_us}.log",
        name=f"{language} ({mode}, busy {busy_us} µs)",
    )
    process.start()
    return process


def request_pairs_ms(processes: list[ServiceProcess]) -> tuple[list[tuple[float, ...]], list[float]]:
    """MEASURED rounds (after WARM_UP) of one request to each service in turn: their latencies,
    and each service's CPU per request (µs) over them, as the engine samples it."""
    clients = [httpx.Client(base_url=process.base_url, timeout=10) for process in processes]
    samplers = [Sampler(process.pid) for process in processes]
    rounds = []
    try:
        for i in range(WARM_UP + MEASURED):
            if i == WARM_UP:
                for sampler in samplers:
                    sampler.start()
            latencies = []
            for http in clients:
                started = time.perf_counter()
                response = http.get("/work", params={"iters": 0})
                latencies.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text
            if i >= WARM_UP:
                rounds.append(tuple(latencies))
    finally:
        for http in clients:
            http.close()
        samples = [sampler.stop() for sampler in samplers]  # on every path: no sampler thread left
    return rounds, [resource_summary(taken, MEASURED)["cpu_per_request_us"] for taken in samples]


@pytest.mark.parametrize(("language", "mode"), CASES)
def test_busy_wait_adds_its_duration_to_a_request(language: str, mode: str, tmp_path: Path) -> None:
    processes: list[ServiceProcess] = []
    try:
        for busy_us in (0, BUSY_US):  # one after the other: each takes its port before the next picks one
            processes.append(start(language, mode, busy_us, tmp_path))
            processes[-1].wait_healthy(60)
        rounds, cpu_per_request_us = request_pairs_ms(processes)
    finally:
        for process in processes:
            process.stop(1)
    added = statistics.median(with_busy - without for without, with_busy in rounds)
    fastest = [min(latencies) for latencies in zip(*rounds, strict=True)]
    added_cpu_ms = (cpu_per_request_us[1] - cpu_per_request_us[0]) / 1000
    detail = (
        f"added {added:.2f} ms (fastest {fastest[0]:.2f} -> {fastest[1]:.2f} ms), CPU {added_cpu_ms:.3f} ms per request"
    )
    assert fastest[1] >= BUSY_US / 1000, detail  # the spin is never shorter than asked
    assert 0.85 * BUSY_US / 1000 <= added <= 1.5 * BUSY_US / 1000, detail
    # The CPU asked, never less (a spin on the wall clock gave less when preempted). Up to a
    # quarter more: unpinned here, the runtimes' idle threads look for work while a request spins
    # (Go's spinning Ms: +0.1-0.2 ms per 2 ms request with either clock), and the rest of a
    # request's CPU differs a little between two instances of one build. Without an SDK only:
    # a batch export (every few seconds, some milliseconds of CPU) lands in one instance's
    # 60 requests and not in the other's (Python's Batch once read 1.88 ms).
    if mode == "none":
        assert 0.95 * BUSY_US / 1000 <= added_cpu_ms <= 1.25 * BUSY_US / 1000, detail
