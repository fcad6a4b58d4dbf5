"""The stores' counters read from their own /metrics: the parsing of each store's page (in
store_metrics/: the families TraceTax reads, cut from the native stack's Tempo, Loki and Mimir)
and the reader's failures, each kept as its store's own (an httpx mock transport: no store runs)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tracetax.clients.store_counters import Counter, StoreCounterReader, metrics_urls, parse
from tracetax.core.config import Settings

PAGES = Path(__file__).parent / "store_metrics"
TEMPO_BYTES = Counter("tempo_distributor_bytes_received_total")
MIMIR_OTLP = Counter("cortex_distributor_uncompressed_request_body_size_bytes_sum", {"handler": "otlp"})


def page(store: str) -> str:
    return (PAGES / f"{store}.txt").read_text()


def test_a_counter_is_summed_over_its_series_and_the_start_time_kept() -> None:
    text = (
        "# TYPE tempo_distributor_bytes_received_total counter\n"
        'tempo_distributor_bytes_received_total{tenant="a"} 100\n'
        'tempo_distributor_bytes_received_total{tenant="b"} 23.5\n'
        "# TYPE process_start_time_seconds gauge\n"
        "process_start_time_seconds 1.7e+09\n"
    )
    assert parse(text, [TEMPO_BYTES]) == ({TEMPO_BYTES.key: 123.5}, 1.7e9)


def test_only_the_series_with_the_asked_labels_count() -> None:
    text = (
        "# TYPE cortex_distributor_uncompressed_request_body_size_bytes histogram\n"
        'cortex_distributor_uncompressed_request_body_size_bytes_sum{handler="otlp",user="x"} 10\n'
        'cortex_distributor_uncompressed_request_body_size_bytes_sum{handler="push",user="x"} 1000\n'
        'cortex_distributor_uncompressed_request_body_size_bytes_count{handler="otlp",user="x"} 1\n'
    )
    values, started = parse(text, [MIMIR_OTLP])
    assert values == {'cortex_distributor_uncompressed_request_body_size_bytes_sum{handler="otlp"}': 10.0}
    assert started is None


def test_an_absent_counter_is_absent_not_zero() -> None:
    assert parse("# TYPE up gauge\nup 1\n", [TEMPO_BYTES]) == ({}, None)


@pytest.mark.parametrize(
    ("store", "counter"),
    [
        ("tempo", TEMPO_BYTES),
        ("tempo", Counter("tempo_distributor_spans_received_total")),
        ("loki", Counter("loki_distributor_bytes_received_total")),
        ("loki", Counter("loki_distributor_lines_received_total")),
        ("mimir", MIMIR_OTLP),
    ],
)
def test_each_stores_page_has_its_counter_and_start_time(store: str, counter: Counter) -> None:
    values, started = parse(page(store), [counter])
    assert values[counter.key] > 0 and started is not None and started > 1.7e9


def test_the_urls_are_each_stores_root_even_mimirs_under_a_prefix() -> None:
    settings = Settings(
        tempo_url="http://tempo:3200/",
        loki_url="http://loki:3100",
        metrics_url="http://mimir:9009",
        metrics_path_prefix="/prometheus",
    )
    assert metrics_urls(settings) == {
        "tempo": "http://tempo:3200/metrics",
        "loki": "http://loki:3100/metrics",
        "mimir": "http://mimir:9009/metrics",
    }


async def test_each_store_answers_or_fails_on_its_own() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host == "tempo":
            return httpx.Response(200, text=page("tempo"))
        if request.url.host == "loki":
            return httpx.Response(503, text="not ready")
        if request.url.host == "mimir":
            return httpx.Response(200, html="<html>a login page</html>\n")
        raise httpx.ConnectError("connection refused", request=request)

    reader = StoreCounterReader(
        {
            "tempo": "http://tempo/metrics",
            "loki": "http://loki/metrics",
            "mimir": "http://mimir/metrics",
            "gone": "http://user:secret@gone/metrics",
        },
        {"tempo": [TEMPO_BYTES], "loki": [], "mimir": [MIMIR_OTLP], "gone": []},
        timeout_s=1,
        transport=httpx.MockTransport(answer),
    )
    read = await reader.snapshot()
    assert read["tempo"].error is None and read["tempo"].values[TEMPO_BYTES.key] > 0
    assert read["tempo"].process_start is not None and read["tempo"].read_at > 0
    loki_error = read["loki"].error
    assert loki_error is not None and "503" in loki_error and "http://loki/metrics" in loki_error
    mimir_error = read["mimir"].error
    assert mimir_error is not None and "not Prometheus text (Content-Type text/html" in mimir_error
    gone = read["gone"].error
    assert gone is not None and "ConnectError" in gone and "secret" not in gone


def test_mimirs_otlp_bodies_are_its_histograms_sum() -> None:
    values, _ = parse(page("mimir"), [MIMIR_OTLP])
    assert values == {MIMIR_OTLP.key: 2_581_859}
