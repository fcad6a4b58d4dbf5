"""A phase's figures from oha's request databases, without holding their rows.

oha writes one row per request (scheduled start, end, status) to SQLite. A phase at 20,000 req/s
for 600 s is 12 million rows: read into Python lists they took about 3.5 GB. Here SQLite counts
each second's answered requests and hands the rows over one by one, ordered by second and then
latency; each is recorded in the HDR histogram as it passes, and a second's p99 is the row at
its rank, known from the count. Python holds the histogram and one figure per second, never
the rows. SQLite sorts on disk past its page cache (its temporary files: TMPDIR, /tmp).

The figures are those of reading every row: the same histogram, and per second the count and
the latency at rank min(n - 1, int(0.99 n)) of its sorted latencies.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path

from hdrh.histogram import HdrHistogram

from tracetax.engine import histogram as hdr

# Answered: a 2xx or 3xx status. Anything else is counted as an error and measured in no figure.
ANSWERED = "status BETWEEN 200 AND 399"
# The phase's second a request ended in and its latency from its scheduled start (coordinated-
# omission corrected); each database's times are from its own start, `offset` into the phase.
SECOND = "CAST(end + :offset AS INTEGER)"
LATENCY = "(end + :offset) - (COALESCE(start_latency_correction, start) + :offset)"
COUNTS = f"SELECT {SECOND} AS second, COUNT(*) FROM oha WHERE {ANSWERED} GROUP BY second"  # noqa: S608 - constants
FAILED = f"SELECT COUNT(*) FROM oha WHERE NOT ({ANSWERED})"  # noqa: S608 - constants
ROWS = f"SELECT {SECOND} AS second, {LATENCY} AS latency FROM oha WHERE {ANSWERED} ORDER BY second, latency"  # noqa: S608
P99 = 0.99


@dataclass
class PhaseRows:
    """What a phase's rows add up to."""

    histogram: HdrHistogram
    # (second, answered requests, p99 µs of that second), in order of the second.
    per_second: list[tuple[int, int, int]]
    answered: int
    # Rows whose status is not 2xx or 3xx.
    failed: int


def read(databases: Sequence[Path], offsets: Sequence[float]) -> PhaseRows:
    """The phase's figures from its databases, each `offset` seconds into the phase."""
    with ExitStack() as stack:
        connections = [
            (stack.enter_context(closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True))), offset)
            for database, offset in zip(databases, offsets, strict=False)
        ]
        counts: Counter[int] = Counter()
        failed = 0
        for connection, offset in connections:
            counts.update(dict(connection.execute(COUNTS, {"offset": offset})))
            failed += int(connection.execute(FAILED).fetchone()[0])
        # A step's requests may end after the next step began: the streams are merged in order.
        rows = heapq.merge(*(_rows(connection, offset) for connection, offset in connections))
        histogram, per_second = aggregate(rows, counts)
    return PhaseRows(histogram, per_second, sum(counts.values()), failed)


def _rows(connection: sqlite3.Connection, offset: float) -> Iterator[tuple[int, float]]:
    yield from connection.execute(ROWS, {"offset": offset})


def aggregate(
    rows: Iterable[tuple[int, float]], counts: Mapping[int, int]
) -> tuple[HdrHistogram, list[tuple[int, int, int]]]:
    """The histogram and per-second series of answered requests given as (second, latency s),
    ordered by second and then latency, with each second's count known beforehand. Holds one
    figure per second; raises ValueError for rows out of order or counts that do not match."""
    histogram = hdr.new_histogram()
    recorder = _RunLengthRecorder(histogram)
    per_second: list[tuple[int, int, int]] = []
    second: int | None = None
    seen = rank = 0
    previous = p99 = 0.0
    for row_second, latency in rows:
        recorder.record(latency)
        if row_second != second:
            if second is not None:
                per_second.append(_closed(second, seen, counts, p99))
                if row_second < second:
                    raise ValueError(f"rows out of order: second {row_second} after {second}")
            second, seen = row_second, 0
            count = counts.get(second, 0)
            rank = min(count - 1, int(P99 * count))
        elif latency < previous:
            raise ValueError(f"rows out of order: latencies of second {second} not ascending")
        if seen == rank:
            p99 = latency
        seen += 1
        previous = latency
    if second is not None:
        per_second.append(_closed(second, seen, counts, p99))
    recorder.flush()
    return histogram, per_second


class _RunLengthRecorder:
    """Records equal microsecond values once with their count: the same histogram, and within a
    second the sorted latencies repeat each value many times (recording is pure Python)."""

    def __init__(self, histogram: HdrHistogram) -> None:
        self.histogram = histogram
        self.value_us = 0
        self.count = 0

    def record(self, latency_s: float) -> None:
        value_us = hdr.clamped_us(latency_s)
        if value_us != self.value_us:
            self.flush()
            self.value_us = value_us
        self.count += 1

    def flush(self) -> None:
        if self.count:
            self.histogram.record_value(self.value_us, self.count)
        self.count = 0


def _closed(second: int, seen: int, counts: Mapping[int, int], p99: float) -> tuple[int, int, int]:
    if seen != counts.get(second, 0):
        raise ValueError(f"second {second} has {seen} rows, its count said {counts.get(second, 0)}")
    return second, seen, int(p99 * 1_000_000)
