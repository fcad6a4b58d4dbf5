"""A late collection still reads a run's counter: the ledger asks for the run's window, not for
"now". An instant query at collection time sees a series only within the store's 5-minute
lookback, so a collection minutes after the run read "no series", which used to be taken as 0.

The counter is written through the real Collector into Mimir with its data point eleven minutes
in the past (as a run that ended then would have left it), and read back now."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime

import httpx
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.metrics.v1.metrics_pb2 import (
    AGGREGATION_TEMPORALITY_CUMULATIVE,
    Metric,
    NumberDataPoint,
    ResourceMetrics,
    ScopeMetrics,
    Sum,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from tests.polling import equals, eventually
from tracetax.clients.loki import LokiClient
from tracetax.clients.readback import RUN_ID_ATTRIBUTE, RunReadback, RunWindow, with_run_id
from tracetax.clients.tempo import TempoClient
from tracetax.diagnostics.ledger import REQUEST_COUNTER, RoundFacts, counter_ledger
from tracetax.native_stack.native import NativeStack

pytestmark = pytest.mark.stack

REQUESTS = 38_257
LATE_S = 11 * 60


def _attribute(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def counter_request(run_id: str, value: int, at_s: float, started_s: float) -> bytes:
    """One cumulative, monotonic data point of the demo's request counter, taken at `at_s`."""
    point = NumberDataPoint(start_time_unix_nano=int(started_s * 1e9), time_unix_nano=int(at_s * 1e9), as_int=value)
    point.attributes.append(_attribute("http.route", "/work"))
    metric = Metric(
        name=REQUEST_COUNTER.removesuffix("_total").replace("_", "."),
        unit="{request}",
        sum=Sum(data_points=[point], aggregation_temporality=AGGREGATION_TEMPORALITY_CUMULATIVE, is_monotonic=True),
    )
    resource = Resource(
        attributes=[_attribute("service.name", "tracetax-late-readback"), _attribute(RUN_ID_ATTRIBUTE, run_id)]
    )
    request = ExportMetricsServiceRequest(
        resource_metrics=[ResourceMetrics(resource=resource, scope_metrics=[ScopeMetrics(metrics=[metric])])]
    )
    return request.SerializeToString()


async def test_the_counter_is_read_eleven_minutes_after_the_run(native_stack: NativeStack) -> None:
    run_id = uuid.uuid4().hex
    ended = time.time() - LATE_S
    started = ended - 30
    ports = native_stack.ports
    async with httpx.AsyncClient() as client:
        answer = await client.post(
            f"http://127.0.0.1:{ports.otlp_http}/v1/metrics",
            content=counter_request(run_id, REQUESTS, ended, started),
            headers={"content-type": "application/x-protobuf"},
        )
        answer.raise_for_status()

    async with (
        TempoClient(f"http://127.0.0.1:{ports.tempo_http}") as tempo,
        LokiClient(f"http://127.0.0.1:{ports.loki_http}") as loki,
        native_stack.metrics_client() as metrics,
    ):
        readback = RunReadback(tempo, loki, metrics)
        window = RunWindow(started, ended)

        async def stored() -> float | None:
            return await readback.metric_sum(REQUEST_COUNTER, run_id, window)

        assert await eventually(stored, equals(REQUESTS)) == REQUESTS
        # What an instant query "now" sees of it: nothing (past the lookback). This is the read
        # that used to become the ledger's `stored: 0`.
        assert await metrics.query(f"sum({with_run_id(REQUEST_COUNTER, run_id)})") == []

        facts = RoundFacts(
            configuration="batch",
            round_index=0,
            run_id=run_id,
            started_at=datetime.fromtimestamp(started, UTC),
            finished_at=datetime.fromtimestamp(ended, UTC),
            requests_total=REQUESTS,
            spans_per_request=1,
            service_name="tracetax-late-readback",
            dropped_spans_selector=None,
        )
        ledger = await counter_ledger(readback, facts)
        assert [(s.stage, s.value) for s in ledger.stages] == [("expected", REQUESTS), ("stored", REQUESTS)]
        assert ledger.balanced is True


async def test_no_series_in_the_window_is_unknown_with_its_reason(native_stack: NativeStack) -> None:
    ports = native_stack.ports
    async with (
        TempoClient(f"http://127.0.0.1:{ports.tempo_http}") as tempo,
        LokiClient(f"http://127.0.0.1:{ports.loki_http}") as loki,
        native_stack.metrics_client() as metrics,
    ):
        readback = RunReadback(tempo, loki, metrics)
        now = datetime.now(UTC)
        facts = RoundFacts(
            configuration="batch",
            round_index=0,
            run_id=uuid.uuid4().hex,
            started_at=now,
            finished_at=now,
            requests_total=100,
            spans_per_request=1,
            service_name="tracetax-late-readback",
            dropped_spans_selector=None,
        )
        stored = (await counter_ledger(readback, facts)).stages[1]
        assert stored.value is None
        assert stored.unknown_reason and f"no series of {REQUEST_COUNTER}" in stored.unknown_reason
