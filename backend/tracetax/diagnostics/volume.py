"""Telemetry volume of a round, per signal: the bytes the service sent, what the Collector
handed on to each store and what the store says it received.

    sent      the request bodies the Collector's OTLP HTTP receiver took in on the signal's
              path (its own `http.server.request.body.size` by `http.route`, e.g. /v1/traces):
              the bytes on the wire from the service, compressed if the SDK compresses. The
              Collector (v0.160) reports no request sizes for gRPC, so a round that exported
              over gRPC has unknown bytes, said as such
    items     what the receiver accepted (spans, log records, metric points), for bytes per item
    exported  what the Collector's exporter to the store enqueued (`otelcol_exporter_enqueue_size_bytes`):
              the protobuf size of the batches it sends to Tempo, Loki or the metrics store
    stored    the store's own ingestion counters, read from its own /metrics at the round's start
              and at its end (the engine's snapshots, kept with the round): Tempo's
              `tempo_distributor_bytes_received_total` and spans, Loki's
              `loki_distributor_bytes_received_total` and lines, Mimir's uncompressed OTLP
              request bodies (`cortex_distributor_uncompressed_request_body_size_bytes` of
              handler `otlp`, which count the Collector's own pushed telemetry too); the metrics
              store's items are the run's samples (`count_over_time` of the run id's series),
              always read. A store that restarted in between, or whose /metrics could not be
              read, has them unknown with the reason

Counters are read as deltas over the round's window, like the ledger's stages (one
measurement at a time, nothing else sends meanwhile). The Collector's figures need its
telemetry at level `detailed`. A figure that could not be read is unknown with its reason,
never zero; a signal nothing was sent for is zero when the Collector's telemetry is there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from tracetax.clients.base import BackendError
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.readback import counter_increase, with_run_id
from tracetax.clients.store_counters import Counter, StoreSnapshot
from tracetax.diagnostics.cost import VolumeSignal
from tracetax.engine.experiment import STORE_COUNTERS_RESOURCE


@dataclass(frozen=True)
class Route:
    """Where a signal enters the Collector, leaves it and what its store counts."""

    http_route: str
    grpc_method: str
    accepted: str
    exporter: str
    store: str
    # The store's own counters in its /metrics (the store's name in the round's snapshots,
    # bytes, items); items None: the run's samples, for the metrics store.
    store_key: str
    store_bytes: Counter
    store_items: Counter | None = None
    # False: the store's byte counter also counts what others send it, so the cost's volume
    # for the store is the Collector's exported bytes (the stored bytes are still shown).
    store_bytes_alone: bool = True


ROUTES: dict[VolumeSignal, Route] = {
    "traces": Route(
        "/v1/traces",
        "opentelemetry.proto.collector.trace.v1.TraceService/Export",
        "otelcol_receiver_accepted_spans_total",
        "otlp/tempo",
        "Tempo",
        "tempo",
        Counter("tempo_distributor_bytes_received_total"),
        Counter("tempo_distributor_spans_received_total"),
    ),
    "logs": Route(
        "/v1/logs",
        "opentelemetry.proto.collector.logs.v1.LogsService/Export",
        "otelcol_receiver_accepted_log_records_total",
        "otlphttp/loki",
        "Loki",
        "loki",
        Counter("loki_distributor_bytes_received_total"),
        Counter("loki_distributor_lines_received_total"),
    ),
    "metrics": Route(
        "/v1/metrics",
        "opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
        "otelcol_receiver_accepted_metric_points_total",
        "otlphttp/metrics",
        "metrics store",
        "mimir",
        # Only OTLP bodies (the services' metrics, and the Collector's own it pushes).
        Counter("cortex_distributor_uncompressed_request_body_size_bytes_sum", {"handler": "otlp"}),
        # The Collector pushes its own telemetry to Mimir over OTLP too, every second: on the
        # native stack about 240 kB in a round of a service that sends nothing.
        store_bytes_alone=False,
    ),
}
# What the engine's snapshots read of each store's /metrics, by the store's name.
STORE_COUNTERS: dict[str, list[Counter]] = {
    route.store_key: [route.store_bytes, *([route.store_items] if route.store_items else [])]
    for route in ROUTES.values()
}
HTTP_BODY = "http_server_request_body_size_bytes_sum"
GRPC_CALLS = "rpc_server_call_duration_seconds_count"
EXPORTED = "otelcol_exporter_enqueue_size_bytes_sum"
UPTIME = "otelcol_process_uptime_seconds_total"
RECEIVER = "otlp/apps"
NOT_REPORTING = "the Collector's own telemetry is not in the metrics store for this window"
NO_SIZES = (
    "the Collector accepted items but reported no request sizes (service::telemetry::metrics::level must be detailed)"
)
GRPC_UNSIZED = (
    "exported over gRPC, for which the Collector reports no request sizes: export over http/protobuf "
    "(the engine's default) to measure bytes"
)
# Each followed by the error, at the round's start or end.
STORE_NOT_SCRAPED = "the store's /metrics could not be read"
STORE_NOT_READ = (
    "the store's /metrics was not read around this round (recorded before TraceTax read it, or read by "
    "nothing: collecting the ledger again cannot add it)"
)
STORE_RESTARTED = (
    "the store restarted between the round's start and end: its counters began again from zero, so what "
    "it received in the round is unknown"
)
SOURCE = (
    "sent: request body bytes at the Collector's OTLP HTTP receiver by route (its own telemetry, level detailed); "
    "items: accepted by its receiver; exported: bytes its exporter to each store enqueued; stored: Tempo's and "
    "Loki's distributor bytes received, Mimir's uncompressed OTLP request bytes (each store's own /metrics at the "
    "round's start and end) and the run's samples"
)


class SignalVolume(BaseModel):
    signal: VolumeSignal
    store: str
    sent_bytes: float | None = None
    items: float | None = None
    exported_bytes: float | None = None
    unknown_reason: str | None = None
    # What the store counted as received (None: it counts no such thing, or it was not read).
    stored_bytes: float | None = None
    stored_items: float | None = None
    store_unknown_reason: str | None = None

    def per_request(self, requests: int | None) -> float | None:
        if self.sent_bytes is None or not requests:
            return None
        return self.sent_bytes / requests

    def per_item(self) -> float | None:
        if self.sent_bytes is None or not self.items:
            return None
        return self.sent_bytes / self.items

    def ingested_bytes(self) -> float | None:
        """The store's volume: what it counted as received (where that counts this signal
        alone), else what the Collector sent it."""
        if self.stored_bytes is not None and ROUTES[self.signal].store_bytes_alone:
            return self.stored_bytes
        return self.exported_bytes


class StoreReadings(BaseModel):
    """Each store's counters as the engine read them at a round's start and at its end (kept
    with the round as `resources.store_counters`), by the store's name."""

    start: dict[str, StoreSnapshot]
    end: dict[str, StoreSnapshot]

    def increase(self, store: str, counter: Counter) -> tuple[float | None, str | None]:
        """What `counter` of `store` counted between the two readings, or None and why not."""
        start, end = self.start.get(store), self.end.get(store)
        if start is None or end is None:
            return None, STORE_NOT_READ
        for when, reading in (("start", start), ("end", end)):
            if reading.error is not None:
                return None, f"{STORE_NOT_SCRAPED} at the round's {when}: {reading.error}"
        if None not in (start.process_start, end.process_start) and start.process_start != end.process_start:
            return None, STORE_RESTARTED
        after = end.values.get(counter.key)
        if after is None:
            return None, (
                f"the store's /metrics has no {counter.key} (it counted nothing since it started, or this "
                "version names the counter otherwise)"
            )
        # A counter appears with its first data: absent at the start, it was zero then.
        before = start.values.get(counter.key, 0.0)
        if after < before:  # reset without a new start time on record: restarted all the same
            return None, STORE_RESTARTED
        return after - before, None


def store_readings(resources: dict[str, Any] | None) -> StoreReadings | None:
    """The store counters the engine kept with a round; None when it kept none (or a shape
    this version cannot read)."""
    kept = (resources or {}).get(STORE_COUNTERS_RESOURCE)
    try:
        return StoreReadings.model_validate(kept) if kept is not None else None
    except ValidationError:
        return None


class RoundVolume(BaseModel):
    requests_total: int | None
    signals: list[SignalVolume]
    source: str = SOURCE

    def signal(self, name: VolumeSignal) -> SignalVolume:
        return next(s for s in self.signals if s.signal == name)


async def signal_volume(
    metrics: PrometheusClient,
    signal: VolumeSignal,
    start: datetime,
    end: datetime,
    run_id: str | None = None,
    stores: StoreReadings | None = None,
) -> SignalVolume:
    route = ROUTES[signal]

    async def delta(metric: str, matchers: str) -> float | None:
        return await counter_increase(metrics, metric, matchers, start, end)

    try:
        items = await delta(route.accepted, f'receiver="{RECEIVER}"')
        http = await delta(HTTP_BODY, f'http_route="{route.http_route}"')
        grpc_calls = await delta(GRPC_CALLS, f'rpc_method="{route.grpc_method}"')
        exported = await delta(EXPORTED, f'exporter="{route.exporter}"')
        reporting = items is not None or await delta(UPTIME, 'instance!=""') is not None
    except BackendError as error:
        return SignalVolume(signal=signal, store=route.store, unknown_reason=str(error))
    stored = await store_volume(metrics, route, stores, start, end, run_id)
    if grpc_calls:
        return SignalVolume(
            signal=signal,
            store=route.store,
            items=items,
            exported_bytes=exported,
            unknown_reason=GRPC_UNSIZED,
            **stored,
        )
    if http is None:
        # No request of this signal reached this Collector yet: nothing was sent, as long as the
        # Collector's telemetry is there at all and its receiver accepted nothing either.
        if not reporting:
            return SignalVolume(signal=signal, store=route.store, unknown_reason=NOT_REPORTING, **stored)
        if items:
            return SignalVolume(signal=signal, store=route.store, items=items, unknown_reason=NO_SIZES, **stored)
        return SignalVolume(signal=signal, store=route.store, sent_bytes=0.0, items=0.0, exported_bytes=0.0, **stored)
    return SignalVolume(
        signal=signal,
        store=route.store,
        sent_bytes=http,
        items=items if items is not None else 0.0,
        exported_bytes=exported,
        unknown_reason=None if exported is not None else f"no enqueued bytes reported for exporter {route.exporter}",
        **stored,
    )


async def store_volume(
    metrics: PrometheusClient,
    route: Route,
    stores: StoreReadings | None,
    start: datetime,
    end: datetime,
    run_id: str | None,
) -> dict[str, Any]:
    """The store's own count of what it received over the round: bytes and items from its
    counters' readings at the round's start and end; for the metrics store, items are the
    run's samples."""
    received, why = stores.increase(route.store_key, route.store_bytes) if stores else (None, STORE_NOT_READ)
    stored: dict[str, Any] = {"stored_bytes": received, "store_unknown_reason": why}
    if route.store_items is None:
        return await _run_samples(metrics, stored, start, end, run_id)
    items, items_why = stores.increase(route.store_key, route.store_items) if stores else (None, STORE_NOT_READ)
    return stored | {"stored_items": items, "store_unknown_reason": why or items_why}


async def _run_samples(
    metrics: PrometheusClient, stored: dict[str, Any], start: datetime, end: datetime, run_id: str | None
) -> dict[str, Any]:
    """The metrics store's items: the run's samples (its own sample counter has no per-source
    series: the stack's remote write would be in it)."""
    if run_id is None:
        return stored | {"store_unknown_reason": "no run id to count the run's samples by"}
    seconds = max(1, math.ceil((end - start).total_seconds()))
    try:
        samples = await metrics.count_samples(with_run_id('{__name__=~".+"}', run_id), seconds, end)
    except BackendError as error:
        return stored | {"store_unknown_reason": stored["store_unknown_reason"] or str(error)}
    return stored | {"stored_items": float(samples)}


async def round_volume(
    metrics: PrometheusClient,
    start: datetime,
    end: datetime,
    requests_total: int | None,
    run_id: str | None = None,
    stores: StoreReadings | None = None,
) -> RoundVolume:
    signals = [await signal_volume(metrics, signal, start, end, run_id, stores) for signal in ROUTES]
    return RoundVolume(requests_total=requests_total, signals=signals)
