"""The stores' own counters, read straight from each store's `/metrics` (Prometheus text).

Tempo, Loki and Mimir each serve their internal metrics at `/metrics` on their HTTP port (Mimir
at its root, not under `/prometheus`). Read at a round's start and at its end, the counters'
difference is what the store received in between: no scraper, no metrics store in between, so
it works the same natively, in compose and in Helm. A snapshot keeps only the counters asked
for, summed over their series, and the process's start time, which tells a restart apart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import httpx
from prometheus_client.parser import text_string_to_metric_families
from pydantic import BaseModel

from tracetax.core.config import Settings
from tracetax.core.urls import redact_url, redact_urls

# Every Go process's collector exposes it: it changes when the store restarts.
PROCESS_START = "process_start_time_seconds"
# What a /metrics page is served as: Prometheus text (0.0.4) or OpenMetrics text.
PROMETHEUS_TEXT = ("text/plain", "application/openmetrics-text")
# A sample's name past its family's: a counter's, a histogram's or a summary's.
SAMPLE_SUFFIXES = ("_total", "_sum", "_count", "_bucket")


@dataclass(frozen=True)
class Counter:
    """One counter sample of a store's /metrics: its sample name (with `_total` or `_sum`), and
    the labels a series must carry to count (the others are summed over)."""

    sample: str
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def family(self) -> str:
        for suffix in SAMPLE_SUFFIXES:
            if self.sample.endswith(suffix):
                return self.sample.removesuffix(suffix)
        return self.sample

    @property
    def key(self) -> str:
        """How a snapshot names it: `sample{label="value",...}`, labels sorted."""
        matched = ",".join(f'{name}="{value}"' for name, value in sorted(self.labels.items()))
        return f"{self.sample}{{{matched}}}"

    def matches(self, sample: str, labels: Mapping[str, str]) -> bool:
        return sample == self.sample and all(labels.get(name) == value for name, value in self.labels.items())


class StoreSnapshot(BaseModel):
    """One store's counters at one instant, or why they could not be read."""

    read_at: float
    # None: the store's /metrics has no process start time (a restart is then told by a drop).
    process_start: float | None = None
    # By Counter.key; a counter absent here had no series (nothing counted since the start).
    values: dict[str, float] = {}
    error: str | None = None


def parse(text: str, counters: Sequence[Counter]) -> tuple[dict[str, float], float | None]:
    """The counters' values (each summed over its matching series) and the process start time
    in a /metrics page. Raises ValueError when the text is not Prometheus text format."""
    values: dict[str, float] = {}
    process_start: float | None = None
    for family in text_string_to_metric_families(_families_of(text, [PROCESS_START, *(c.family for c in counters)])):
        for sample in family.samples:
            if sample.name == PROCESS_START:
                process_start = float(sample.value)
            for counter in counters:
                if counter.matches(sample.name, sample.labels):
                    values[counter.key] = values.get(counter.key, 0.0) + float(sample.value)
    return values, process_start


def _families_of(text: str, names: Sequence[str]) -> str:
    """The page's lines of the metric families named (their HELP, TYPE and samples), whole:
    Mimir's page holds thousands of series, and parsing all of it took about a second of the
    stack's core per reading, twice a round."""
    wanted = tuple(names)
    kept = [
        line for line in text.splitlines() if line.removeprefix("# HELP ").removeprefix("# TYPE ").startswith(wanted)
    ]
    return "\n".join(kept) + "\n"


def metrics_urls(settings: Settings) -> dict[str, str]:
    """Each store's /metrics, by the store's name: Tempo's and Loki's at their URLs' roots,
    the metrics store's at its root (Mimir's API is under /prometheus, its /metrics is not)."""
    return {
        "tempo": f"{str(settings.tempo_url).rstrip('/')}/metrics",
        "loki": f"{str(settings.loki_url).rstrip('/')}/metrics",
        "mimir": f"{str(settings.metrics_url).rstrip('/')}/metrics",
    }


class StoreCounterReader:
    """Reads the asked counters of every store at once, each store's failure kept as its own."""

    def __init__(
        self,
        urls: Mapping[str, str],
        counters: Mapping[str, Sequence[Counter]],
        *,
        timeout_s: float,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.urls = dict(urls)
        self.counters = counters
        self.timeout_s = timeout_s
        self.transport = transport

    @classmethod
    def from_settings(cls, settings: Settings, counters: Mapping[str, Sequence[Counter]]) -> StoreCounterReader:
        return cls(metrics_urls(settings), counters, timeout_s=settings.health_probe_timeout_s)

    async def snapshot(self) -> dict[str, StoreSnapshot]:
        """Every store's counters now, by store name. Never raises: a store that did not answer
        has its error, quoting no credential of its URL."""
        async with httpx.AsyncClient(timeout=self.timeout_s, transport=self.transport) as http:
            stores = list(self.counters)
            read = await asyncio.gather(*(self._read(http, store) for store in stores))
        return dict(zip(stores, read, strict=True))

    async def _read(self, http: httpx.AsyncClient, store: str) -> StoreSnapshot:
        url = self.urls[store]
        try:
            response = await http.get(url)
            response.raise_for_status()
            kind = response.headers.get("content-type", "")
            if not kind.startswith(PROMETHEUS_TEXT):
                raise ValueError(f"not Prometheus text (Content-Type {kind or 'missing'})")
            values, process_start = parse(response.text, self.counters[store])
        except (httpx.HTTPError, ValueError) as error:
            cause = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            return StoreSnapshot(read_at=time.time(), error=redact_urls(f"{redact_url(url)}: {cause}"))
        return StoreSnapshot(read_at=time.time(), process_start=process_start, values=values)
