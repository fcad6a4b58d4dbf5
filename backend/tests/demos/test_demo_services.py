"""Every demo service in every mode against the real stack (issue: demo services).

For each (language, mode): start the service with OTLP pointed at the native stack's
Collector, send M requests with K spans each, stop it gracefully (its SDK flushes), then read
back exactly M*K spans from Tempo, M log records from Loki and a request counter of M from the
metrics store, all selected by a run id unique to the test. `none` must produce nothing at all
and load no OpenTelemetry library. A tiny queue in front of an unreachable endpoint must raise
the SDK's dropped-span counter.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

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


@pytest.fixture(scope="module")
async def readback(native_stack: NativeStack) -> AsyncIterator[RunReadback]:
    ports = native_stack.ports
    async with (
        TempoClient(f"http://127.0.0.1:{ports.tempo_http}") as tempo,
        LokiClient(f"http://127.0.0.1:{ports.loki_http}") as loki,
        native_stack.metrics_client() as metrics,
    ):
        yield RunReadback(tempo, loki, metrics)


def test_every_language_is_present() -> None:
    assert set(SERVICES) >= {"go", "python", "java", "node"}
    for manifest in SERVICES.values():
        assert {"none", "simple", "batch"} <= set(manifest.modes), manifest.language


@pytest.mark.parametrize(("language", "mode"), RUNNABLE)
async def test_mode_produces_exactly_what_it_was_asked(
    language: str, mode: str, native_stack: NativeStack, readback: RunReadback, tmp_path: Path
) -> None:
    manifest = SERVICES[language]
    run_id = uuid.uuid4().hex
    started = int(time.time()) - 60
    # Alternate protocols so both OTLP transports are exercised in every language.
    protocol = "grpc" if mode in ("batch", "agent") else "http/protobuf"
    process = start_service(manifest, mode, otel_env(native_stack, language, mode, run_id, protocol), tmp_path)
    try:
        health = await asyncio.to_thread(process.wait_healthy, 60)
        assert health.get("processor") == mode
        # eBPF records from outside the process: the instrumented binary links no OpenTelemetry.
        assert health.get("otel_loaded") is (mode in IN_PROCESS_SDK), health
        await drive(process, REQUESTS, SPANS)
    finally:
        exit_code = await asyncio.to_thread(process.stop, 20)
    assert exit_code == 0, f"not a graceful exit ({exit_code})\n{process.last_lines()}"

    if mode == "none":
        await asyncio.sleep(5)  # anything sent would be in the backends by now
        assert await readback.spans(run_id, started) == 0
        assert await readback.log_records(service_name(language), run_id) == 0
        assert await readback.metric_sum(REQUEST_COUNTER, run_id) == 0
        return

    signals = manifest.modes[mode].signals
    spans_per_request = signals.spans_per_request or SPANS
    expected = (REQUESTS * spans_per_request, REQUESTS if signals.logs else 0, REQUESTS if signals.metrics else 0)
    spans, records, counter = await asyncio.gather(
        eventually(lambda: readback.spans(run_id, started, name=signals.span_name), equals(expected[0])),
        eventually(lambda: readback.log_records(service_name(language), run_id), equals(expected[1])),
        eventually(lambda: readback.metric_sum(REQUEST_COUNTER, run_id), equals(expected[2])),
    )
    assert (spans, records, counter) == expected, process.last_lines()


@pytest.mark.parametrize(("language", "mode"), WITH_DROP_COUNTER)
async def test_tiny_queue_counts_dropped_spans(
    language: str, mode: str, native_stack: NativeStack, readback: RunReadback, tmp_path: Path
) -> None:
    manifest = SERVICES[language]
    selector = manifest.dropped_spans_selector(mode)
    assert selector
    run_id = uuid.uuid4().hex
    env = otel_env(native_stack, language, mode, run_id, "http/protobuf")
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
    process = start_service(manifest, mode, env, tmp_path)
    try:
        await asyncio.to_thread(process.wait_healthy, 60)
        # 20 spans per request into a queue of 8: each request overflows it before the worker
        # can drain it, however fast the failing exports return.
        await drive(process, DROP_REQUESTS, DROP_SPANS)
        await asyncio.sleep(2)  # one metric export interval, while the process still runs
    finally:
        await asyncio.to_thread(process.stop, 20)

    dropped = await eventually(lambda: readback.metric_sum(selector, run_id), lambda value: value > 0, 30)
    assert dropped > 0, f"{language}: no dropped spans counted\n{process.last_lines()}"
    assert dropped <= DROP_REQUESTS * DROP_SPANS


# One signal switched off at a time, and the whole SDK: what each language's Batch mode exports then.
SWITCHES = [
    pytest.param({"OTEL_TRACES_EXPORTER": "none"}, (0, 1, 1), id="traces-none"),
    pytest.param({"OTEL_LOGS_EXPORTER": "NONE"}, (1, 0, 1), id="logs-none"),
    pytest.param({"OTEL_METRICS_EXPORTER": "none"}, (1, 1, 0), id="metrics-none"),
    pytest.param({"OTEL_SDK_DISABLED": "true"}, (0, 0, 0), id="sdk-disabled"),
]


@pytest.mark.parametrize("language", sorted(SERVICES))
@pytest.mark.parametrize(("switch", "exported"), SWITCHES)
async def test_signal_switches_turn_exactly_that_signal_off(
    language: str,
    switch: dict[str, str],
    exported: tuple[int, int, int],
    native_stack: NativeStack,
    readback: RunReadback,
    tmp_path: Path,
) -> None:
    manifest = SERVICES[language]
    run_id = uuid.uuid4().hex
    started = int(time.time()) - 60
    env = otel_env(native_stack, language, "batch", run_id, "http/protobuf") | switch
    process = start_service(manifest, "batch", env, tmp_path)
    try:
        await asyncio.to_thread(process.wait_healthy, 60)
        await drive(process, REQUESTS, SPANS)
    finally:
        exit_code = await asyncio.to_thread(process.stop, 20)
    assert exit_code == 0, f"not a graceful exit ({exit_code})\n{process.last_lines()}"
    expected = (REQUESTS * SPANS * exported[0], REQUESTS * exported[1], REQUESTS * exported[2])
    spans, records, counter = await asyncio.gather(
        eventually(lambda: readback.spans(run_id, started), equals(expected[0])),
        eventually(lambda: readback.log_records(service_name(language), run_id), equals(expected[1])),
        eventually(lambda: readback.metric_sum(REQUEST_COUNTER, run_id), equals(expected[2])),
    )
    assert (spans, records, counter) == expected, process.last_lines()


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
