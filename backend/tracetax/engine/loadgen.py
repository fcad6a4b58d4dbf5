"""Load generators behind one interface; oha is the default driver.

The open-model phase sends at a constant arrival rate with coordinated-omission correction:
each request's latency is measured from when it was *scheduled* to be sent, so a stalled
service is charged for the queue it causes (wrk2 / HdrHistogram style). oha writes every
request (scheduled start, end, status) to SQLite with `--db-url`; TraceTax builds the HDR
histogram and the per-second series from those rows itself, streaming them (oha_rows). The closed-loop phase runs with
no rate limit and reports the throughput the service sustains.

k6 (constant-arrival-rate executor) can be added as another `LoadDriver`.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tracetax.engine import histogram as hdr
from tracetax.engine import oha_rows
from tracetax.system import processes
from tracetax.system.paths import cache_dir

OHA_VERSION = "1.16.0"


class LoadError(RuntimeError):
    """The load generator failed; carries its output."""


@dataclass(frozen=True)
class Requests:
    """What every request of a phase is: one URL or a weighted mix of URLs (each request picks
    one at random with its weight), with the method, headers and body they all carry."""

    urls: tuple[tuple[str, int], ...]
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: str | None = None

    @classmethod
    def get(cls, url: str) -> Requests:
        return cls(((url, 1),))

    @property
    def first_url(self) -> str:
        return self.urls[0][0]


def oha_binary() -> Path:
    return cache_dir() / "tools" / f"oha-{OHA_VERSION}" / "bin" / "oha"


@dataclass
class OpenPhaseResult:
    requests: int
    errors: int
    duration_s: float
    achieved_rps: float
    histogram: str
    summary: dict[str, Any]
    # One point per second of the phase: (second, completed requests, p99 µs of that second)
    per_second: list[tuple[int, int, int]]
    status_codes: dict[str, int] = field(default_factory=dict)
    error_kinds: dict[str, int] = field(default_factory=dict)


@dataclass
class ClosedPhaseResult:
    requests: int
    errors: int
    duration_s: float
    rps: float
    connections: int
    # Closed-loop latencies (not corrected: a closed loop has no schedule to fall behind).
    p50_us: int | None = None
    p99_us: int | None = None


class RunningLoad(Protocol):
    @property
    def pid(self) -> int: ...
    def poll(self) -> int | None: ...
    def check(self) -> None: ...
    def kill(self) -> None: ...


class LoadDriver(Protocol):
    name: str

    def version(self) -> str: ...
    def start_open(
        self,
        requests: Requests,
        rate: float,
        duration_s: float,
        connections: int,
        workdir: Path,
        cpus: set[int] | None,
        schedule: Sequence[tuple[float, float]] | None = None,
    ) -> RunningLoad: ...
    def open_result(self, running: RunningLoad) -> OpenPhaseResult: ...
    def start_closed(
        self, requests: Requests, duration_s: float, connections: int, workdir: Path, cpus: set[int] | None
    ) -> RunningLoad: ...
    def closed_result(self, running: RunningLoad) -> ClosedPhaseResult: ...


@dataclass
class OhaRun:
    process: subprocess.Popen[bytes]
    # One JSON summary and (open model) one request database per step of the phase.
    outputs: list[Path]
    databases: list[Path]
    log: Path
    duration_s: float
    connections: int
    # Each database's start within the phase: oha times its requests from its own start.
    offsets: list[float] = field(default_factory=lambda: [0.0])

    @property
    def pid(self) -> int:
        return self.process.pid

    def poll(self) -> int | None:
        code = self.process.poll()
        if code is not None:
            processes.forget(self.process)
            discard_private_files(self.log.parent)  # oha has read them: gone with the phase
        return code

    def check(self) -> None:
        """Raise LoadError unless oha finished successfully."""
        code = self.process.poll()
        if code != 0:
            logs = [self.log, *(output.with_suffix(".log") for output in self.outputs)]
            text = "".join(log.read_text(errors="replace") for log in dict.fromkeys(logs) if log.exists())
            raise LoadError(f"oha exited with code {code}: {text[-2000:]}")

    def kill(self) -> None:
        processes.kill(self.process)
        discard_private_files(self.log.parent)


class OhaDriver:
    name = "oha"

    def __init__(self, binary: Path | None = None) -> None:
        self.binary = binary or oha_binary()

    def version(self) -> str:
        return OHA_VERSION

    def _oha(self, argv: list[str], output: Path) -> list[str]:
        if not self.binary.exists():
            raise LoadError(f"load generator oha is missing at {self.binary}; run `make tools` (or `make up`)")
        return [str(self.binary), *argv, "--no-tui", "--output-format", "json", "-o", str(output)]

    def _start(
        self,
        argv: list[str],
        workdir: Path,
        stem: str,
        cpus: set[int] | None,
        duration_s: float,
        connections: int,
        databases: list[Path],
    ) -> OhaRun:
        workdir.mkdir(parents=True, exist_ok=True)
        output = workdir / f"{stem}.json"
        log = workdir / f"{stem}.log"
        command = self._oha(argv, output)
        with log.open("wb") as out:
            process = processes.spawn(command, stdout=out, cpus=cpus, track="load generator")
        return OhaRun(process, [output], databases, log, duration_s, connections)

    def _open_argv(
        self, requests: Requests, rate: float, duration_s: float, connections: int, database: Path, workdir: Path
    ) -> list[str]:
        database.unlink(missing_ok=True)
        return [
            "-z",
            oha_duration(duration_s),
            "-q",
            f"{rate}",
            "--latency-correction",
            "-c",
            str(connections),
            "-w",
            "--db-url",
            str(database),
            *_request_options(requests, workdir),
        ]

    def start_open(
        self,
        requests: Requests,
        rate: float,
        duration_s: float,
        connections: int,
        workdir: Path,
        cpus: set[int] | None,
        schedule: Sequence[tuple[float, float]] | None = None,
    ) -> OhaRun:
        """The open-model phase: `rate` for `duration_s`, or the steps of `schedule` ((seconds,
        rate) each, in order), each started on time by tracetax.engine.rate_steps."""
        workdir.mkdir(parents=True, exist_ok=True)
        if not schedule or len(schedule) == 1:
            database = workdir / "open.sqlite"
            argv = self._open_argv(requests, rate, duration_s, connections, database, workdir)
            return self._start(argv, workdir, "open", cpus, duration_s, connections, [database])
        plan: list[dict[str, object]] = []
        outputs, databases, offset = [], [], 0.0
        for index, (seconds, step_rate) in enumerate(schedule):
            database, output = workdir / f"open-{index}.sqlite", workdir / f"open-{index}.json"
            argv = self._open_argv(requests, step_rate, seconds, connections, database, workdir)
            plan.append({"start_s": offset, "argv": self._oha(argv, output), "log": str(output.with_suffix(".log"))})
            outputs.append(output)
            databases.append(database)
            offset += seconds
        (workdir / "schedule.json").write_text(json.dumps(plan))
        log = workdir / "schedule.log"
        with log.open("wb") as out:
            process = processes.spawn(
                [sys.executable, "-m", "tracetax.engine.rate_steps", str(workdir / "schedule.json")],
                stdout=out,
                cpus=cpus,
                track="load generator",
            )
        starts = [float(str(step["start_s"])) for step in plan]
        return OhaRun(process, outputs, databases, log, offset, connections, starts)

    def open_result(self, running: RunningLoad) -> OpenPhaseResult:
        running = _oha_run(running)
        summaries = [_read_json(output) for output in running.outputs]
        for database in running.databases:
            if not database.exists():
                raise LoadError(f"oha wrote no request database {database.name}")
        # Streamed: a phase's rows are never held at once (tracetax.engine.oha_rows).
        try:
            rows = oha_rows.read(running.databases, running.offsets)
        except (sqlite3.Error, ValueError) as error:
            raise LoadError(f"cannot read oha's request databases: {error}") from error
        status_codes = _summed(summary.get("statusCodeDistribution") for summary in summaries)
        error_kinds = _summed(summary.get("errorDistribution") for summary in summaries)
        errors = rows.failed + sum(error_kinds.values())
        return OpenPhaseResult(
            requests=rows.answered,
            errors=errors,
            duration_s=running.duration_s,
            achieved_rps=rows.answered / running.duration_s if running.duration_s else 0.0,
            histogram=hdr.encode(rows.histogram),
            summary=hdr.summarize(rows.histogram).__dict__,
            per_second=rows.per_second,
            status_codes=status_codes,
            error_kinds=error_kinds,
        )

    def start_closed(
        self, requests: Requests, duration_s: float, connections: int, workdir: Path, cpus: set[int] | None
    ) -> OhaRun:
        argv = ["-z", oha_duration(duration_s), "-c", str(connections), "-w", *_request_options(requests, workdir)]
        return self._start(argv, workdir, "closed", cpus, duration_s, connections, [])

    def closed_result(self, running: RunningLoad) -> ClosedPhaseResult:
        running = _oha_run(running)
        summary = _read_json(running.outputs[0])
        codes = summary.get("statusCodeDistribution") or {}
        ok = sum(int(v) for k, v in codes.items() if 200 <= int(k) < 400)
        errors = sum(int(v) for k, v in codes.items() if not 200 <= int(k) < 400)
        errors += sum(int(v) for v in (summary.get("errorDistribution") or {}).values())
        elapsed = float((summary.get("summary") or {}).get("total") or running.duration_s)
        percentiles = summary.get("latencyPercentiles") or {}
        return ClosedPhaseResult(
            ok,
            errors,
            elapsed,
            ok / elapsed if elapsed else 0.0,
            running.connections,
            p50_us=_us(percentiles.get("p50")),
            p99_us=_us(percentiles.get("p99")),
        )


def oha_duration(seconds: float) -> str:
    """A duration oha accepts: whole milliseconds (it refused "7.300000000000001s")."""
    return f"{round(seconds * 1000)}ms"


def _summed(distributions: Iterable[Any]) -> dict[str, int]:
    """Status codes or error kinds of several oha runs, added up."""
    total: Counter[str] = Counter()
    for distribution in distributions:
        total.update({str(key): int(value) for key, value in (distribution or {}).items()})
    return dict(total)


def _request_options(requests: Requests, workdir: Path) -> list[str]:
    """oha's options for the requests, ending with the target: the URL, or a file of URLs from
    which oha picks one at random per request (each written as often as its weight)."""
    workdir.mkdir(parents=True, exist_ok=True)
    options = ["-m", requests.method]
    for name, value in requests.headers:
        options += ["-H", f"{name}: {value}"]
    private: Path | None = None
    if requests.body is not None:
        private = _private_directory(workdir)
        options += ["-D", str(_private_file(private, "body", requests.body))]
    if len(requests.urls) == 1:
        return [*options, requests.first_url]
    divisor = math.gcd(*(weight for _, weight in requests.urls))
    lines = [url for url, weight in requests.urls for _ in range(weight // divisor)]
    urls = _private_file(private or _private_directory(workdir), "urls", "\n".join(lines) + "\n")
    return [*options, "--urls-from-file", str(urls)]


# Files of a spec's content (the body, the URL list) are written where no path a spec (or
# anything else that knows the work dir's layout) can name them: a directory of random name,
# mode 0700, holding files of random name, mode 0600. A known path would let one spec's body
# become another program's config (README, "Security"). Removed once the phase's oha exits.
PRIVATE_PREFIX = ".private-"


def _private_directory(workdir: Path) -> Path:
    return Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX, dir=workdir))


def _private_file(directory: Path, stem: str, content: str) -> Path:
    descriptor, name = tempfile.mkstemp(prefix=f"{stem}-", dir=directory)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(content)
    return Path(name)


def discard_private_files(workdir: Path) -> None:
    """Remove the private directories of `workdir`'s phase. Phases of a round run one after
    another, so those present are all this phase's."""
    for directory in workdir.glob(f"{PRIVATE_PREFIX}*"):
        shutil.rmtree(directory, ignore_errors=True)


def _oha_run(running: RunningLoad) -> OhaRun:
    if not isinstance(running, OhaRun):
        raise TypeError(f"the oha driver cannot read a {type(running).__name__}")
    return running


def _us(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1_000_000)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise LoadError(f"cannot read oha's output {path}: {error}") from error
    return data
