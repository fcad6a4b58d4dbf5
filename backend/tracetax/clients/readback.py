"""Count what one run produced, read back from the real backends by its `tracetax.run.id`.

Every count is exact or an error: a backend that cannot answer raises BackendError (naming
the backend and the query) rather than returning zero, so callers can tell "nothing arrived"
from "could not look".
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tracetax.clients.base import BackendError
from tracetax.clients.loki import LokiClient
from tracetax.clients.prometheus import PrometheusClient
from tracetax.clients.tempo import TempoClient, TraceSummary, resource_string, spans_in_trace
from tracetax.core.config import Settings

RUN_ID_ATTRIBUTE = "tracetax.run.id"
# The Collector's own telemetry arrives under this service name (its `job` label in the store).
COLLECTOR_SERVICE_NAME = "otelcol-tracetax"
# How the run id appears once translated: a Loki structured-metadata key, a Prometheus label.
RUN_ID_LABEL = "tracetax_run_id"


WHOLE_TRACE_LIMIT = 2_000
# Runs of this many traces or fewer are fetched whole, every trace (RunReadback.spans).
FETCH_ALL_UP_TO = 50
SEARCH_LIMIT = 20_000
# An SDK exports its last metrics and logs when the service stops, after the run's last request:
# a run's data is read up to this long past its end (and never past now).
FLUSH_GRACE_S = 60


@dataclass(frozen=True)
class RunWindow:
    """When a run's data reached the stores: from its start to FLUSH_GRACE_S past its end.

    Reads over a run ask for this window, not for "now": an instant query at collection time
    sees a series only within the store's lookback (5 minutes in Prometheus and Mimir), so a
    collection a few minutes late would read a counter's "no series" where the run left a value.
    """

    start_s: float
    end_s: float

    @classmethod
    def of(cls, start: datetime, end: datetime) -> RunWindow:
        return cls(start.timestamp(), end.timestamp())

    @classmethod
    def last(cls, seconds: float) -> RunWindow:
        """The last `seconds` up to now (a probe that has no run boundaries of its own)."""
        now = time.time()
        return cls(now - seconds, now)

    def read_at(self, now: float | None = None) -> float:
        """The instant to evaluate at: past the flush, not in the future."""
        return min(time.time() if now is None else now, self.end_s + FLUSH_GRACE_S)

    def range_s(self, now: float | None = None) -> int:
        """A range-vector length (whole seconds) that reaches back from `read_at` to the start."""
        return max(math.ceil(self.read_at(now) - self.start_s) + 1, 1)


def _matches(span: dict[str, Any], run_id: str, name: str | None) -> bool:
    return resource_string(span, RUN_ID_ATTRIBUTE) == run_id and (name is None or span.get("name") == name)


def quoted(value: str) -> str:
    """A string literal for TraceQL, LogQL and PromQL (all accept Go-style double quotes)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass
class RunReadback:
    tempo: TempoClient
    loki: LokiClient
    metrics: PrometheusClient

    @classmethod
    def from_settings(cls, settings: Settings) -> RunReadback:
        """The three backends' clients as configured (Mimir: path prefix, ready path, tenant)."""
        timeout = settings.backend_timeout_s
        return cls(
            TempoClient(str(settings.tempo_url), timeout_s=timeout),
            LokiClient(str(settings.loki_url), timeout_s=timeout),
            PrometheusClient(
                str(settings.metrics_url),
                path_prefix=settings.metrics_path_prefix,
                ready_path=settings.metrics_ready_path,
                tenant=settings.metrics_tenant,
                timeout_s=timeout,
            ),
        )

    async def aclose(self) -> None:
        await asyncio.gather(self.tempo.aclose(), self.loki.aclose(), self.metrics.aclose())

    async def spans(self, run_id: str, since_s: int, until_s: int | None = None, name: str | None = None) -> int:
        """Spans stored in Tempo whose resource carries the run id (and, if given, named `name`).

        One search finds the run's traces with each one's match count. A trace whose spans
        reached Tempo in two exports can be split across ingester cuts, and search's count then
        sees only one part: never more than the trace holds. So a count below the run's largest
        is checked by fetching that trace whole and counting its spans; the others are taken as
        counted (a run of one request shape, the demo services', fetches only split traces).
        With FETCH_ALL_UP_TO traces or fewer the largest count is no reference: every one is
        fetched. Beyond WHOLE_TRACE_LIMIT traces to fetch, the sum of search's counts. A window
        with SEARCH_LIMIT traces or more is searched in halves until each half answers below the
        limit (`search_every_trace`); a one-second window still at the limit is BackendError
        rather than a guess. (TraceQL metrics, `count_over_time()`, would answer without
        splitting, but only over a metrics generator's local blocks, and undercounted there
        compared with search: 120 against an exact 600. The stack runs no metrics generator.)

        Left to trust: a trace split so that its larger part alone ties the run's largest count
        (possible only when traces differ in size).
        """
        condition = f"resource.{RUN_ID_ATTRIBUTE} = {quoted(run_id)}"
        if name is not None:
            condition += f" && name = {quoted(name)}"
        query = f"{{ {condition} }}"
        until = until_s or int(time.time()) + 60
        traces = await search_every_trace(self.tempo, query, since_s, until, limit=SEARCH_LIMIT)
        largest = max((t.matched_spans for t in traces), default=0)
        unsure = [t for t in traces if len(traces) <= FETCH_ALL_UP_TO or t.matched_spans < largest]
        if len(unsure) > WHOLE_TRACE_LIMIT:
            return sum(summary.matched_spans for summary in traces)
        fetched = await self.whole_traces([t.trace_id for t in unsure])
        counted = sum(t.matched_spans for t in traces if t.trace_id not in fetched)
        return counted + sum(
            sum(1 for span in spans_in_trace(trace) if _matches(span, run_id, name)) for trace in fetched.values()
        )

    async def whole_traces(self, trace_ids: list[str], concurrency: int = 8) -> dict[str, dict[str, Any]]:
        """Each trace fetched whole from Tempo, at most `concurrency` at a time."""
        gate = asyncio.Semaphore(concurrency)

        async def fetch(trace_id: str) -> tuple[str, dict[str, Any]]:
            async with gate:
                return trace_id, await self.tempo.trace(trace_id)

        return dict(await asyncio.gather(*(fetch(trace_id) for trace_id in trace_ids)))

    async def log_records(self, service_name: str, run_id: str, window: RunWindow | None = None) -> int:
        """Log records stored in Loki for the service and run id within the run's window (the
        last hour when no window is given). No record is 0: the query is over the run's window,
        so a late read still finds what the run stored."""
        span = window or RunWindow.last(3600)
        query = (
            f"sum(count_over_time({{service_name={quoted(service_name)}}} "
            f"| {RUN_ID_LABEL}={quoted(run_id)} [{span.range_s()}s]))"
        )
        samples = await self.loki.query(query, int(span.read_at() * 1e9))
        return int(sum(sample.value for sample in samples))

    async def metric_sum(self, selector: str, run_id: str, window: RunWindow | None = None) -> float | None:
        """A metric's last value in the run's window (the last hour when no window is given),
        summed over every series of the run; None when the store holds no such series there.

        `last_over_time` over the whole window, evaluated at its end, finds a counter's final
        value however long after the run the collection happens; "no series" is unknown, never
        0 (an SDK that never exported the metric says nothing about its value)."""
        span = window or RunWindow.last(3600)
        promql = f"sum(last_over_time({with_run_id(selector, run_id)}[{span.range_s()}s]))"
        samples = await self.metrics.query(promql, span.read_at())
        return sum(sample.value for sample in samples) if samples else None


async def search_every_trace(
    tempo: TempoClient, query: str, start_s: int, end_s: int, limit: int = SEARCH_LIMIT
) -> list[TraceSummary]:
    """Every trace matching `query` between `start_s` and `end_s`, however many.

    One search answers at most `limit` traces; a window that reaches the limit is searched
    again in two halves, recursively, down to one second. Tempo matches a trace to a window
    when the trace's time range overlaps it, so a trace that straddles a split point is found
    in both halves: traces are merged by id (keeping search's larger match count, as a part
    is never more than the trace holds), which makes the union exact whichever way Tempo
    matches, as long as the windows cover the whole range. A one-second window still at the
    limit raises BackendError: the count is then unknown, never a partial sum."""
    found: dict[str, TraceSummary] = {}

    async def search(start: int, end: int) -> None:
        traces = await tempo.search(query, start, end, limit=limit, spans_per_span_set=1)
        if len(traces) < limit:
            for trace in traces:
                known = found.get(trace.trace_id)
                if known is None or trace.matched_spans > known.matched_spans:
                    found[trace.trace_id] = trace
            return
        if end - start <= 1:
            raise BackendError(
                "tempo",
                f"count spans `{query}`",
                f"{limit} or more traces within one second ({start}-{end}): too many to count exactly by search",
            )
        middle = (start + end) // 2
        await search(start, middle)
        await search(middle, end)

    await search(start_s, end_s)
    return list(found.values())


def with_run_id(selector: str, run_id: str) -> str:
    """Add the run id matcher to a PromQL series selector."""
    matcher = f"{RUN_ID_LABEL}={quoted(run_id)}"
    selector = selector.strip()
    if selector.endswith("}"):
        head = selector[:-1].rstrip()
        return f"{head}{'' if head.endswith('{') else ', '}{matcher}}}"
    return f"{selector}{{{matcher}}}"


async def counter_increase(
    metrics: PrometheusClient, metric: str, matchers: str, start: datetime, end: datetime
) -> float | None:
    """Increase of a counter of the Collector's own telemetry between two instants, per
    instance; None when no series of it existed at the end.

    A restarted Collector is a new instance, a series starting from zero; a series whose value
    went down all the same restarted, and what it holds at the end is what it counted since."""
    job = COLLECTOR_SERVICE_NAME
    query = f'sum by (instance) ({metric}{{job="{job}",{matchers}}})'
    after = {s.labels.get("instance", ""): s.value for s in await metrics.query(query, end)}
    if not after:
        return None
    before = {s.labels.get("instance", ""): s.value for s in await metrics.query(query, start)}
    return sum(
        value - before.get(instance, 0.0) if value >= before.get(instance, 0.0) else value
        for instance, value in after.items()
    )
