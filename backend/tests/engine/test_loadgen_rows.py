"""oha's request rows aggregated as a stream (issue 21, item 4): the same histogram and per-second
series as reading every row into lists, in memory bounded by the histogram and the seconds."""

from __future__ import annotations

import json
import random
import sqlite3
import tracemalloc
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from tracetax.engine import histogram as hdr
from tracetax.engine import oha_rows
from tracetax.engine.loadgen import OhaDriver, OhaRun

# oha 1.16's table (src/db.rs), as `--db-url` writes it.
OHA_TABLE = """CREATE TABLE oha (
    url TEXT NOT NULL,
    start REAL NOT NULL,
    start_latency_correction REAL,
    end REAL NOT NULL,
    duration REAL NOT NULL,
    status INTEGER NOT NULL,
    len_bytes INTEGER NOT NULL,
    run INTEGER NOT NULL
)"""


def write_oha_database(path: Path, rows: Iterator[tuple[float, float | None, float, int]]) -> None:
    """(start, start_latency_correction, end, status) rows as oha stores them."""
    with sqlite3.connect(path) as db:
        db.execute(OHA_TABLE)
        db.executemany(
            "INSERT INTO oha VALUES ('http://127.0.0.1/work', ?, ?, ?, ? - ?, ?, 2, 0)",
            ((start, corrected, end, end, start, status) for start, corrected, end, status in rows),
        )
    # `with` commits; the connection closes when collected.


def generated_rows(rng: random.Random, count: int, seconds: float) -> Iterator[tuple[float, float | None, float, int]]:
    """Requests spread over `seconds`, a lognormal latency with a slow tail, some scheduled
    earlier than sent (latency correction), some answered with an error status."""
    for _ in range(count):
        scheduled = rng.uniform(0, seconds)
        sent_late = rng.random() < 0.3
        start = scheduled + (rng.expovariate(200) if sent_late else 0.0)
        latency = rng.lognormvariate(-6.5, 0.8) * (20 if rng.random() < 0.005 else 1)
        status = rng.choice((200, 200, 200, 200, 302, 404, 500)) if rng.random() < 0.1 else 200
        yield start, scheduled if sent_late else None, start + latency, status


def reference(databases: Sequence[Path], offsets: Sequence[float]) -> dict[str, Any]:
    """The figures as open_result computed them before streaming: every row in lists."""
    rows = []
    for database, offset in zip(databases, offsets, strict=False):
        with sqlite3.connect(database) as db:
            query = "SELECT COALESCE(start_latency_correction, start) + ?, end + ?, status FROM oha"
            rows += db.execute(query, (offset, offset)).fetchall()
    rows.sort(key=lambda row: row[1])
    ok = [(start, end) for start, end, status in rows if 200 <= status < 400]
    histogram = hdr.from_latencies_s([end - start for start, end in ok])
    buckets: dict[int, list[float]] = {}
    for start, end in ok:
        buckets.setdefault(int(end), []).append(end - start)
    series = []
    for second in sorted(buckets):
        values = sorted(buckets[second])
        p99 = values[min(len(values) - 1, int(0.99 * len(values)))]
        series.append((second, len(values), int(p99 * 1_000_000)))
    return {
        "histogram": hdr.encode(histogram),
        "summary": hdr.summarize(histogram),
        "per_second": series,
        "requests": len(ok),
        "failed": len(rows) - len(ok),
    }


@pytest.fixture
def stepped_phase(tmp_path: Path) -> tuple[list[Path], list[float]]:
    """A burst's three steps, each oha's own database timed from its own start; the steps'
    last requests end after the next step began."""
    rng = random.Random(21)
    steps = [(0.0, 3.0, 3_000), (3.0, 2.0, 10_000), (5.0, 4.0, 4_000)]
    databases = []
    for index, (_, seconds, count) in enumerate(steps):
        database = tmp_path / f"open-{index}.sqlite"
        write_oha_database(database, generated_rows(rng, count, seconds))
        databases.append(database)
    return databases, [offset for offset, _, _ in steps]


def test_the_streamed_figures_are_those_of_every_row_in_lists(stepped_phase: tuple[list[Path], list[float]]) -> None:
    databases, offsets = stepped_phase
    expected = reference(databases, offsets)
    streamed = oha_rows.read(databases, offsets)
    assert hdr.encode(streamed.histogram) == expected["histogram"]
    assert hdr.summarize(streamed.histogram) == expected["summary"]
    assert streamed.per_second == expected["per_second"]
    assert (streamed.answered, streamed.failed) == (expected["requests"], expected["failed"])
    assert streamed.failed > 0 and len(streamed.per_second) >= 9  # the input has both


def test_open_result_reports_the_streamed_figures(
    tmp_path: Path, stepped_phase: tuple[list[Path], list[float]]
) -> None:
    databases, offsets = stepped_phase
    outputs = []
    for index in range(len(databases)):
        output = tmp_path / f"open-{index}.json"
        output.write_text(json.dumps({"statusCodeDistribution": {"200": 1}, "errorDistribution": {"timeout": 2}}))
        outputs.append(output)
    running = OhaRun(cast(Any, None), outputs, databases, tmp_path / "schedule.log", 9.0, 16, offsets)
    result = OhaDriver(tmp_path / "oha").open_result(running)
    expected = reference(databases, offsets)
    assert result.histogram == expected["histogram"]
    assert result.per_second == expected["per_second"]
    assert result.requests == expected["requests"]
    assert result.errors == expected["failed"] + 3 * 2  # the rows' error statuses and oha's own errors
    assert result.achieved_rps == expected["requests"] / 9.0


def sorted_rows(seconds: int, per_second: int) -> Iterator[tuple[int, float]]:
    """(second, latency) in the order SQLite hands them over, made on the fly."""
    for second in range(seconds):
        for rank in range(per_second):
            yield second, 0.0005 + rank * 1e-7


def test_a_million_rows_pass_in_bounded_memory() -> None:
    seconds, per_second = 50, 20_000  # 20,000 req/s for 50 s
    counts = dict.fromkeys(range(seconds), per_second)
    tracemalloc.start()
    try:
        histogram, series = oha_rows.aggregate(sorted_rows(seconds, per_second), counts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert histogram.get_total_count() == seconds * per_second
    assert len(series) == seconds and series[0] == (0, per_second, int((0.0005 + 19_800 * 1e-7) * 1_000_000))
    # A list of the rows alone would be over 75 MB; the histogram and the series are a few.
    assert peak < 8 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_reading_a_database_holds_no_list_of_its_rows(tmp_path: Path) -> None:
    database = tmp_path / "open.sqlite"
    write_oha_database(database, generated_rows(random.Random(5), 200_000, 20.0))
    tracemalloc.start()
    try:
        streamed = oha_rows.read([database], [0.0])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert streamed.answered + streamed.failed == 200_000
    # 200,000 rows as tuples of floats would be about 25 MB.
    assert peak < 6 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_rows_out_of_order_are_refused_not_misread() -> None:
    with pytest.raises(ValueError, match="out of order"):
        oha_rows.aggregate(iter([(1, 0.001), (0, 0.001)]), {0: 1, 1: 1})
    with pytest.raises(ValueError, match="not ascending"):
        oha_rows.aggregate(iter([(0, 0.002), (0, 0.001)]), {0: 2})
    with pytest.raises(ValueError, match="its count said 2"):
        oha_rows.aggregate(iter([(0, 0.001)]), {0: 2})


def test_a_phase_without_answers_has_an_empty_histogram(tmp_path: Path) -> None:
    database = tmp_path / "open.sqlite"
    write_oha_database(database, iter([(0.1, None, 0.2, 503), (0.3, None, 0.4, 503)]))
    streamed = oha_rows.read([database], [0.0])
    assert (streamed.answered, streamed.failed, streamed.per_second) == (0, 2, [])
    assert streamed.histogram.get_total_count() == 0
