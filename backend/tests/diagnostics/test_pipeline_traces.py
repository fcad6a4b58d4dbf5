"""What a round left in Tempo: complete traces, traces whole on one downstream, the delay from
a span's end to its arrival downstream (pure parts)."""

from __future__ import annotations

from tracetax.clients.readback import SEARCH_LIMIT, WHOLE_TRACE_LIMIT
from tracetax.clients.tempo import TraceSummary
from tracetax.diagnostics.pipeline_traces import TRACE_SAMPLE, delay_us, round_traces, summarize, to_fetch, trace_facts


def span(run: str, downstream: str | None, end_ns: int = 0, arrived_ns: int | None = None) -> dict[str, object]:
    attributes = [{"key": "tracetax.run.id", "value": {"stringValue": run}}]
    if downstream is not None:
        attributes.append({"key": "tracetax.downstream", "value": {"stringValue": downstream}})
    # OTLP JSON as Tempo answers it: nanosecond counts as strings.
    own = [] if arrived_ns is None else [{"key": "tracetax.arrived_unix_nano", "value": {"intValue": str(arrived_ns)}}]
    return {"name": "x", "endTimeUnixNano": str(end_ns), "attributes": own, "resource": {"attributes": attributes}}


def trace(*spans: dict[str, object]) -> dict[str, object]:
    own = ("name", "endTimeUnixNano", "attributes")
    batches = [{"resource": s["resource"], "scopeSpans": [{"spans": [{k: s[k] for k in own}]}]} for s in spans]
    return {"batches": batches}


def test_a_trace_split_over_two_downstreams_or_unmarked_is_not_whole() -> None:
    facts = {
        "whole": trace_facts(trace(span("r", "downstream-1"), span("r", "downstream-1")), "r"),
        "split": trace_facts(trace(span("r", "downstream-1"), span("r", "downstream-2")), "r"),
        "short": trace_facts(trace(span("r", "downstream-2")), "r"),
        "unmarked": trace_facts(trace(span("r", None), span("r", None)), "r"),
        "other run": trace_facts(
            trace(span("q", "downstream-1"), span("r", "downstream-2"), span("r", "downstream-2")), "r"
        ),
    }
    result = summarize(facts, found=5, matched_spans=0, spans_per_trace=2)
    assert result["stored_spans"] == 2 + 2 + 1 + 2 + 2 and result["stored_spans_exact"]
    assert result["complete_traces"] == 4 and result["incomplete_examples"] == ["short"]
    assert result["split_examples"] == ["split"] and result["unmarked_traces"] == 1
    assert result["traces_by_downstream"] == {"downstream-1": 1, "downstream-2": 2}
    assert result["whole_on_one_downstream"] == 3


def test_many_traces_are_sampled_and_the_count_comes_from_search() -> None:
    assert to_fetch(list(range(WHOLE_TRACE_LIMIT))) == list(range(WHOLE_TRACE_LIMIT))
    sample = to_fetch(list(range(10_000)))
    assert len(sample) == TRACE_SAMPLE and sample[0] == 0 and sample[-1] > 9_900
    assert summarize({}, found=10_000, matched_spans=50_000, spans_per_trace=5)["stored_spans"] == 50_000


def test_the_delay_is_from_a_spans_end_to_its_arrival_downstream() -> None:
    end = 1_795_478_556_100_449_463
    assert delay_us(span("r", "d", end, end + 1_500_000)) == 1_500.0
    assert delay_us(span("r", "d", end)) is None  # a downstream without the stamp: unknown, not 0
    facts = {
        f"t{i}": trace_facts(trace(span("r", "d", end, end + (i + 1) * 1_000_000), span("q", "d", end, end)), "r")
        for i in range(100)
    }
    result = summarize(facts, found=100, matched_spans=0, spans_per_trace=1)
    assert result["delay_spans"] == 100  # the other run's span is not this round's
    assert result["delay_p50_us"] == 50_500.0 and result["delay_max_us"] == 100_000.0
    assert summarize({}, found=0, matched_spans=0, spans_per_trace=1)["delay_p50_us"] is None


class FakeTempo:
    """Search answers `found` traces; each fetched trace holds one span of the run."""

    def __init__(self, found: int) -> None:
        self.found = found

    async def search(self, *_: object, **__: object) -> list[TraceSummary]:
        return [TraceSummary.model_validate({"traceID": f"{i:032x}", "matched_spans": 1}) for i in range(self.found)]


class FakeReadback:
    def __init__(self, found: int) -> None:
        self.tempo = FakeTempo(found)

    async def whole_traces(self, trace_ids: list[str]) -> dict[str, dict[str, object]]:
        return {trace_id: trace(span("r", "d", 0, 2_000_000)) for trace_id in trace_ids}


async def test_a_round_with_more_traces_than_search_returns_keeps_the_sample_and_an_unknown_count() -> None:
    result = await round_traces(FakeReadback(SEARCH_LIMIT), "r", 0, 1, 1)  # type: ignore[arg-type]
    assert result["stored_spans"] is None and result["traces_found"] is None  # unknown, never the limit
    assert "too many to count" in result["uncounted"]
    assert result["traces_checked"] == TRACE_SAMPLE and result["complete_traces"] == TRACE_SAMPLE
    assert result["delay_p50_us"] == 2_000.0
    counted = await round_traces(FakeReadback(10), "r", 0, 1, 1)  # type: ignore[arg-type]
    assert counted["stored_spans"] == 10 and "uncounted" not in counted
