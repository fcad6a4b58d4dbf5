"""The span ledger: where each span (log record, counter increment) of a round went.

    expected (requests answered x spans per request)
      -> dropped inside the SDK (its own queue_full counter, by run id)
      -> accepted / refused by the Collector's receiver
      -> sent / failed by the Collector's exporter to the store
      -> found in the store for the run id

The SDK counter and the store are selected by run id. The Collector counts per component,
not per run: its counters are read as deltas over the round's time window (the engine runs
one measurement at a time and lets each round settle before the next), which is exact as long
as nothing else sends to the Collector meanwhile. A stage that could not be read is unknown
with its reason, never zero.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel

from tracetax.clients.base import BackendError
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.readback import (
    COLLECTOR_SERVICE_NAME,
    FLUSH_GRACE_S,
    RunReadback,
    RunWindow,
    counter_increase,
)
from tracetax.diagnostics.volume import RECEIVER, UPTIME, RoundVolume, StoreReadings, round_volume

Signal = Literal["spans", "log_records", "request_counter"]
EXPORTERS = {"spans": "otlp/tempo", "log_records": "otlphttp/loki"}
REQUEST_COUNTER = "tracetax_demo_requests_total"


class Stage(BaseModel):
    stage: str
    value: float | None
    unknown_reason: str | None = None
    # Where a value comes from when it is not read directly (e.g. inferred from other stages).
    source: str | None = None


class SignalLedger(BaseModel):
    signal: Signal
    stages: list[Stage]
    # expected == stored + every counted loss, when every stage is known
    balanced: bool | None
    note: str | None = None

    def value(self, stage: str) -> float | None:
        return next((s.value for s in self.stages if s.stage == stage), None)


class ExportTiming(BaseModel):
    """The span exporter's successful exports in a round and the seconds they took, from the
    SDK's own `otel.sdk.exporter.operation.duration` (Python, Java 1.58, Node and Go when their
    self-observability is on)."""

    exports: float
    seconds: float


class RoundLedger(BaseModel):
    configuration: str
    round_index: int
    run_id: str
    window: tuple[datetime, datetime]
    signals: list[SignalLedger]
    # Bytes per signal over the same window (None in readings collected before volume was).
    volume: RoundVolume | None = None
    # None: the SDK reports no export durations (or readings collected before they were read).
    export: ExportTiming | None = None


class RoundFacts(BaseModel):
    """What the ledger needs of a stored round and its configuration."""

    configuration: str
    round_index: int
    run_id: str
    started_at: datetime
    finished_at: datetime
    requests_total: int | None
    spans_per_request: float | None
    # None: unknown (a user's own service logs as it pleases).
    logs_per_request: int | None = 1
    metrics: bool = True
    service_name: str
    dropped_spans_selector: str | None
    sampler: str | None = None
    span_name: str | None = None
    # False when the service did not exit cleanly after SIGTERM (its SDK may not have flushed).
    flushed: bool = True
    # A demo service, whose contract (K spans, one log record and one counter increment per
    # request) gives the expected counts. A user's own service has no such contract: expected
    # comes from its SDK's own processed counters, or the spans per request the user declared,
    # or it is unknown and no loss is claimed.
    demo: bool = True
    # The stack's components not ready before or after the round (the engine's probe): the
    # stages read from them are unknown.
    stack_down: list[str] = []
    # The stores' own counters at the round's start and end (None: not read around it).
    store_counters: StoreReadings | None = None


# The SDKs' own counters, as they land in the metrics store, tried in order: what a round is
# expected to deliver (the selectors summed) and what the SDK dropped. Counters that change while
# requests run (spans started, queue drops) are complete in the final metric export; one that
# changes at export (processed) misses the batch flushed after it at shutdown (Python 1,984
# counted vs 2,002 stored, Java 2,449 vs 2,601), so it comes last.
SdkCounts = tuple[tuple[str, ...], str]
SDK_COUNTERS: dict[str, list[SdkCounts]] = {
    "spans": [
        # Python and Node (semantic conventions): sampled spans started; drops at the queue.
        (
            ('otel_sdk_span_started_total{otel_span_sampling_result="RECORD_AND_SAMPLE"}',),
            'otel_sdk_processor_span_processed_total{error_type!=""}',
        ),
        # The Java agent: what its exporter was handed, plus what its queue dropped.
        (
            ('otlp_exporter_seen_total{type="span"}', 'processedSpans_total{dropped="true"}'),
            'processedSpans_total{dropped="true"}',
        ),
        (("otel_sdk_processor_span_processed_total",), 'otel_sdk_processor_span_processed_total{error_type!=""}'),
    ],
    "log_records": [
        (("otel_sdk_log_created_total",), 'otel_sdk_processor_log_processed_total{error_type!=""}'),
        (
            ('otlp_exporter_seen_total{type="log"}', 'processedLogs_total{dropped="true"}'),
            'processedLogs_total{dropped="true"}',
        ),
        (("otel_sdk_processor_log_processed_total",), 'otel_sdk_processor_log_processed_total{error_type!=""}'),
    ],
}


def _window(facts: RoundFacts) -> RunWindow:
    return RunWindow.of(facts.started_at, facts.finished_at)


async def _stored_counter(readback: RunReadback, facts: RoundFacts) -> Stage:
    """The demo's request counter as the metrics store holds it for the run: its last value in
    the run's window; no series there is unknown with the reason, never 0."""
    stored = await _known("stored", readback.metric_sum(REQUEST_COUNTER, facts.run_id, _window(facts)))
    if stored.value is None and stored.unknown_reason is None:
        reason = (
            f"no series of {REQUEST_COUNTER} for this run in the metrics store between its start and "
            f"{FLUSH_GRACE_S} s after its end: the service's metrics never arrived"
        )
        return Stage(stage="stored", value=None, unknown_reason=reason)
    return stored


async def _known(stage: str, read: Any) -> Stage:
    try:
        value = await read
    except BackendError as error:
        return Stage(stage=stage, value=None, unknown_reason=str(error))
    return Stage(stage=stage, value=None if value is None else float(value))


# What a ledger stage is read from, by the names the engine's stack probe records a component
# down under (tracetax.clients.health.stack_down): a component down around a round makes it unknown.
COLLECTOR_STAGE_SOURCES = ("collector", "metrics")
STORED_SOURCES = {"spans": ("tempo",), "log_records": ("loki",), "request_counter": ("metrics",)}


def unless_down(stage: Stage, stack_down: list[str], sources: tuple[str, ...]) -> Stage:
    """The stage, or unknown when a component it is read from was not ready before or after
    the round: a Collector that restarted lost what it held and its counters start over, a
    store that restarted may have lost what it had not persisted."""
    down = [name for name in sources if name in stack_down]
    if not down:
        return stage
    reason = (
        f"{' and '.join(down)} not ready before or after this round (the round is flagged): "
        "what it counted or holds of the round cannot be trusted"
    )
    return Stage(stage=stage.stage, value=None, unknown_reason=reason, source=stage.source)


async def collector_delta(
    metrics: PrometheusClient, metric: str, matchers: str, start: datetime, end: datetime
) -> float | None:
    """A ledger stage's Collector counter over the round; None when the metrics store holds no
    series of it at the round's end (what that means is `collector_stages`' to decide)."""
    return await counter_increase(metrics, metric, matchers, start, end)


async def collector_reported(metrics: PrometheusClient, at: datetime) -> bool:
    """Whether the Collector's own telemetry had reached the metrics store by `at`: its
    uptime counter is exported at every interval from its start, whatever it has handled."""
    return bool(await metrics.query(f'{UPTIME}{{job="{COLLECTOR_SERVICE_NAME}"}}', at))


# What the Collector counts, per item: its receiver accepts, its exporters send, fail to send,
# or fail to queue; an item accepted and not yet one of the others is still in the Collector.
PASSED_ON = ("sent", "send_failed", "enqueue_failed")
COLLECTED_ITEMS = ("spans", "log_records", "metric_points")


async def collector_drained_since(metrics: PrometheusClient, since: float) -> bool:
    """Whether the latest sample of the Collector's own counters was taken after `since` (unix
    seconds) and shows everything its receiver accepted passed on. If the services that sent
    had stopped by `since`, a round window opening now holds nothing of what they sent. Read
    where samples are queryable as soon as they are taken (the scraper, not a store behind it)."""
    job = f'job="{COLLECTOR_SERVICE_NAME}"'
    taken = await metrics.query(f"max(timestamp({UPTIME}{{{job}}}))")
    if not taken or taken[0].value <= since:
        return False
    for item in COLLECTED_ITEMS:
        passed = " + ".join(f"(sum(otelcol_exporter_{kind}_{item}_total{{{job}}}) or vector(0))" for kind in PASSED_ON)
        held = await metrics.query(f"(sum(otelcol_receiver_accepted_{item}_total{{{job}}}) or vector(0)) - ({passed})")
        if any(sample.value != 0 for sample in held):
            return False
    return True


async def _absent_as_zero_or_unknown(metrics: PrometheusClient, stages: list[Stage], end: datetime) -> None:
    """A counter the Collector never incremented has no series at all (it creates a refused or
    failed counter at its first refusal or failure): absent while its telemetry is in the
    store, it counted 0. Absent while its telemetry is not (the Collector or the store was
    down), it is unknown, never 0."""
    absent = [stage for stage in stages if stage.value is None and stage.unknown_reason is None]
    if not absent:
        return
    try:
        reported = await collector_reported(metrics, end)
    except BackendError as error:
        for stage in absent:
            stage.unknown_reason = str(error)
        return
    for stage in absent:
        if reported:
            stage.value = 0.0
        else:
            stage.unknown_reason = (
                f"no otelcol_ series of this stage nor the Collector's {UPTIME} in the metrics store at the "
                "round's end: the Collector's own telemetry did not arrive (was the Collector or the metrics "
                "store down?)"
            )


async def collector_stages(
    metrics: PrometheusClient, item: Literal["spans", "log_records"], start: datetime, end: datetime
) -> list[Stage]:
    """The Collector's four stages of one signal: its receiver's accepted and refused counters
    and its exporter's sent and failed ones, as deltas over the round's window."""
    receiver, exporter = f'receiver="{RECEIVER}"', f'exporter="{EXPORTERS[item]}"'
    counters = (
        ("collector_accepted", f"otelcol_receiver_accepted_{item}_total", receiver),
        ("collector_refused", f"otelcol_receiver_refused_{item}_total", receiver),
        ("exporter_sent", f"otelcol_exporter_sent_{item}_total", exporter),
        ("exporter_failed", f"otelcol_exporter_send_failed_{item}_total", exporter),
    )
    stages = [
        await _known(stage, collector_delta(metrics, metric, matchers, start, end))
        for stage, metric, matchers in counters
    ]
    await _absent_as_zero_or_unknown(metrics, stages, end)
    return stages


def _balanced(stages: list[Stage], losses: list[str]) -> bool | None:
    values = {s.stage: s.value for s in stages}
    needed = [values.get(name) for name in ("expected", "stored", *losses)]
    known = [value for value in needed if value is not None]
    if len(known) != len(needed):
        return None
    expected, stored, *lost = known
    return expected == stored + sum(lost)


def _declared_spans(facts: RoundFacts) -> Stage:
    if facts.requests_total is not None and facts.spans_per_request is not None:
        source = None if facts.demo else "declared: requests x service.spans_per_request"
        return Stage(stage="expected", value=(facts.requests_total or 0) * facts.spans_per_request, source=source)
    reason = (
        "requests or spans per request not recorded"
        if facts.demo
        else "the SDK reported no processed-spans counter and service.spans_per_request is not declared: "
        "no loss is claimed"
    )
    return Stage(stage="expected", value=None, unknown_reason=reason)


async def _present(readback: RunReadback, selector: str, run_id: str, window: RunWindow) -> bool:
    """Whether the run has any series of the selector's metric in its window (a missing series
    is not a zero)."""
    name = selector.split("{", 1)[0].strip()
    return await readback.metric_sum(name, run_id, window) is not None


async def _sum_or_zero(readback: RunReadback, selector: str, run_id: str, window: RunWindow) -> float:
    """A selector of a metric known to be present: no series of this selector (e.g. no
    `error_type` label value yet) is a count that never moved from 0."""
    value = await readback.metric_sum(selector, run_id, window)
    return 0.0 if value is None else value


async def sdk_counts(
    readback: RunReadback, item: str, run_id: str, window: RunWindow
) -> tuple[Stage, Stage | None] | None:
    """(expected, sdk_dropped) from the SDK's own counters for the run; sdk_dropped None when the
    SDK has no drop counter (then it is inferred as for the demos); None when the SDK exported
    none of them."""
    for expected_selectors, dropped_selector in SDK_COUNTERS[item]:
        try:
            if not await _present(readback, expected_selectors[0], run_id, window):
                continue
            total = sum([await _sum_or_zero(readback, selector, run_id, window) for selector in expected_selectors])
            counts_drops = await _present(readback, dropped_selector, run_id, window)
            lost = await _sum_or_zero(readback, dropped_selector, run_id, window) if counts_drops else None
        except BackendError as error:
            unknown = Stage(stage="expected", value=None, unknown_reason=str(error))
            return unknown, Stage(stage="sdk_dropped", value=None, unknown_reason=str(error))
        source = f"SDK counter {' + '.join(expected_selectors)}"
        dropped = (
            None
            if lost is None
            else Stage(stage="sdk_dropped", value=float(lost), source=f"SDK counter {dropped_selector}")
        )
        return Stage(stage="expected", value=float(total), source=source), dropped
    return None


async def span_ledger(readback: RunReadback, facts: RoundFacts) -> SignalLedger:
    start, end = facts.started_at, facts.finished_at
    # A user's service that exports traces: its SDK's own count first, then what was declared.
    exports = facts.spans_per_request is None or facts.spans_per_request > 0
    counted = await sdk_counts(readback, "spans", facts.run_id, _window(facts)) if not facts.demo and exports else None
    stages = [counted[0] if counted else _declared_spans(facts)]
    collector = await _round_collector_stages(readback, facts, "spans")
    stored = await _known(
        "stored",
        readback.spans(facts.run_id, int(start.timestamp()) - 60, int(end.timestamp()) + 60, facts.span_name),
    )
    stages += [
        counted[1] if counted and counted[1] else await sdk_dropped(readback, facts, stages[0], collector),
        *collector,
        unless_down(stored, facts.stack_down, STORED_SOURCES["spans"]),
    ]
    if facts.sampler and "ratio" in facts.sampler and not counted:
        note = f"head sampling ({facts.sampler}): unsampled spans are never recorded, so stored < expected by design"
        return SignalLedger(signal="spans", stages=stages, balanced=None, note=note)
    return SignalLedger(
        signal="spans",
        stages=stages,
        balanced=_balanced(stages, ["sdk_dropped", "collector_refused", "exporter_failed"]),
        note=_join(_lost_in_store(stages, "Tempo", "tempo_discarded_spans_total"), _unflushed(facts)),
    )


async def _round_collector_stages(
    readback: RunReadback, facts: RoundFacts, item: Literal["spans", "log_records"]
) -> list[Stage]:
    stages = await collector_stages(readback.metrics, item, facts.started_at, facts.finished_at)
    return [unless_down(stage, facts.stack_down, COLLECTOR_STAGE_SOURCES) for stage in stages]


async def sdk_dropped(readback: RunReadback, facts: RoundFacts, expected: Stage, collector: list[Stage]) -> Stage:
    """Spans lost inside the SDK: its own counter when the SDK reports one for the run, else
    inferred from the Collector's receiver (expected - accepted - refused). The SDK's
    self-observability is left off in measured phases where it costs (Go's cut batch
    throughput by ~17%), so the inference is the usual source there, and says so."""
    if facts.dropped_spans_selector:
        counted = await _sdk_counter(readback, facts.dropped_spans_selector, facts.run_id, _window(facts))
        if counted is not None:
            return counted
    if facts.sampler and "ratio" in facts.sampler:
        return Stage(
            stage="sdk_dropped",
            value=None,
            unknown_reason="the SDK reported no drop counter, and under head sampling the spans never recorded "
            "cannot be told from dropped ones",
        )
    values = {stage.stage: stage.value for stage in collector}
    accepted, refused = values.get("collector_accepted"), values.get("collector_refused")
    if expected.value is None or accepted is None or refused is None:
        return Stage(
            stage="sdk_dropped",
            value=None,
            unknown_reason="the SDK reported no drop counter, and expected or the Collector's receiver is unknown",
        )
    return Stage(
        stage="sdk_dropped",
        value=max(expected.value - accepted - refused, 0.0),
        source="inferred: expected - accepted - refused by the Collector (the SDK reported no drop counter)",
    )


async def _sdk_counter(readback: RunReadback, selector: str, run_id: str, window: RunWindow) -> Stage | None:
    """The SDK's dropped-span counter, or None when the SDK reports no such metric for the run
    (a missing series is not a zero: the processed-spans metric must exist)."""
    try:
        if not await _present(readback, selector, run_id, window):
            return None
        return Stage(
            stage="sdk_dropped", value=await _sum_or_zero(readback, selector, run_id, window), source="SDK counter"
        )
    except BackendError as error:
        return Stage(stage="sdk_dropped", value=None, unknown_reason=str(error))


def _unflushed(facts: RoundFacts) -> str | None:
    if facts.flushed:
        return None
    return "the service did not exit cleanly after SIGTERM: telemetry its SDK still held may never have been sent"


def _join(*notes: str | None) -> str | None:
    present = [note for note in notes if note]
    return "; ".join(present) or None


def _lost_in_store(stages: list[Stage], store: str, counter: str) -> str | None:
    """Say where the gap is when the exporter sent more than the store holds."""
    values = {s.stage: s.value for s in stages}
    sent, stored = values.get("exporter_sent"), values.get("stored")
    if sent is None or stored is None or stored >= sent:
        return None
    return (
        f"{sent - stored:,.0f} sent by the Collector but not found in {store}: the store discarded them "
        f"(its {counter} says why, e.g. a live-traces or rate limit) or had not made them searchable yet "
        "(collect the ledger again)"
    )


async def log_ledger(readback: RunReadback, facts: RoundFacts) -> SignalLedger:
    counted = await sdk_counts(readback, "log_records", facts.run_id, _window(facts)) if not facts.demo else None
    collector = await _round_collector_stages(readback, facts, "log_records")
    stored = await _known("stored", readback.log_records(facts.service_name, facts.run_id, _window(facts)))
    stages = [
        counted[0] if counted else _expected_logs(facts),
        *([counted[1]] if counted and counted[1] else []),
        *collector,
        unless_down(stored, facts.stack_down, STORED_SOURCES["log_records"]),
    ]
    losses = ["collector_refused", "exporter_failed", *(["sdk_dropped"] if counted and counted[1] else [])]
    return SignalLedger(signal="log_records", stages=stages, balanced=_balanced(stages, losses), note=_unflushed(facts))


def _expected_logs(facts: RoundFacts) -> Stage:
    if facts.logs_per_request is None:
        reason = (
            "the SDK reported no processed-logs counter, and a service of your own logs as it pleases: "
            "no loss is claimed"
        )
        return Stage(stage="expected", value=None, unknown_reason=reason)
    if facts.requests_total is None:
        return Stage(stage="expected", value=None, unknown_reason="requests not recorded")
    return Stage(stage="expected", value=float(facts.requests_total * facts.logs_per_request))


async def counter_ledger(readback: RunReadback, facts: RoundFacts) -> SignalLedger:
    expected = float(facts.requests_total) if facts.requests_total is not None and facts.metrics else None
    stages = [
        Stage(
            stage="expected",
            value=expected if facts.metrics else 0.0,
            unknown_reason=None if expected is not None or not facts.metrics else "requests not recorded",
        ),
        unless_down(
            await _stored_counter(readback, facts),
            facts.stack_down,
            STORED_SOURCES["request_counter"],
        ),
    ]
    return SignalLedger(signal="request_counter", stages=stages, balanced=_balanced(stages, []))


EXPORT_DURATION = (
    'otel_sdk_exporter_operation_duration_seconds_{}{{otel_component_type=~".*span_exporter",error_type=""}}'
)


async def export_timing(readback: RunReadback, run_id: str, window: RunWindow) -> ExportTiming | None:
    """The round's successful span exports and their total duration; None when the SDK reported
    none (not zero: an SDK without the metric says nothing about its exports)."""
    try:
        exports = await readback.metric_sum(EXPORT_DURATION.format("count"), run_id, window)
        seconds = await readback.metric_sum(EXPORT_DURATION.format("sum"), run_id, window)
    except BackendError:
        return None
    if exports is None or seconds is None or exports <= 0:
        return None
    return ExportTiming(exports=exports, seconds=seconds)


def mean_export_s(ledgers: list[RoundLedger], configuration: str) -> float | None:
    """Mean duration of one span export over the configuration's rounds, from the SDK's own
    exporter metrics; None when no round reported any."""
    timings = [ledger.export for ledger in ledgers if ledger.configuration == configuration and ledger.export]
    exports = sum(timing.exports for timing in timings)
    return sum(timing.seconds for timing in timings) / exports if exports else None


async def round_ledger(readback: RunReadback, facts: RoundFacts) -> RoundLedger:
    signals = [await span_ledger(readback, facts)]
    if facts.logs_per_request != 0:
        signals.append(await log_ledger(readback, facts))
    if facts.demo:  # the demo's request counter; a service of your own has none we know of
        signals.append(await counter_ledger(readback, facts))
    return RoundLedger(
        configuration=facts.configuration,
        round_index=facts.round_index,
        run_id=facts.run_id,
        window=(facts.started_at, facts.finished_at),
        signals=signals,
        volume=await round_volume(
            readback.metrics,
            facts.started_at,
            facts.finished_at,
            facts.requests_total,
            facts.run_id,
            facts.store_counters,
        ),
        export=await export_timing(readback, facts.run_id, _window(facts)),
    )


class StoredTelemetry(BaseModel):
    """What a configuration's rounds left in the stores, summed over its rounds; None where any
    round's count is unknown (`unknown` says why), so that 0 always means read as 0."""

    rounds: int
    spans: float | None
    log_records: float | None
    metrics: float | None
    unknown: list[str] = []

    @property
    def none_at_all(self) -> bool:
        """No span, no log record and no metric in any round, each read (not unknown)."""
        return self.rounds > 0 and self.spans == 0 and self.log_records == 0 and self.metrics == 0


def _stored_in(ledger: RoundLedger, signal: Signal) -> tuple[float | None, str | None]:
    found = next((s for s in ledger.signals if s.signal == signal), None)
    if found is None:
        return None, f"{signal} not read"
    stage = next((s for s in found.stages if s.stage == "stored"), None)
    if stage is None or stage.value is None:
        return None, f"{signal} stored: {stage.unknown_reason if stage else 'not read'}"
    return stage.value, None


def _metrics_in(ledger: RoundLedger) -> tuple[float | None, str | None]:
    """The demo's request counter by run id; for a service of one's own (no counter known), the
    metric points the Collector's receiver accepted in the round's window: 0 there is exact for
    the round, more than 0 may be another service's sending at the same time."""
    if any(s.signal == "request_counter" for s in ledger.signals):
        return _stored_in(ledger, "request_counter")
    if ledger.volume is None:
        return None, "metrics: the round's volume was not read"
    volume = ledger.volume.signal("metrics")
    if volume.items is None:
        return None, f"metrics: {volume.unknown_reason or 'the Collector reported no accepted metric points'}"
    return volume.items, None


def stored_telemetry(ledgers: list[RoundLedger], configuration: str) -> StoredTelemetry:
    """Spans, log records and metrics the configuration's rounds stored (see StoredTelemetry)."""
    rounds = [ledger for ledger in ledgers if ledger.configuration == configuration]
    totals: dict[str, float | None] = {"spans": 0.0, "log_records": 0.0, "metrics": 0.0}
    unknown: list[str] = []
    for ledger in rounds:
        readings = {
            "spans": _stored_in(ledger, "spans"),
            "log_records": _stored_in(ledger, "log_records"),
            "metrics": _metrics_in(ledger),
        }
        for name, (value, why) in readings.items():
            total = totals[name]
            totals[name] = None if value is None or total is None else total + value
            if why is not None:
                unknown.append(f"round {ledger.round_index + 1}: {why}")
    return StoredTelemetry(
        rounds=len(rounds),
        spans=totals["spans"],
        log_records=totals["log_records"],
        metrics=totals["metrics"],
        unknown=unknown,
    )


def sdk_dropped_unknown_reason(ledgers: list[RoundLedger], configuration: str) -> str | None:
    """Why the configuration's SDK drops are unknown (the first round that does not know), or
    None when every round knows them (or no round was read)."""
    for ledger in ledgers:
        if ledger.configuration != configuration:
            continue
        spans = next((s for s in ledger.signals if s.signal == "spans"), None)
        stage = next((s for s in spans.stages if s.stage == "sdk_dropped"), None) if spans else None
        if stage is None or stage.value is None:
            why = stage.unknown_reason if stage and stage.unknown_reason else "not read"
            return f"round {ledger.round_index + 1}: {why}"
    return None
