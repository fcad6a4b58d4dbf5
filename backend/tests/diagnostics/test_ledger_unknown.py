"""Unknown, never 0: the ledger's Collector stages when the metrics store holds none of the
Collector's series (its telemetry never arrived), and every stage read from a component that
was down around the round. sdk_dropped is then unknown too, never inferred as everything."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tracetax.clients.readback import RunWindow
from tracetax.db.models import Round
from tracetax.diagnostics.ledger import RoundFacts, SignalLedger, Stage, counter_ledger, log_ledger, span_ledger
from tracetax.diagnostics.rounds import stack_down_during, stack_down_rounds
from tracetax.diagnostics.volume import UPTIME

END = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
START = END - timedelta(seconds=30)
COLLECTOR_STAGES = ("collector_accepted", "collector_refused", "exporter_sent", "exporter_failed")


@dataclass
class Sample:
    value: float
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class Metrics:
    """The metrics store: `counters[name] = (at start, at end)` for one Collector instance;
    a counter not listed has no series at all."""

    counters: dict[str, tuple[float, float]] = field(default_factory=dict)

    async def query(self, promql: str, at: datetime | None = None) -> list[Sample]:
        name = next((n for n in self.counters if f"{n}{{" in promql), None)
        if name is None:
            return []
        before, after = self.counters[name]
        return [Sample(after if at == END else before, {"instance": "collector-1"})]


@dataclass
class Readback:
    metrics: Metrics
    stored_spans: int = 1000
    stored_logs: int = 500

    async def spans(self, run_id: str, since_s: int, until_s: int | None = None, name: str | None = None) -> int:
        return self.stored_spans

    async def log_records(self, service_name: str, run_id: str, window: RunWindow | None = None) -> int:
        return self.stored_logs

    async def metric_sum(self, selector: str, run_id: str, window: RunWindow | None = None) -> float | None:
        return 500.0


def facts(**changes: Any) -> RoundFacts:
    base: dict[str, Any] = {
        "configuration": "batch",
        "round_index": 0,
        "run_id": "r1",
        "started_at": START,
        "finished_at": END,
        "requests_total": 500,
        "spans_per_request": 2,
        "service_name": "demo-go",
        "dropped_spans_selector": None,
    }
    return RoundFacts(**{**base, **changes})


def healthy_counters(item: str, accepted: float) -> dict[str, tuple[float, float]]:
    return {
        f"otelcol_receiver_accepted_{item}_total": (100.0, 100.0 + accepted),
        f"otelcol_receiver_refused_{item}_total": (0.0, 0.0),
        f"otelcol_exporter_sent_{item}_total": (100.0, 100.0 + accepted),
        f"otelcol_exporter_send_failed_{item}_total": (0.0, 0.0),
        UPTIME: (60.0, 90.0),
    }


def stage(ledger: SignalLedger, name: str) -> Stage:
    return next(s for s in ledger.stages if s.stage == name)


def spans_of(metrics: Metrics, **changes: Any) -> SignalLedger:
    return asyncio.run(span_ledger(Readback(metrics), facts(**changes)))  # type: ignore[arg-type]


def test_a_healthy_round_reads_every_collector_stage() -> None:
    spans = spans_of(Metrics(healthy_counters("spans", 1000)))
    assert [stage(spans, name).value for name in COLLECTOR_STAGES] == [1000, 0, 1000, 0]
    assert stage(spans, "sdk_dropped").value == 0
    assert spans.balanced is True


def test_absent_collector_series_are_unknown_not_zero() -> None:
    spans = spans_of(Metrics())  # the Collector's telemetry never reached the store
    for name in COLLECTOR_STAGES:
        unknown = stage(spans, name)
        assert unknown.value is None, unknown
        assert unknown.unknown_reason is not None and "no otelcol_" in unknown.unknown_reason
    # Not inferred as "everything was dropped in the SDK" (expected - 0 - 0).
    dropped = stage(spans, "sdk_dropped")
    assert dropped.value is None and dropped.unknown_reason is not None
    assert spans.balanced is None


def test_a_counter_never_created_reads_0_while_the_collector_reports() -> None:
    # The Collector creates its refused and failed counters at the first refusal or failure:
    # with its uptime in the store, their absence is a count of 0.
    counters = healthy_counters("spans", 1000)
    del counters["otelcol_receiver_refused_spans_total"], counters["otelcol_exporter_send_failed_spans_total"]
    spans = spans_of(Metrics(counters))
    assert [stage(spans, name).value for name in COLLECTOR_STAGES] == [1000, 0, 1000, 0]
    assert spans.balanced is True


def test_an_absent_series_is_unknown_when_the_collector_does_not_report() -> None:
    counters = healthy_counters("spans", 1000)
    del counters["otelcol_receiver_refused_spans_total"], counters[UPTIME]
    spans = spans_of(Metrics(counters))
    assert stage(spans, "collector_accepted").value == 1000
    assert stage(spans, "collector_refused").value is None
    assert stage(spans, "sdk_dropped").value is None


def test_components_down_around_the_round_make_their_stages_unknown() -> None:
    spans = spans_of(Metrics(healthy_counters("spans", 400)), stack_down=["collector", "tempo"])
    for name in (*COLLECTOR_STAGES, "stored", "sdk_dropped"):
        unknown = stage(spans, name)
        assert unknown.value is None, unknown
        assert unknown.unknown_reason is not None
    assert "collector" in (stage(spans, "collector_accepted").unknown_reason or "")
    assert "tempo" in (stage(spans, "stored").unknown_reason or "")
    assert spans.balanced is None


def test_loki_and_the_metrics_store_down() -> None:
    metrics = Metrics(healthy_counters("log_records", 500))
    logs = asyncio.run(log_ledger(Readback(metrics), facts(stack_down=["loki"])))  # type: ignore[arg-type]
    assert stage(logs, "collector_accepted").value == 500  # the Collector and the store were up
    assert stage(logs, "stored").value is None and "loki" in (stage(logs, "stored").unknown_reason or "")
    counter = asyncio.run(counter_ledger(Readback(metrics), facts(stack_down=["metrics"])))  # type: ignore[arg-type]
    assert stage(counter, "stored").value is None
    spans = spans_of(Metrics(healthy_counters("spans", 1000)), stack_down=["metrics"])
    assert stage(spans, "collector_accepted").value is None  # read from the metrics store
    assert stage(spans, "stored").value == 1000  # Tempo was up


def test_rounds_flagged_with_the_components_that_were_down() -> None:
    down = Round(configuration="batch", round_index=1, resources={"stack_health": {"flagged": True, "down": ["tempo"]}})
    fine = Round(configuration="none", round_index=0, resources={"stack_health": {"flagged": False, "down": []}})
    unprobed = Round(configuration="none", round_index=1, resources=None)
    assert stack_down_during(down) == ["tempo"]
    assert stack_down_rounds([fine, down, unprobed]) == ["batch round 2 (tempo)"]
