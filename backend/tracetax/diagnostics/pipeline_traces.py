"""What of a pipeline round reached Tempo, read back after the run: the spans stored under
the round's run id, whether each stored trace is complete (all `spans_per_trace` spans: for
a sampling pipeline, whether the traces it kept are whole), and whether each trace went
through one downstream Collector only (the loadbalancing exporter's promise; every
downstream stamps `tracetax.downstream` on what it passes on).

The Collectors' own counters (tracetax.lab.ledger) say what each stage did; this says what
a user of the stored traces sees. A Tempo that does not answer leaves it unknown, with why.
"""

from __future__ import annotations

from typing import Any

from tracetax.clients.base import BackendError
from tracetax.clients.tempo import spans_in_trace
from tracetax.readback import RUN_ID_ATTRIBUTE, SEARCH_LIMIT, WHOLE_TRACE_LIMIT, RunReadback, quoted

DOWNSTREAM_ATTRIBUTE = "tracetax.downstream"
EXAMPLES = 5
TRACE_SAMPLE = 200


def _resource_value(span: dict[str, Any], key: str) -> str | None:
    for attribute in span.get("resource", {}).get("attributes", []):
        if attribute.get("key") == key:
            value: str | None = attribute.get("value", {}).get("stringValue")
            return value
    return None


def trace_facts(trace: dict[str, Any], run_id: str) -> tuple[int, set[str | None]]:
    """The run's spans in a fetched trace, and the downstream Collectors they came through."""
    spans = [s for s in spans_in_trace(trace) if _resource_value(s, RUN_ID_ATTRIBUTE) == run_id]
    return len(spans), {_resource_value(s, DOWNSTREAM_ATTRIBUTE) for s in spans}


def summarize(
    facts: dict[str, tuple[int, set[str | None]]], found: int, matched_spans: int, spans_per_trace: int
) -> dict[str, Any]:
    """Counts over the fetched traces (all of them up to WHOLE_TRACE_LIMIT, else a sample:
    `traces_checked` says how many)."""
    incomplete = [trace_id for trace_id, (count, _) in facts.items() if count != spans_per_trace]
    split = [trace_id for trace_id, (_, through) in facts.items() if len(through - {None}) > 1]
    # Spans without the downstream's stamp: which Collector passed them on cannot be told.
    unmarked = [trace_id for trace_id, (_, through) in facts.items() if None in through]
    by_downstream: dict[str, int] = {}
    for _, through in facts.values():
        if len(through) == 1 and None not in through:
            name = str(next(iter(through)))
            by_downstream[name] = by_downstream.get(name, 0) + 1
    exact = len(facts) == found
    return {
        "traces_found": found,
        "traces_checked": len(facts),
        # Exact when every trace was fetched whole; else search's match counts (see readback.spans).
        "stored_spans": sum(count for count, _ in facts.values()) if exact else matched_spans,
        "stored_spans_exact": exact,
        "complete_traces": len(facts) - len(incomplete),
        "incomplete_examples": incomplete[:EXAMPLES],
        "whole_on_one_downstream": sum(by_downstream.values()),
        "traces_by_downstream": dict(sorted(by_downstream.items())),
        "split_examples": split[:EXAMPLES],
        "unmarked_traces": len(unmarked),
    }


def to_fetch(found: list[Any]) -> list[Any]:
    """Every trace up to WHOLE_TRACE_LIMIT (then the stored count is exact); beyond it an even
    sample of TRACE_SAMPLE for the completeness checks: fetching thousands of traces loads the
    Tempo that the next run writes to, for figures a sample gives as well."""
    if len(found) <= WHOLE_TRACE_LIMIT:
        return found
    step = len(found) / TRACE_SAMPLE
    return [found[int(i * step)] for i in range(TRACE_SAMPLE)]


async def round_traces(
    readback: RunReadback, run_id: str, start_s: int, end_s: int, spans_per_trace: int
) -> dict[str, Any]:
    query = f"{{ resource.{RUN_ID_ATTRIBUTE} = {quoted(run_id)} }}"
    try:
        found = await readback.tempo.search(query, start_s, end_s, limit=SEARCH_LIMIT, spans_per_span_set=1)
        if len(found) >= SEARCH_LIMIT:
            return {"error": f"{SEARCH_LIMIT} or more traces in Tempo for the round: too many to count by search"}
        fetched = await readback.whole_traces([t.trace_id for t in to_fetch(found)])
    except BackendError as error:
        return {"error": str(error)}
    facts = {trace_id: trace_facts(trace, run_id) for trace_id, trace in fetched.items()}
    summary = summarize(facts, len(found), sum(t.matched_spans for t in found), spans_per_trace)
    return {**summary, "sample_trace_ids": [t.trace_id for t in found[:3]]}
