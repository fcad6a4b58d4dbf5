"""Round trip through the real stack: OTLP into the Collector, exact counts back out of
Tempo, Loki and Mimir through TraceTax's own clients."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime

import pytest
from opentelemetry._logs import LogRecord, SeverityNumber
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from tests.polling import equals, eventually
from tracetax.clients.loki import LokiClient
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.readback import RunReadback, with_run_id
from tracetax.clients.tempo import TempoClient, spans_in_trace
from tracetax.core.config import get_settings
from tracetax.diagnostics.ledger import collector_delta, collector_drained_since
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack

SERVICE = "tracetax-roundtrip"
TRACES, SPANS_PER_TRACE = 20, 5
LOG_RECORDS = 30
COUNTER_INCREMENTS = 25


def send_telemetry(otlp_endpoint: str, run_id: str) -> None:
    """Send exactly TRACES*SPANS_PER_TRACE spans, LOG_RECORDS log records and a counter that
    ends at COUNTER_INCREMENTS, all tagged with the run id, and flush everything."""
    resource = Resource.create({"service.name": SERVICE, "tracetax.run.id": run_id})

    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=otlp_endpoint, insecure=True)))
    tracer = tracer_provider.get_tracer("tracetax.tests")
    for trace_index in range(TRACES):
        with tracer.start_as_current_span("GET /work", attributes={"trace.index": trace_index}):
            for child in range(SPANS_PER_TRACE - 1):
                with tracer.start_as_current_span(f"step-{child}"):
                    pass

    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(
        BatchLogRecordProcessor(OTLPLogExporter(endpoint=otlp_endpoint, insecure=True))
    )
    logger = logger_provider.get_logger("tracetax.tests")
    for index in range(LOG_RECORDS):
        logger.emit(
            LogRecord(
                timestamp=time.time_ns(),
                body=f"round trip record {index}",
                severity_number=SeverityNumber.INFO,
                severity_text="INFO",
            )
        )

    reader = PeriodicExportingMetricReader(
        OTLPMetricExporter(endpoint=otlp_endpoint, insecure=True), export_interval_millis=60_000
    )
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    counter = meter_provider.get_meter("tracetax.tests").create_counter("tracetax.roundtrip.requests", unit="{request}")
    for _ in range(COUNTER_INCREMENTS):
        counter.add(1, {"route": "/work"})

    # shutdown() flushes: every processor and the metric reader export what they hold.
    tracer_provider.shutdown()
    logger_provider.shutdown()
    meter_provider.shutdown()


# Per Collector instance: a restarted Collector is a new series, and an old instance's series
# drops out of instant queries after the lookback, so totals across instances are not monotonic.
async def test_exact_counts_round_trip(native_stack: NativeStack) -> None:
    run_id = uuid.uuid4().hex
    started = int(time.time()) - 60
    ports = native_stack.ports

    async with (
        TempoClient(f"http://127.0.0.1:{ports.tempo_http}") as tempo,
        LokiClient(f"http://127.0.0.1:{ports.loki_http}") as loki,
        native_stack.metrics_client() as metrics,
    ):
        for client in (tempo, loki, metrics):
            await client.wait_ready(timeout_s=30)
        before = datetime.now(UTC)
        await asyncio.to_thread(send_telemetry, f"127.0.0.1:{ports.otlp_grpc}", run_id)

        readback = RunReadback(tempo, loki, metrics)

        async def spans() -> float:
            return await readback.spans(run_id, started)

        async def log_records() -> float:
            return await readback.log_records(SERVICE, run_id)

        async def counter() -> float | None:
            return await readback.metric_sum("tracetax_roundtrip_requests_total", run_id)

        span_count, record_count, counter_value = await asyncio.gather(
            eventually(spans, equals(TRACES * SPANS_PER_TRACE)),
            eventually(log_records, equals(LOG_RECORDS)),
            eventually(counter, equals(COUNTER_INCREMENTS)),
        )
        assert span_count == TRACES * SPANS_PER_TRACE
        assert record_count == LOG_RECORDS
        assert counter_value == COUNTER_INCREMENTS

        # The Collector's own telemetry reaches the store too: its receiver counted our spans.
        # (At least, not exactly: other senders may share a reused `make up` stack.)
        async def accepted_increase() -> float:
            # Per Collector instance (the ledger's delta): a restarted Collector is a new series.
            # None until its first scrape reaches Mimir (a fresh stack, this test first): not yet.
            increase = await collector_delta(
                metrics, "otelcol_receiver_accepted_spans_total", 'receiver="otlp/apps"', before, datetime.now(UTC)
            )
            return increase or 0.0

        increase = await eventually(accepted_increase, lambda value: value >= TRACES * SPANS_PER_TRACE, 30)
        assert increase >= TRACES * SPANS_PER_TRACE

        # Search counts must agree with whole traces fetched by id.
        traces = await tempo.search(
            f'{{ resource.tracetax.run.id = "{run_id}" }}', started, int(time.time()) + 60, limit=100
        )
        assert len(traces) == TRACES
        whole = await tempo.trace(traces[0].trace_id)
        assert len(spans_in_trace(whole)) == SPANS_PER_TRACE


async def test_service_metrics_and_collector_telemetry_both_reach_mimir(native_stack: NativeStack) -> None:
    """A service's metric goes Collector -> Mimir over OTLP, found by its run id; the
    Collector's own counters are pushed to Mimir over OTLP every second (as in compose and
    Helm: no Prometheus), found by the spans this test sent. Both arrive within the ledger's
    settle time, the ledger's only wait before reading them."""
    run_id = uuid.uuid4().hex
    ports = native_stack.ports
    settle_s = get_settings().ledger_settle_s
    async with native_stack.metrics_client() as mimir:
        await mimir.wait_ready(timeout_s=30)
        before = datetime.now(UTC)
        await asyncio.to_thread(send_telemetry, f"127.0.0.1:{ports.otlp_grpc}", run_id)
        sent = time.monotonic()

        async def counter() -> float:
            selector = with_run_id("tracetax_roundtrip_requests_total", run_id)
            return sum(sample.value for sample in await mimir.query(f"sum({selector})"))

        async def accepted_spans() -> float:
            increase = await collector_delta(
                mimir, "otelcol_receiver_accepted_spans_total", 'receiver="otlp/apps"', before, datetime.now(UTC)
            )
            return increase or 0.0

        assert await eventually(counter, equals(COUNTER_INCREMENTS), settle_s) == COUNTER_INCREMENTS
        assert await eventually(accepted_spans, lambda v: v >= TRACES * SPANS_PER_TRACE, settle_s) >= (
            TRACES * SPANS_PER_TRACE
        )
        assert time.monotonic() - sent < settle_s, "the pushed counters took longer than ledger_settle_s"

        # The Collector's series came over OTLP: its instance is its service.instance.id (not a
        # scrape target's host:port), its deployment the native overlay's.
        pushed = await mimir.query(
            'otelcol_process_uptime_seconds_total{job="otelcol-tracetax",deployment_environment_name="native"}'
        )
        assert pushed and all(":" not in s.labels["instance"] for s in pushed)


async def test_mimir_shows_the_collector_drained_soon_after_the_senders_stop(native_stack: NativeStack) -> None:
    """A phase's settle (engine/settle.py) ends once the native stack's Mimir holds a sample
    of the Collector's counters, taken after the services stopped, with nothing held: within the
    fixed 2.5 s it replaces, or it would only ever wait those 2.5 s."""
    ports = native_stack.ports
    await asyncio.to_thread(send_telemetry, f"127.0.0.1:{ports.otlp_grpc}", uuid.uuid4().hex)
    stopped_at = time.time()  # every exporter has flushed: the senders have stopped
    async with PrometheusClient(f"http://127.0.0.1:{ports.mimir_http}/prometheus") as mimir:
        while not await collector_drained_since(mimir, stopped_at):
            assert time.time() - stopped_at < 2.5, "no drained sample of the Collector within 2.5 s"
            await asyncio.sleep(0.1)
    print(f"drained and sampled {time.time() - stopped_at:.2f} s after the senders stopped")
