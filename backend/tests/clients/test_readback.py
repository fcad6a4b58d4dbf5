from __future__ import annotations

from typing import Any, cast

from tracetax.clients.loki import LokiClient
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.readback import FETCH_ALL_UP_TO, RUN_ID_ATTRIBUTE, RunReadback, with_run_id
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
