"""What of a pipeline round reached Tempo, read back after the run: the spans stored under
the round's run id, whether each stored trace is complete (all `spans_per_trace` spans: for
a sampling pipeline, whether the traces it kept are whole), and whether each trace went
through one downstream Collector only (the loadbalancing exporter's promise; every
downstream stamps `tracetax.downstream` on what it passes on).

Every downstream also stamps each span's arrival (`tracetax.arrived_unix_nano`,
collector-pipelines/lab/downstream.yaml), so the fetched spans give the delay from a span's
end in telemetrygen to its arrival downstream: what the lab Collector adds to it (a batch
timeout, a trace held for its sampling decision), on top of telemetrygen's own export batching,
which every variant shares and the paired change against the baseline cancels.

The Collectors' own counters (tracetax.lab.ledger) say what each stage did; this says what
a user of the stored traces sees. A Tempo that does not answer leaves it unknown, with why.
What it finds is stored as the round's ledger reading's `stored` (`StoredTraces` says what it
holds, for the diagnostics and the API alike).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.clients.base import BackendError
from tracetax.clients.readback import RUN_ID_ATTRIBUTE, SEARCH_LIMIT, WHOLE_TRACE_LIMIT, RunReadback, quoted
from tracetax.clients.tempo import attribute_value, resource_string, spans_in_trace
from tracetax.system.stored_json import OPEN, Number

DOWNSTREAM_ATTRIBUTE = "tracetax.downstream"
ARRIVED_ATTRIBUTE = "tracetax.arrived_unix_nano"
EXAMPLES = 5
TRACE_SAMPLE = 200


@with_config(OPEN)
class StoredTraces(TypedDict, total=False):
    """What of a round reached Tempo; {error} alone when Tempo did not answer."""

    # In the order round_traces writes them.
    error: str
    traces_found: int | None
    traces_checked: int
    stored_spans: int | None
    # False: counted from search matches, not from every trace fetched whole.
    stored_spans_exact: bool
    complete_traces: int
    incomplete_examples: list[str]
    whole_on_one_downstream: int
    traces_by_downstream: dict[str, int]
    split_examples: list[str]
    unmarked_traces: int
    delay_spans: int
    delay_p50_us: Number | None
    delay_p99_us: Number | None
    delay_max_us: Number | None
    # Search stopped at its limit: no span count; the checks above are on a sample.
    uncounted: str
    sample_trace_ids: list[str]


@dataclass
class TraceFacts:
    """The run's spans in one fetched trace."""

    spans: int
    # The downstream Collectors they came through (None: a span without the stamp).
    through: set[str | None]
    # Per span with an arrival stamp: microseconds from its end to its arrival downstream.
    delays_us: list[float] = field(default_factory=list)


def delay_us(span: dict[str, Any]) -> float | None:
    """End to arrival downstream, or None when the span has no stamp or no end time (OTLP JSON
    writes both nanosecond counts as strings)."""
    arrived = attribute_value(span.get("attributes", []), ARRIVED_ATTRIBUTE)
    end = span.get("endTimeUnixNano")
    if arrived is None or "intValue" not in arrived or end is None:
        return None
    return (int(arrived["intValue"]) - int(end)) / 1000.0


def trace_facts(trace: dict[str, Any], run_id: str) -> TraceFacts:
    spans = [s for s in spans_in_trace(trace) if resource_string(s, RUN_ID_ATTRIBUTE) == run_id]
    delays = [d for s in spans if (d := delay_us(s)) is not None]
    return TraceFacts(len(spans), {resource_string(s, DOWNSTREAM_ATTRIBUTE) for s in spans}, delays)


def delay_summary(facts: dict[str, TraceFacts]) -> StoredTraces:
    """Percentiles of span end to arrival downstream over every stamped span fetched."""
    delays = np.asarray([d for f in facts.values() for d in f.delays_us], dtype=float)
    if delays.size == 0:
        return {"delay_spans": 0, "delay_p50_us": None, "delay_p99_us": None, "delay_max_us": None}
    p50, p99 = np.percentile(delays, [50, 99])
    return {
        "delay_spans": int(delays.size),
        "delay_p50_us": round(float(p50), 1),
        "delay_p99_us": round(float(p99), 1),
        "delay_max_us": round(float(delays.max()), 1),
    }


def summarize(facts: dict[str, TraceFacts], found: int, matched_spans: int, spans_per_trace: int) -> StoredTraces:
    """Counts over the fetched traces (all of them up to WHOLE_TRACE_LIMIT, else a sample:
    `traces_checked` says how many)."""
    incomplete = [trace_id for trace_id, f in facts.items() if f.spans != spans_per_trace]
    split = [trace_id for trace_id, f in facts.items() if len(f.through - {None}) > 1]
    # Spans without the downstream's stamp: which Collector passed them on cannot be told.
    unmarked = [trace_id for trace_id, f in facts.items() if None in f.through]
    by_downstream: dict[str, int] = {}
    for f in facts.values():
        if len(f.through) == 1 and None not in f.through:
            name = str(next(iter(f.through)))
            by_downstream[name] = by_downstream.get(name, 0) + 1
    exact = len(facts) == found
    return {
        "traces_found": found,
        "traces_checked": len(facts),
        # Exact when every trace was fetched whole; else search's match counts (see readback.spans).
        "stored_spans": sum(f.spans for f in facts.values()) if exact else matched_spans,
        "stored_spans_exact": exact,
        "complete_traces": len(facts) - len(incomplete),
        "incomplete_examples": incomplete[:EXAMPLES],
        "whole_on_one_downstream": sum(by_downstream.values()),
        "traces_by_downstream": dict(sorted(by_downstream.items())),
        "split_examples": split[:EXAMPLES],
        "unmarked_traces": len(unmarked),
        **delay_summary(facts),
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
) -> StoredTraces:
    query = f"{{ resource.{RUN_ID_ATTRIBUTE} = {quoted(run_id)} }}"
    try:
        found = await readback.tempo.search(query, start_s, end_s, limit=SEARCH_LIMIT, spans_per_span_set=1)
        fetched = await readback.whole_traces([t.trace_id for t in to_fetch(found)])
    except BackendError as error:
        return {"error": str(error)}
    facts = {trace_id: trace_facts(trace, run_id) for trace_id, trace in fetched.items()}
    summary = summarize(facts, len(found), sum(t.matched_spans for t in found), spans_per_trace)
    if len(found) >= SEARCH_LIMIT:
        # Search stops at its limit: the stored count is unknown, never the limit's. What the
        # sample says (complete traces, downstreams, delay) still holds for the round.
        summary |= {
            "traces_found": None,
            "stored_spans": None,
            "stored_spans_exact": False,
            "uncounted": f"{SEARCH_LIMIT} or more traces in Tempo for the round, too many to count by search; "
            f"complete traces, downstreams and delay from a sample of {len(facts)}",
        }
    return {**summary, "sample_trace_ids": [t.trace_id for t in found[:3]]}
