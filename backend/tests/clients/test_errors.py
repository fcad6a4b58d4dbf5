"""Client failures name the backend and the query (real sockets, nothing listening)."""

from __future__ import annotations

import pytest

from tracetax.clients.base import BackendError
from tracetax.clients.loki import LokiClient
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.tempo import TempoClient, spans_in_trace
from tracetax.system.ports import free_port


def closed_port_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


async def test_tempo_search_error_names_backend_and_query() -> None:
    async with TempoClient(closed_port_url(), timeout_s=1) as tempo:
        with pytest.raises(BackendError) as raised:
            await tempo.search('{ resource.service.name = "x" }', 0, 10)
    assert str(raised.value).startswith('tempo: TraceQL search `{ resource.service.name = "x" }` failed: ConnectError')


async def test_prometheus_query_error_names_backend_and_query() -> None:
    async with PrometheusClient(closed_port_url(), timeout_s=1) as metrics:
        with pytest.raises(BackendError, match=r"^metrics store: PromQL query `up` failed"):
            await metrics.query("up")


async def test_wait_ready_gives_up_with_the_readiness_url() -> None:
    url = closed_port_url()
    async with LokiClient(url, timeout_s=0.5) as loki:
        with pytest.raises(BackendError, match=rf"^loki: readiness {url}/ready failed: not ready after 1s"):
            await loki.wait_ready(timeout_s=1)


def test_spans_in_trace_reads_both_otlp_json_shapes() -> None:
    span = {"spanId": "a", "name": "GET /work"}
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "go"}}]}
    batches = {"batches": [{"resource": resource, "scopeSpans": [{"spans": [span, span]}]}]}
    v2 = {"trace": {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": [span]}]}]}}
    assert len(spans_in_trace(batches)) == 2
    assert spans_in_trace(v2)[0]["resource"] == resource


async def test_a_readiness_error_names_the_url_without_its_credentials() -> None:
    url = closed_port_url().replace("http://", "http://reader:hunter2@")
    async with LokiClient(url, timeout_s=1) as loki:
        with pytest.raises(BackendError) as raised:
            await loki.wait_ready(timeout_s=0.2)
    assert "hunter2" not in str(raised.value) and url.replace("reader:hunter2@", "") in str(raised.value)
