"""How a round's volume per signal is read from the Collector's counters (a fake metrics
store answering the instant queries) and the stores' own counters from the engine's readings
of their /metrics at the round's start and end; the real ones are in test_cost_stack."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tracetax.clients.prometheus import Sample
from tracetax.clients.store_counters import StoreSnapshot, parse
from tracetax.diagnostics.volume import (
    GRPC_UNSIZED,
    NO_SIZES,
    NOT_REPORTING,
    ROUTES,
    STORE_COUNTERS,
    STORE_NOT_READ,
    STORE_NOT_SCRAPED,
    STORE_RESTARTED,
    StoreReadings,
    VolumeSignal,
    signal_volume,
    store_readings,
)
from tracetax.engine.experiment import STORE_COUNTERS_RESOURCE

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


def reading(values: dict[str, float], process_start: float | None = 1.7e9, error: str | None = None) -> StoreSnapshot:
    return StoreSnapshot(read_at=0, process_start=process_start, values=values, error=error)


TEMPO_BYTES = ROUTES["traces"].store_bytes.key
TEMPO_SPANS = "tempo_distributor_spans_received_total{}"
SENT = {"otelcol_receiver_accepted_spans_total": (0.0, 10.0), "http_server_request_body_size_bytes_sum": (0.0, 2e3)}


def tempo(start: StoreSnapshot, end: StoreSnapshot) -> StoreReadings:
    return StoreReadings(start={"tempo": start}, end={"tempo": end})


async def stored(stores: StoreReadings | None, signal: VolumeSignal = "traces") -> Any:
    return await signal_volume(FakeMetrics(SENT, run_samples=30), signal, START, END, "r1", stores)  # type: ignore[arg-type]


async def test_the_stores_own_counters_are_end_minus_start() -> None:
    got = await stored(
        tempo(reading({TEMPO_BYTES: 500, TEMPO_SPANS: 5}), reading({TEMPO_BYTES: 2_900, TEMPO_SPANS: 15}))
    )
    assert (got.stored_bytes, got.stored_items, got.ingested_bytes(), got.store_unknown_reason) == (
        2_400,
        10,
        2_400,
        None,
    )
    # The store counted nothing before the round: its counters appear with their first data.
    fresh = await stored(tempo(reading({}), reading({TEMPO_BYTES: 2_400, TEMPO_SPANS: 10})))
    assert (fresh.stored_bytes, fresh.stored_items) == (2_400, 10)
    # The Collector handed the store nothing: 0 read as 0.
    quiet = await stored(tempo(reading({TEMPO_BYTES: 7, TEMPO_SPANS: 1}), reading({TEMPO_BYTES: 7, TEMPO_SPANS: 1})))
    assert (quiet.stored_bytes, quiet.stored_items, quiet.store_unknown_reason) == (0, 0, None)


async def test_a_store_that_restarted_in_the_round_is_unknown_never_negative_or_zero() -> None:
    # A new process start time, even with its counter above the start's.
    restarted = tempo(reading({TEMPO_BYTES: 500, TEMPO_SPANS: 5}), reading({TEMPO_BYTES: 900}, process_start=1.8e9))
    got = await stored(restarted)
    assert (got.stored_bytes, got.stored_items, got.store_unknown_reason) == (None, None, STORE_RESTARTED)
    assert got.ingested_bytes() is None  # the Collector's exported bytes: none in this window
    # A counter that went down without a start time on record restarted all the same.
    dropped = tempo(reading({TEMPO_BYTES: 16e6}, None), reading({TEMPO_BYTES: 2_400}, None))
    assert (await stored(dropped)).store_unknown_reason == STORE_RESTARTED


async def test_a_store_whose_metrics_could_not_be_read_says_when_and_why() -> None:
    down = reading({}, None, error="http://127.0.0.1:3200/metrics: ConnectError: connection refused")
    got = await stored(tempo(reading({TEMPO_BYTES: 1}), down))
    assert got.stored_bytes is None and got.stored_items is None
    assert got.store_unknown_reason == f"{STORE_NOT_SCRAPED} at the round's end: {down.error}"
    # Rounds the engine kept no readings with (older ones, or nothing read them).
    assert (await stored(None)).store_unknown_reason == STORE_NOT_READ
    assert (await stored(StoreReadings(start={}, end={}))).store_unknown_reason == STORE_NOT_READ


async def test_a_counter_absent_at_the_end_is_unknown_naming_it() -> None:
    got = await stored(tempo(reading({}), reading({TEMPO_SPANS: 3})))
    assert got.stored_bytes is None and TEMPO_BYTES in (got.store_unknown_reason or "")
    assert got.stored_items == 3


MIMIR_BODIES = ROUTES["metrics"].store_bytes.key


async def test_the_metrics_stores_bytes_are_mimirs_otlp_request_bodies() -> None:
    mimir = StoreReadings(
        start={"mimir": reading({MIMIR_BODIES: 1_000})}, end={"mimir": reading({MIMIR_BODIES: 4_000})}
    )
    got = await stored(mimir, "metrics")
    assert (got.stored_bytes, got.stored_items, got.store_unknown_reason) == (3_000, 30, None)
    # Mimir's OTLP bodies count the Collector's own telemetry too: the cost takes what was exported.
    exported = FakeMetrics({**SENT, "otelcol_exporter_enqueue_size_bytes_sum": (0, 1_200)}, run_samples=30)
    with_export = await signal_volume(exported, "metrics", START, END, "r1", mimir)  # type: ignore[arg-type]
    assert (with_export.stored_bytes, with_export.ingested_bytes()) == (3_000, 1_200)
    # Only OTLP bodies (the services' metrics): the stack's own would arrive by remote write, handler "push".
    assert MIMIR_BODIES == 'cortex_distributor_uncompressed_request_body_size_bytes_sum{handler="otlp"}'


async def test_an_unread_metrics_store_still_counts_the_runs_samples() -> None:
    got = await stored(None, "metrics")
    assert (got.stored_bytes, got.stored_items, got.store_unknown_reason) == (None, 30, STORE_NOT_READ)


def test_the_readings_kept_with_a_round() -> None:
    kept = {"start": {"tempo": reading({TEMPO_BYTES: 1}).model_dump()}, "end": {"tempo": reading({}).model_dump()}}
    readings = store_readings({"isolation": {}, STORE_COUNTERS_RESOURCE: kept})
    assert readings is not None and readings.start["tempo"].values == {TEMPO_BYTES: 1}
    assert store_readings({"isolation": {}}) is None and store_readings(None) is None
    assert store_readings({STORE_COUNTERS_RESOURCE: {"start": "garbled"}}) is None


@pytest.mark.parametrize("store", ["tempo", "loki", "mimir"])
def test_each_stores_real_page_has_every_counter_the_volume_reads(store: str) -> None:
    page = (Path(__file__).parents[1] / "clients" / "store_metrics" / f"{store}.txt").read_text()
    values, started = parse(page, STORE_COUNTERS[store])
    assert set(values) == {counter.key for counter in STORE_COUNTERS[store]} and started is not None
