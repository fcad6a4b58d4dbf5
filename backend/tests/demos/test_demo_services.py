"""Every demo service in every mode against the real stack (issue: demo services).

For each (language, mode): start the service with OTLP pointed at the native stack's
Collector, send M requests with K spans each, stop it gracefully (its SDK flushes), then read
back exactly M*K spans from Tempo, M log records from Loki and a request counter of M from the
metrics store, all selected by a run id unique to the test. `none` must produce nothing at all
and load no OpenTelemetry library. A tiny queue in front of an unreachable endpoint must raise
the SDK's dropped-span counter.

The service cases overlap: each spends a few seconds working and most of its time waiting for its
telemetry to show in Tempo, Loki and the metrics store (one after another, over four minutes for
the module). So the `cases` fixture starts every selected case at once, as a task, with at most
LIVE_SERVICES services running at a time and STARTS of them starting (their starts, the JVM's
above all, compete for two cores), and each test awaits its own case and asserts on what it
returns: one test id per case, a failure reported by the case it belongs to. Neighbours cannot
change a case's counts: each reads back only its own run id, and none of these tests measures
speed. The proxy test at the end runs alone, after the pool.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

import httpx
import pytest

from tests.polling import equals, eventually
from tracetax.clients.loki import LokiClient
from tracetax.clients.readback import RunReadback
from tracetax.clients.tempo import TempoClient
from tracetax.demos.catalog import ServiceManifest, demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.native_stack.native import NativeStack
from tracetax.system.ports import free_port

pytestmark = pytest.mark.stack

SERVICES = demo_services()
REQUESTS, SPANS = 40, 3
DROP_REQUESTS, DROP_SPANS = 50, 20
REQUEST_COUNTER = "tracetax_demo_requests_total"
IN_PROCESS_SDK = ("simple", "batch", "agent")
# Nothing listens on the discard port: exports there fail at once.
UNREACHABLE = "http://127.0.0.1:9"
# Services running at once: their waits overlap, their work competes for two cores. At most the
# default executor's size (cores + 4): each one holds a thread while it starts and while it stops.
LIVE_SERVICES = 6
# Span readbacks at once. Tempo's query frontend queues a bounded number of jobs and splits each
# trace fetched by id into many (a readback fetches 8 at a time): with every case reading at once
# it answered HTTP 429 "job queue full".
TEMPO_READS = 2
# Services starting at once. A start is CPU-bound (a JVM loading the agent takes ~15 s of a core):
# with six starting together on two cores, CI saw java-agent miss its health wait. Two at a time
# keep every start within it; the waits for telemetry still overlap.
STARTS = 2
HEALTH_WAIT_S = 90

RUNNABLE = [
    pytest.param(language, mode, id=f"{language}-{mode}")
    for language, manifest in SERVICES.items()
    for mode, spec in manifest.modes.items()
    if spec.available
]
# One per SDK: each language's SDK in batch mode, and the Java agent's bundled SDK.
WITH_DROP_COUNTER = [
    pytest.param(language, mode, id=f"{language}-{mode}")
    for language, manifest in SERVICES.items()
    for mode in ("batch", "agent")
    if mode in manifest.modes and manifest.modes[mode].available and manifest.dropped_spans_selector(mode)
]


def service_name(language: str) -> str:
    return f"tracetax-demo-{language}"


def otel_env(stack: NativeStack, language: str, mode: str, run_id: str, protocol: str) -> dict[str, str]:
    ports = stack.ports
    endpoint = f"http://127.0.0.1:{ports.otlp_grpc}" if protocol == "grpc" else f"http://127.0.0.1:{ports.otlp_http}"
    return {
        "TRACETAX_PROCESSOR": mode,
        "OTEL_SERVICE_NAME": service_name(language),
        "OTEL_RESOURCE_ATTRIBUTES": f"tracetax.run.id={run_id},tracetax.config={mode}",
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": protocol,
        "OTEL_METRIC_EXPORT_INTERVAL": "1000",
        "OTEL_BSP_SCHEDULE_DELAY": "200",
        "OTEL_BLRP_SCHEDULE_DELAY": "200",
    }


def start_service(manifest: ServiceManifest, mode: str, env: dict[str, str], log_dir: Path) -> ServiceProcess:
    port = free_port()
    process = ServiceProcess(
        manifest.argv(mode),
        cwd=manifest.directory,
        env={**env, "PORT": str(port)},
        port=port,
        log_path=log_dir / f"{manifest.language}-{mode}.log",
        name=f"{manifest.language} ({mode})",
    )
    process.start()
    return process


async def drive(process: ServiceProcess, requests: int, spans: int) -> None:
    async with httpx.AsyncClient(base_url=process.base_url, timeout=10) as http:
        for _ in range(requests):
            response = await http.get("/work", params={"iters": 1000, "spans": spans})
            assert response.status_code == 200, response.text
            assert response.json()["spans"] == spans


Counts = tuple[float, float, float]  # spans, log records, request counter


@dataclass(frozen=True)
class Harness:
    """What every case runs against: the stack, its readback, and the slots for live services
    and for span readbacks."""

    stack: NativeStack
    readback: RunReadback
    service_slots: asyncio.Semaphore
    tempo_reads: asyncio.Semaphore
    starts: asyncio.Semaphore

    async def spans(self, run_id: str, started: int, name: str | None) -> int:
        async with self.tempo_reads:
            return await self.readback.spans(run_id, started, name=name)


@dataclass(frozen=True)
class ServiceRun:
    """One service started, driven and stopped."""

    process: ServiceProcess
    health: dict[str, object]
    exit_code: int | None


async def run_service(
    harness: Harness,
    manifest: ServiceManifest,
    mode: str,
    env: dict[str, str],
    log_dir: Path,
    load: tuple[int, int],
    linger_s: float = 0,
) -> ServiceRun:
    """Start the service in one of the harness's slots, wait for its health, send `load`
    (requests, spans each), let it run `linger_s` more, and stop it gracefully on every path."""
    async with harness.service_slots:
        async with harness.starts:
            process = start_service(manifest, mode, env, log_dir)
            try:
                health = await asyncio.to_thread(process.wait_healthy, HEALTH_WAIT_S)
            except BaseException:
                await asyncio.to_thread(process.stop, 20)
                raise
        try:
            await drive(process, *load)
            await asyncio.sleep(linger_s)
        finally:
            exit_code = await asyncio.to_thread(process.stop, 20)
    return ServiceRun(process, health, exit_code)


async def read_back(
    harness: Harness, language: str, run_id: str, started: int, expected: Counts, span_name: str | None = None
) -> Counts:
    """The run's spans, log records and request count, each polled until it equals what was
    expected or its time runs out (the test then shows what did arrive)."""
    readback = harness.readback

    async def requests_counted() -> float:
        # No series of the counter: a mode that exports no metrics counted nothing (0 expected).
        value = await readback.metric_sum(REQUEST_COUNTER, run_id)
        return 0.0 if value is None else value

    spans, records, counter = await asyncio.gather(
        eventually(lambda: harness.spans(run_id, started, span_name), equals(expected[0])),
        eventually(lambda: readback.log_records(service_name(language), run_id), equals(expected[1])),
        eventually(requests_counted, equals(expected[2])),
    )
    return spans, records, counter


CaseRunner = Callable[..., Coroutine[Any, Any, object]]
Test = TypeVar("Test", bound=Callable[..., Any])
Outcome = TypeVar("Outcome")
# Parametrized tests whose cases run in the pool, by name: runner(harness, log_dir, **params).
RUNNERS: dict[str, CaseRunner] = {}


def run_by(runner: CaseRunner) -> Callable[[Test], Test]:
    """Registers the runner of a parametrized test's cases; the test awaits its case's outcome."""

    def register(test: Test) -> Test:
        RUNNERS[test.__name__] = runner
        return test

    return register


class CasePool:
    """One task per case of a RUNNERS test, started together; each test awaits its own."""

    def __init__(self, harness: Harness, tmp_path_factory: pytest.TempPathFactory) -> None:
        self.harness = harness
        self.tmp_path_factory = tmp_path_factory
        self.tasks: dict[str, asyncio.Task[object]] = {}

    @staticmethod
    def runs(item: pytest.Item) -> TypeGuard[pytest.Function]:
        return isinstance(item, pytest.Function) and item.path == Path(__file__) and item.originalname in RUNNERS

    def start(self, item: pytest.Function) -> asyncio.Task[object]:
        case_name = f"{item.originalname.removeprefix('test_')[:24]}-{item.callspec.id}"
        log_dir = self.tmp_path_factory.mktemp(re.sub(r"\W", "_", case_name))
        case = RUNNERS[item.originalname](self.harness, log_dir, **item.callspec.params)
        task = self.tasks[item.nodeid] = asyncio.create_task(case, name=item.nodeid)
        return task

    async def outcome(self, item: pytest.Item, kind: type[Outcome]) -> Outcome:
        """The case's outcome (its failure raised here, in its own test)."""
        assert isinstance(item, pytest.Function), item
        result = await (self.tasks.get(item.nodeid) or self.start(item))
        if not isinstance(result, kind):
            raise TypeError(f"{item.nodeid}: the runner returned {type(result).__name__}, not {kind.__name__}")
        return result

    async def cancel_leftovers(self) -> None:
        """Cases still running (their tests never reached: the session stopped by -x or a
        failed fixture) are cancelled, and waited for while each stops its service."""
        for task in self.tasks.values():
            task.cancel()  # a finished task ignores it
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        self.tasks.clear()


@pytest.fixture(scope="module")
async def readback(native_stack: NativeStack) -> AsyncIterator[RunReadback]:
    ports = native_stack.ports
    async with (
        TempoClient(f"http://127.0.0.1:{ports.tempo_http}") as tempo,
        LokiClient(f"http://127.0.0.1:{ports.loki_http}") as loki,
        native_stack.metrics_client() as metrics,
    ):
        yield RunReadback(tempo, loki, metrics)


@pytest.fixture(scope="module")
async def cases(
    request: pytest.FixtureRequest,
    native_stack: NativeStack,
    readback: RunReadback,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[CasePool]:
    """Starts, on first use, every case of this session's selection that runs in the pool."""
    harness = Harness(
        native_stack,
        readback,
        asyncio.Semaphore(LIVE_SERVICES),
        asyncio.Semaphore(TEMPO_READS),
        asyncio.Semaphore(STARTS),
    )
    pool = CasePool(harness, tmp_path_factory)
    try:
        # In the order they will be awaited, so the slots go to the earliest tests first.
        for item in request.session.items:
            if CasePool.runs(item):
                pool.start(item)
        yield pool
    finally:
        await pool.cancel_leftovers()


def test_every_language_is_present() -> None:
    assert set(SERVICES) >= {"go", "python", "java", "node"}
    for manifest in SERVICES.values():
        assert {"none", "simple", "batch"} <= set(manifest.modes), manifest.language


@dataclass(frozen=True)
class CountedRun:
    """A run and what the backends hold of it, against what it should have produced."""

    run: ServiceRun
    counts: Counts
    expected: Counts


async def run_mode(harness: Harness, log_dir: Path, language: str, mode: str) -> CountedRun:
    manifest = SERVICES[language]
    run_id = uuid.uuid4().hex
    started = int(time.time()) - 60
    # Alternate protocols so both OTLP transports are exercised in every language.
    protocol = "grpc" if mode in ("batch", "agent") else "http/protobuf"
    env = otel_env(harness.stack, language, mode, run_id, protocol)
    run = await run_service(harness, manifest, mode, env, log_dir, (REQUESTS, SPANS))
    if mode == "none":
        await asyncio.sleep(5)  # anything sent would be in the backends by now
        nothing: Counts = (0, 0, 0)
        return CountedRun(run, await read_back(harness, language, run_id, started, nothing), nothing)
    signals = manifest.modes[mode].signals
    spans_per_request = signals.spans_per_request or SPANS
    expected = (REQUESTS * spans_per_request, REQUESTS if signals.logs else 0, REQUESTS if signals.metrics else 0)
    counts = await read_back(harness, language, run_id, started, expected, signals.span_name)
    return CountedRun(run, counts, expected)


@run_by(run_mode)
@pytest.mark.parametrize(("language", "mode"), RUNNABLE)
async def test_mode_produces_exactly_what_it_was_asked(
    language: str, mode: str, cases: CasePool, request: pytest.FixtureRequest
) -> None:
    outcome = await cases.outcome(request.node, CountedRun)
    health, process = outcome.run.health, outcome.run.process
    assert health.get("processor") == mode
    # eBPF records from outside the process: the instrumented binary links no OpenTelemetry.
    assert health.get("otel_loaded") is (mode in IN_PROCESS_SDK), health
    assert outcome.run.exit_code == 0, f"not a graceful exit ({outcome.run.exit_code})\n{process.last_lines()}"
    assert outcome.counts == outcome.expected, process.last_lines()


@dataclass(frozen=True)
class DroppedSpans:
    run: ServiceRun
    dropped: float


async def run_tiny_queue(harness: Harness, log_dir: Path, language: str, mode: str) -> DroppedSpans:
    manifest = SERVICES[language]
    selector = manifest.dropped_spans_selector(mode)
    assert selector
    run_id = uuid.uuid4().hex
    env = otel_env(harness.stack, language, mode, run_id, "http/protobuf")
    # Spans go nowhere through a queue of 8; metrics (with the SDK's own) still reach the stack.
    env |= {
        "OTEL_BSP_MAX_QUEUE_SIZE": "8",
        "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "8",
        "OTEL_BSP_SCHEDULE_DELAY": "5000",
        "OTEL_BSP_EXPORT_TIMEOUT": "1000",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{UNREACHABLE}/v1/traces",
        # Go's SDK counts its drops only with its self-observability on, off unless asked for.
        "OTEL_GO_X_OBSERVABILITY": "true",
    }
    # 20 spans per request into a queue of 8: each request overflows it before the worker can
    # drain it, however fast the failing exports return. Then one metric export interval (2 s)
    # while the process still runs.
    run = await run_service(harness, manifest, mode, env, log_dir, (DROP_REQUESTS, DROP_SPANS), linger_s=2)
    dropped = await eventually(
        lambda: harness.readback.metric_sum(selector, run_id), lambda value: value is not None and value > 0, 30
    )
    return DroppedSpans(run, dropped)


@run_by(run_tiny_queue)
@pytest.mark.parametrize(("language", "mode"), WITH_DROP_COUNTER)
async def test_tiny_queue_counts_dropped_spans(
    language: str, mode: str, cases: CasePool, request: pytest.FixtureRequest
) -> None:
    outcome = await cases.outcome(request.node, DroppedSpans)
    assert outcome.dropped > 0, f"{language}: no dropped spans counted\n{outcome.run.process.last_lines()}"
    assert outcome.dropped <= DROP_REQUESTS * DROP_SPANS


# One signal switched off at a time, and the whole SDK: what each language's Batch mode exports then.
SWITCHES = [
    pytest.param({"OTEL_TRACES_EXPORTER": "none"}, (0, 1, 1), id="traces-none"),
    pytest.param({"OTEL_LOGS_EXPORTER": "NONE"}, (1, 0, 1), id="logs-none"),
    pytest.param({"OTEL_METRICS_EXPORTER": "none"}, (1, 1, 0), id="metrics-none"),
    pytest.param({"OTEL_SDK_DISABLED": "true"}, (0, 0, 0), id="sdk-disabled"),
]


async def run_switch(
    harness: Harness, log_dir: Path, language: str, switch: dict[str, str], exported: tuple[int, int, int]
) -> CountedRun:
    run_id = uuid.uuid4().hex
    started = int(time.time()) - 60
    env = otel_env(harness.stack, language, "batch", run_id, "http/protobuf") | switch
    run = await run_service(harness, SERVICES[language], "batch", env, log_dir, (REQUESTS, SPANS))
    expected = (REQUESTS * SPANS * exported[0], REQUESTS * exported[1], REQUESTS * exported[2])
    return CountedRun(run, await read_back(harness, language, run_id, started, expected), expected)


@run_by(run_switch)
@pytest.mark.parametrize("language", sorted(SERVICES))
@pytest.mark.parametrize(("switch", "exported"), SWITCHES)
async def test_signal_switches_turn_exactly_that_signal_off(
    language: str,
    switch: dict[str, str],
    exported: tuple[int, int, int],
    cases: CasePool,
    request: pytest.FixtureRequest,
) -> None:
    outcome = await cases.outcome(request.node, CountedRun)
    process = outcome.run.process
    assert outcome.run.exit_code == 0, f"not a graceful exit ({outcome.run.exit_code})\n{process.last_lines()}"
    assert outcome.counts == outcome.expected, process.last_lines()


async def delaying_proxy(target_port: int, delay_s: float) -> asyncio.Server:
    """A TCP hop to the Collector that holds every chunk from the service `delay_s` before
    passing it on: with a short export interval, an export is in flight at almost any moment."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
        try:
            while data := await reader.read(65536):
                await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def relay(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(client_reader, upstream_writer, delay_s), pipe(upstream_reader, client_writer, 0))

    return await asyncio.start_server(relay, "127.0.0.1", 0)


async def test_java_final_metrics_survive_a_stop_during_an_export(
    native_stack: NativeStack, readback: RunReadback, tmp_path: Path
) -> None:
    """Stopped while a metric export is in flight, the Java service still delivers its final
    counts. SDK 1.58's PeriodicMetricReader.shutdown drops them (opentelemetry-java#8299), which
    made test_mode_produces_exactly_what_it_was_asked[java-batch] read 0 requests now and then;
    OtelSetup.flushMetrics waits the in-flight export out and exports once more."""
    run_id = uuid.uuid4().hex
    proxy = await delaying_proxy(native_stack.ports.otlp_grpc, 0.5)
    proxy_port = proxy.sockets[0].getsockname()[1]
    env = otel_env(native_stack, "java", "batch", run_id, "grpc") | {
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": f"http://127.0.0.1:{proxy_port}",
        "OTEL_METRIC_EXPORT_INTERVAL": "200",
    }
    process = start_service(SERVICES["java"], "batch", env, tmp_path)
    try:
        await asyncio.to_thread(process.wait_healthy, 60)
        await drive(process, REQUESTS, 1)
    finally:
        exit_code = await asyncio.to_thread(process.stop, 20)
        proxy.close()
    assert exit_code == 0, process.last_lines()
    counter = await eventually(lambda: readback.metric_sum(REQUEST_COUNTER, run_id), equals(REQUESTS))
    assert counter == REQUESTS, process.last_lines()
