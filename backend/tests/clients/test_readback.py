from __future__ import annotations

from typing import Any, cast
from unittest.mock import patch

import pytest

from tracetax.clients.base import BackendError
from tracetax.clients.loki import LokiClient
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.readback import (
    FETCH_ALL_UP_TO,
    RUN_ID_ATTRIBUTE,
    RunReadback,
    search_every_trace,
    with_run_id,
)
from tracetax.clients.tempo import TempoClient, TraceSummary


def test_with_run_id_adds_a_matcher_to_every_selector_shape() -> None:
    assert with_run_id("up", "r1") == 'up{tracetax_run_id="r1"}'
    assert with_run_id("up{}", "r1") == 'up{tracetax_run_id="r1"}'
    assert (
        with_run_id('otel_sdk_processor_span_processed_total{error_type="queue_full"}', "r1")
        == 'otel_sdk_processor_span_processed_total{error_type="queue_full", tracetax_run_id="r1"}'
    )


def test_with_run_id_escapes_quotes() -> None:
    assert with_run_id("up", 'a"b') == 'up{tracetax_run_id="a\\"b"}'


class FakeTempo:
    """Search answers with per-trace match counts; a fetch returns the trace's real spans."""

    def __init__(self, matched: dict[str, int], real: dict[str, int]) -> None:
        self.matched, self.real, self.fetched = matched, real, list[str]()

    async def search(self, *_: object, **__: object) -> list[TraceSummary]:
        return [TraceSummary(traceID=i, matched_spans=n) for i, n in self.matched.items()]

    async def trace(self, trace_id: str) -> dict[str, Any]:
        self.fetched.append(trace_id)
        resource = {"attributes": [{"key": RUN_ID_ATTRIBUTE, "value": {"stringValue": "run"}}]}
        spans = [{"name": "work"} for _ in range(self.real[trace_id])]
        return {"batches": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]}


def trace_id(i: int) -> str:
    return f"{i:032x}"


async def count(matched: dict[str, int], real: dict[str, int]) -> tuple[int, list[str]]:
    tempo = FakeTempo(matched, real)
    readback = RunReadback(cast(TempoClient, tempo), cast(LokiClient, None), cast(PrometheusClient, None))
    return await readback.spans("run", 0, 1), tempo.fetched


async def test_only_traces_search_saw_in_part_are_fetched_whole() -> None:
    real = {trace_id(i): 5 for i in range(FETCH_ALL_UP_TO + 10)}
    matched = dict(real) | {trace_id(3): 2}  # split across cuts: search saw one part
    spans, fetched = await count(matched, real)
    assert spans == 5 * len(real)
    assert fetched == [trace_id(3)]


async def test_a_few_traces_are_all_fetched_whole() -> None:
    real = {trace_id(i): 5 for i in range(3)}
    matched = dict.fromkeys(real, 3)  # every one split alike: the largest count is no reference
    spans, fetched = await count(matched, real)
    assert spans == 15
    assert sorted(fetched) == sorted(real)


class TimedTempo:
    """Traces with time ranges (unix seconds); a search returns, up to `limit`, the traces
    whose range overlaps [start, end], as Tempo matches them, each with its spans as matched."""

    def __init__(self, traces: dict[str, tuple[float, float, int]]) -> None:
        self.traces, self.searches = traces, list[tuple[int, int]]()

    async def search(self, _query: str, start: int, end: int, limit: int, **__: object) -> list[TraceSummary]:
        self.searches.append((start, end))
        hits = [
            TraceSummary(traceID=trace, matched_spans=spans)
            for trace, (first, last, spans) in self.traces.items()
            if first <= end and last >= start
        ]
        return hits[:limit]


async def test_a_window_at_the_limit_is_searched_in_halves_and_each_trace_counted_once() -> None:
    # 1,000 traces over 100 s, some straddling the split points (a trace lasting 1.5 s).
    traces = {trace_id(i): (i * 0.1, i * 0.1 + (1.5 if i % 7 == 0 else 0.01), 1 + i % 5) for i in range(1000)}
    tempo = TimedTempo(traces)
    found = await search_every_trace(cast(TempoClient, tempo), "{}", 0, 101, limit=300)
    assert sorted(t.trace_id for t in found) == sorted(traces)
    assert sum(t.matched_spans for t in found) == sum(spans for _, _, spans in traces.values())
    assert len(tempo.searches) > 1
    assert all(end - start >= 1 for start, end in tempo.searches)


async def test_a_window_below_the_limit_is_one_search() -> None:
    tempo = TimedTempo({trace_id(i): (i, i, 2) for i in range(10)})
    found = await search_every_trace(cast(TempoClient, tempo), "{}", 0, 10, limit=300)
    assert len(found) == 10
    assert tempo.searches == [(0, 10)]


async def test_one_second_still_at_the_limit_is_unknown_not_a_partial_count() -> None:
    tempo = TimedTempo({trace_id(i): (5.0, 5.0, 1) for i in range(400)})
    with pytest.raises(BackendError, match="within one second"):
        await search_every_trace(cast(TempoClient, tempo), "{}", 0, 10, limit=300)


async def test_spans_counts_a_busy_run_through_split_searches() -> None:
    traces = {trace_id(i): (i * 0.01, i * 0.01, 3) for i in range(900)}
    tempo = TimedTempo(traces)
    readback = RunReadback(cast(TempoClient, tempo), cast(LokiClient, None), cast(PrometheusClient, None))
    with patch("tracetax.clients.readback.SEARCH_LIMIT", 250):
        assert await readback.spans("run", 0, 10) == 2700
