"""How a round's volume per signal is read from the Collector's counters (a fake metrics
store answering the instant queries; the real one is in test_cost_stack)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tracetax.clients.prometheus import Sample
from tracetax.diagnostics.volume import GRPC_UNSIZED, NO_SIZES, NOT_REPORTING, STORE_NOT_SCRAPED, signal_volume

START, END = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, 0, 1, tzinfo=UTC)


class FakeMetrics:
    """Counter values by metric name: (at the window's start, at its end); absent: no series."""

    def __init__(self, counters: dict[str, tuple[float, float]], run_samples: int = 0) -> None:
        self.counters = counters
        self.run_samples = run_samples
        self.queries: list[str] = []

    async def count_samples(self, selector: str, seconds: int, at: datetime) -> int:
        return self.run_samples

    async def query(self, promql: str, at: datetime) -> list[Sample]:
        self.queries.append(promql)
        for name, (before, after) in self.counters.items():
            if f"({name}{{" in promql:
                return [Sample(labels={"instance": "a"}, timestamp=0, value=before if at == START else after)]
        return []


async def volume(counters: dict[str, tuple[float, float]]) -> Any:
    return await signal_volume(FakeMetrics(counters), "traces", START, END)  # type: ignore[arg-type]


async def test_bytes_items_and_exported_are_deltas_over_the_window() -> None:
    got = await volume(
        {
            "otelcol_receiver_accepted_spans_total": (100, 700),
            "http_server_request_body_size_bytes_sum": (1_000, 61_000),
            "otelcol_exporter_enqueue_size_bytes_sum": (0, 90_000),
        }
    )
    assert (got.sent_bytes, got.items, got.exported_bytes, got.unknown_reason) == (60_000, 600, 90_000, None)
    assert got.per_item() == 100
    assert got.per_request(300) == 200


async def test_nothing_sent_is_zero_only_when_the_collector_reports() -> None:
    quiet = await volume({"otelcol_process_uptime_seconds_total": (10, 70)})
    assert (quiet.sent_bytes, quiet.items, quiet.exported_bytes) == (0.0, 0.0, 0.0)
    absent = await volume({})
    assert absent.sent_bytes is None and absent.unknown_reason == NOT_REPORTING


async def test_accepted_items_without_sizes_are_unknown_bytes() -> None:
    got = await volume({"otelcol_receiver_accepted_spans_total": (0, 50)})
    assert got.sent_bytes is None and got.items == 50 and got.unknown_reason == NO_SIZES


async def test_grpc_exports_have_unknown_bytes_not_zero() -> None:
    got = await volume(
        {
            "otelcol_receiver_accepted_spans_total": (0, 50),
            "http_server_request_body_size_bytes_sum": (1_000, 1_000),
            "rpc_server_call_duration_seconds_count": (3, 8),
        }
    )
    assert got.sent_bytes is None and got.items == 50 and got.unknown_reason == GRPC_UNSIZED


async def test_the_stores_own_counters_when_scraped() -> None:
    got = await volume(
        {
            "otelcol_receiver_accepted_spans_total": (0, 10),
            "http_server_request_body_size_bytes_sum": (0, 2_000),
            "tempo_distributor_bytes_received_total": (500, 2_900),
            "tempo_distributor_spans_received_total": (5, 15),
        }
    )
    assert (got.stored_bytes, got.stored_items, got.ingested_bytes()) == (2_400, 10, 2_400)
    unscraped = await volume({"otelcol_receiver_accepted_spans_total": (0, 10)})
    assert unscraped.stored_bytes is None and unscraped.store_unknown_reason is not None


async def test_a_store_counter_that_went_down_restarted() -> None:
    # Tempo restarted before the round: the value before is the old process's.
    got = await volume(
        {
            "otelcol_receiver_accepted_spans_total": (0, 10),
            "http_server_request_body_size_bytes_sum": (0, 2_000),
            "tempo_distributor_bytes_received_total": (16_000_000, 2_400),
        }
    )
    assert got.stored_bytes == 2_400


MIMIR_BODIES = "cortex_distributor_uncompressed_request_body_size_bytes_sum"


async def test_the_metrics_stores_bytes_are_mimirs_otlp_request_bodies() -> None:
    store = FakeMetrics(
        {"otelcol_receiver_accepted_metric_points_total": (0, 30), MIMIR_BODIES: (1_000, 4_000)}, run_samples=30
    )
    got = await signal_volume(store, "metrics", START, END, run_id="r1")  # type: ignore[arg-type]
    assert (got.stored_bytes, got.stored_items, got.store_unknown_reason) == (3_000, 30, None)
    # Only OTLP bodies (the services' metrics): the stack's own arrive by remote write, handler "push".
    (bodies,) = {q for q in store.queries if MIMIR_BODIES in q}
    assert 'job="mimir"' in bodies and 'handler="otlp"' in bodies


async def test_an_unscraped_metrics_store_still_counts_the_runs_samples() -> None:
    # compose and Helm: nothing scrapes Mimir, so its bytes are unknown, said as such.
    store = FakeMetrics({"otelcol_receiver_accepted_metric_points_total": (0, 30)}, run_samples=30)
    got = await signal_volume(store, "metrics", START, END, run_id="r1")  # type: ignore[arg-type]
    assert (got.stored_bytes, got.stored_items, got.store_unknown_reason) == (None, 30, STORE_NOT_SCRAPED)
