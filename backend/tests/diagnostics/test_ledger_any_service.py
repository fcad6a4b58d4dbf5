"""The ledger of a user's own service: expected from the SDK's own counters, or declared, or
unknown with no loss claimed (never the demo's contract). Fakes of the metrics store only."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tracetax.clients.readback import RunWindow
from tracetax.diagnostics.ledger import RoundFacts, _declared_spans, _expected_logs, sdk_counts


@dataclass
class FakeSample:
    value: float


@dataclass
class FakeMetrics:
    """Series by metric name; a query `count(name{...})` counts them, `sum(...)` sums them."""

    series: dict[str, list[tuple[dict[str, str], float]]] = field(default_factory=dict)

    async def query(self, promql: str) -> list[FakeSample]:
        name = promql.split("(", 1)[1].split("{", 1)[0]
        present = self.series.get(name, [])
        return [FakeSample(float(len(present)))] if present else []


@dataclass
class FakeReadback:
    metrics: FakeMetrics

    async def metric_sum(self, selector: str, run_id: str, window: RunWindow | None = None) -> float | None:
        """As the store answers: None when no series of the run matches the selector."""
        name = selector.split("{", 1)[0]
        wanted = {}
        if "{" in selector:
            for matcher in selector.split("{", 1)[1].rstrip("}").split(","):
                key, value = matcher.replace("!=", "=!").split("=", 1)
                wanted[key.strip()] = value.strip('"')
        matched = [
            value
            for labels, value in self.metrics.series.get(name, [])
            if all(_matches(labels.get(key, ""), want) for key, want in wanted.items())
        ]
        return sum(matched) if matched else None


WINDOW = RunWindow.last(60)


def _matches(value: str, want: str) -> bool:
    return value != want[2:-1] if want.startswith("!") else value == want


def facts(**changes: Any) -> RoundFacts:
    now = datetime.now(UTC)
    base: dict[str, Any] = {
        "configuration": "zero-code",
        "round_index": 0,
        "run_id": "r1",
        "started_at": now,
        "finished_at": now,
        "requests_total": 4274,
        "spans_per_request": None,
        "logs_per_request": None,
        "service_name": "httpbin",
        "dropped_spans_selector": None,
        "demo": False,
    }
    return RoundFacts(**{**base, **changes})


def test_expected_spans_come_from_the_sdks_sdk_counts() -> None:
    metrics = FakeMetrics(
        {
            "otel_sdk_processor_span_processed_total": [
                ({"error_type": ""}, 4000.0),
                ({"error_type": "queue_full"}, 274.0),
            ]
        }
    )
    counted = asyncio.run(sdk_counts(FakeReadback(metrics), "spans", "r1", WINDOW))  # type: ignore[arg-type]
    assert counted is not None
    expected, dropped = counted
    assert dropped is not None and (expected.value, dropped.value) == (4274.0, 274.0)
    assert expected.source == "SDK counter otel_sdk_processor_span_processed_total"


def test_the_java_agent_counts_what_its_exporter_saw_plus_its_drops() -> None:
    metrics = FakeMetrics(
        {
            "otlp_exporter_seen_total": [({"type": "span"}, 2601.0), ({"type": "log"}, 5.0)],
            # At shutdown the final batch is processed after the final metric export: 2,449 of 2,601.
            "processedSpans_total": [({"dropped": "false"}, 2439.0), ({"dropped": "true"}, 10.0)],
        }
    )
    counted = asyncio.run(sdk_counts(FakeReadback(metrics), "spans", "r1", WINDOW))  # type: ignore[arg-type]
    assert counted is not None and counted[1] is not None
    assert (counted[0].value, counted[1].value) == (2611.0, 10.0)


def test_sampled_spans_started_come_before_the_sdk_counts() -> None:
    metrics = FakeMetrics(
        {
            "otel_sdk_span_started_total": [
                ({"otel_span_sampling_result": "RECORD_AND_SAMPLE"}, 2002.0),
                ({"otel_span_sampling_result": "DROP"}, 18000.0),
            ],
            "otel_sdk_processor_span_processed_total": [({"error_type": ""}, 1984.0)],
        }
    )
    counted = asyncio.run(sdk_counts(FakeReadback(metrics), "spans", "r1", WINDOW))  # type: ignore[arg-type]
    assert counted is not None and counted[1] is not None
    assert (counted[0].value, counted[1].value) == (2002.0, 0.0)
    assert "otel_sdk_span_started_total" in (counted[0].source or "")


def test_without_a_drop_counter_drops_are_left_to_inference() -> None:
    metrics = FakeMetrics({"otel_sdk_span_started_total": [({"otel_span_sampling_result": "RECORD_AND_SAMPLE"}, 5.0)]})
    counted = asyncio.run(sdk_counts(FakeReadback(metrics), "spans", "r1", WINDOW))  # type: ignore[arg-type]
    assert counted is not None and counted[0].value == 5.0 and counted[1] is None


def test_no_counter_is_none_not_zero() -> None:
    assert asyncio.run(sdk_counts(FakeReadback(FakeMetrics()), "log_records", "r1", WINDOW)) is None  # type: ignore[arg-type]


def test_without_a_counter_or_a_declaration_expected_is_unknown_and_no_loss_is_claimed() -> None:
    spans = _declared_spans(facts())
    assert spans.value is None and "no loss is claimed" in (spans.unknown_reason or "")
    logs = _expected_logs(facts())
    assert logs.value is None and "no loss is claimed" in (logs.unknown_reason or "")


def test_declared_spans_per_request_say_so() -> None:
    spans = _declared_spans(facts(spans_per_request=2))
    assert spans.value == 8548 and spans.source == "declared: requests x service.spans_per_request"


def test_the_demo_contract_is_unchanged() -> None:
    demo = facts(demo=True, spans_per_request=5, logs_per_request=1)
    assert _declared_spans(demo).value == 5 * 4274 and _declared_spans(demo).source is None
    assert _expected_logs(demo).value == 4274


def test_export_timing_is_none_without_exports_and_averaged_over_rounds() -> None:
    from tracetax.diagnostics.ledger import ExportTiming, RoundLedger, export_timing, mean_export_s

    empty = asyncio.run(export_timing(FakeReadback(FakeMetrics()), "r1", WINDOW))  # type: ignore[arg-type]
    assert empty is None
    now = datetime.now(UTC)

    def ledger(configuration: str, export: ExportTiming | None) -> RoundLedger:
        return RoundLedger(
            configuration=configuration, round_index=0, run_id="r", window=(now, now), signals=[], export=export
        )

    rounds = [
        ledger("batch", ExportTiming(exports=10, seconds=0.5)),
        ledger("batch", ExportTiming(exports=30, seconds=0.7)),
        ledger("batch", None),
        ledger("other", None),
    ]
    assert mean_export_s(rounds, "batch") == 1.2 / 40
    assert mean_export_s(rounds, "other") is None
