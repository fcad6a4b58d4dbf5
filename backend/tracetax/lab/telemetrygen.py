"""telemetrygen, the Collector project's own OTLP load generator, as the lab runs it.

What telemetrygen v0.160.0 does, read from its source (pkg/traces/worker.go, traces.go) and
checked against a real Collector here:

- `--rate` is spans per second *per worker*, not traces: each worker waits on a token bucket
  (golang.org/x/time/rate, burst 1) before the root span and before every child span. The lab's
  span rate is split evenly over the workers and passed as a float, unrounded.
- A trace is a root span plus `--child-spans` children, but telemetrygen makes at least one
  child (max(1, child-spans)): 2 spans per trace at least. All spans carry one resource, so
  one service per trace.
- `--duration` stops each worker at a trace boundary (the trace in progress is finished), then
  every worker logs `traces generated {"worker": N, "traces": M}`: whole traces, its only count.
- A failed export is logged by Go's standard logger as `YYYY/MM/DD hh:mm:ss traces export: ...`,
  one line per failed batch (how many spans it held is not said); the exit code stays 0.
- The SDK's batch span processor sends `--batch-size` spans per export, one export at a time,
  from a queue of OTEL_BSP_MAX_QUEUE_SIZE spans (default 2048). When the queue is full it
  drops spans *silently* (counted at debug level only, never logged here). So the generated
  count is what was created, not what was delivered; only the Collector's own accepted/refused
  counters say what arrived. The queue is sized here to hold a second of load, which kept the
  counts exact in every run whose core was not full; a Collector that holds exports back for
  longer than that (slow answers, retried refusals) still makes it drop.
- `--size` adds whole MiBs to the root span only, so `attribute_bytes` is sent instead as one
  `--telemetry-attributes` string, which telemetrygen sets on every span.

Measured here (2 cores; telemetrygen pinned to one, the Collector with the debug exporter on the
other; 5 s runs): a throttled worker's waits cannot be shorter than ~0.5 ms, so one worker tops
out near 1,800 spans/s whatever `--rate` asks (88% of 2,000, 35% of 5,000), and delivers
97-99% of 1,000 and 99-100% of 250. Hence at most SPANS_PER_WORKER per worker by default:
20k spans/s takes 80 workers (99.8%, 0.3 of a core), 50k takes 200 (98.8%, 0.6 of a core),
70k 98.3% (0.7); at 100k the core is full (88%, saturated) and the full queue dropped 6% of
the spans unlogged. The Collector's otelcol_receiver_accepted_spans equalled the generated
spans exactly in every unsaturated run, from 1,000 spans/s (2 and 5 spans per trace) to 70k,
with and without a 1-4 KiB attribute.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tracetax.native_stack.components import TELEMETRYGEN_BUILD, binary_path
from tracetax.system import processes

# A worker throttled to this many spans/s delivers 99%+ of it; above it, timer lateness bites.
SPANS_PER_WORKER = 250.0
# Spans per OTLP request: the SDK's own default export batch (telemetrygen's 100 costs the
# single export goroutine five times the requests, and it fell behind first).
BATCH_SIZE = 512
# The batch processor's queue holds this many seconds of load, within these bounds (spans).
QUEUE_SECONDS = 1.0
QUEUE_MIN, QUEUE_MAX = 2048, 262_144
# The span attribute that carries `attribute_bytes`.
PAYLOAD_ATTRIBUTE = "tracetax.payload"
# One argv string may not exceed 128 KiB (Linux MAX_ARG_STRLEN); stay well inside it.
MAX_ATTRIBUTE_BYTES = 65_536
# Below this share of the target rate the generator, not the Collector, fell short.
SATURATION_SHARE = 0.95

_TIMESTAMP = r"(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)"
_GENERATED = re.compile(_TIMESTAMP + r"\tINFO\t\S+\ttraces generated\t(?P<fields>\{.*\})\s*$", re.MULTILINE)
# Logged once, just before the workers start, whether throttled or not.
_STARTED = re.compile(_TIMESTAMP + r"\tINFO\t\S+\tgeneration of traces (?:is limited|isn't being throttled)")
_EXPORT_FAILED = re.compile(r"^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2} traces export: ", re.MULTILINE)


class GeneratorError(RuntimeError):
    """telemetrygen could not start, failed, or left no count; the message says which and why."""


@dataclass(frozen=True)
class TraceShape:
    """What every generated trace looks like.

    spans_per_trace: the root span plus its children; at least 2, as telemetrygen always makes
        one child. All children hang off the root (a trace is one level deep).
    attribute_bytes: size of one extra string attribute on every span (0: none).
    services_per_trace: only 1 is possible: telemetrygen sends every span under one resource.
    """

    spans_per_trace: int
    attribute_bytes: int
    services_per_trace: int = 1

    @property
    def child_spans(self) -> int:
        return self.spans_per_trace - 1


def telemetrygen_binary() -> Path:
    return binary_path(TELEMETRYGEN_BUILD)


def validate(shape: TraceShape) -> None:
    """Raise ValueError for a shape telemetrygen cannot generate exactly."""
    if shape.spans_per_trace < 2:
        raise ValueError(
            f"spans_per_trace={shape.spans_per_trace}: telemetrygen always makes a root and at least one child (>= 2)"
        )
    if not 0 <= shape.attribute_bytes <= MAX_ATTRIBUTE_BYTES:
        raise ValueError(f"attribute_bytes={shape.attribute_bytes}: must be 0..{MAX_ATTRIBUTE_BYTES}")
    if shape.services_per_trace != 1:
        raise ValueError(f"services_per_trace={shape.services_per_trace}: telemetrygen sends one service only")


def workers_for(spans_per_s: float) -> int:
    """Enough workers that none is asked for more than SPANS_PER_WORKER spans/s."""
    return max(1, math.ceil(spans_per_s / SPANS_PER_WORKER))


def queue_size(spans_per_s: float) -> int:
    return min(QUEUE_MAX, max(QUEUE_MIN, math.ceil(spans_per_s * QUEUE_SECONDS)))


def _attribute(key: str, value: str) -> str:
    # telemetrygen splits at the first '=' and takes a value wrapped in double quotes as a
    # string, verbatim between the outer quotes (inner quotes and commas included).
    if not key or "=" in key:
        raise ValueError(f"attribute key {key!r}: must be non-empty and contain no '='")
    return f'{key}="{value}"'


def _go_duration(seconds: float) -> str:
    # Whole milliseconds: Go's ParseDuration takes "1500ms" but not an exponent.
    millis = round(seconds * 1000)
    if millis < 1:
        raise ValueError(f"duration_s={seconds}: must be at least 1 ms")
    return f"{millis}ms"


def argv(
    *,
    endpoint: str,
    spans_per_s: float,
    duration_s: float,
    shape: TraceShape,
    resource_attributes: Mapping[str, str],
    workers: int | None = None,
) -> list[str]:
    """telemetrygen's command line, binary first, for `spans_per_s` spans/s over OTLP gRPC
    without TLS to `endpoint` (host:port). `workers` defaults to `workers_for(spans_per_s)`.
    A `service.name` in `resource_attributes` overrides telemetrygen's default service name."""
    validate(shape)
    if not spans_per_s > 0 or math.isinf(spans_per_s):
        raise ValueError(f"spans_per_s={spans_per_s}: must be a positive number (0 would mean unthrottled)")
    if "://" in endpoint or ":" not in endpoint:
        raise ValueError(f"endpoint {endpoint!r}: expected host:port (OTLP gRPC, no scheme)")
    count = workers if workers is not None else workers_for(spans_per_s)
    if count < 1:
        raise ValueError(f"workers={count}: must be at least 1")
    command = [
        str(telemetrygen_binary()),
        "traces",
        f"--otlp-endpoint={endpoint}",
        "--otlp-insecure",
        f"--workers={count}",
        # Spans/s per worker; repr() is the shortest string that parses back to the same float.
        f"--rate={spans_per_s / count!r}",
        f"--duration={_go_duration(duration_s)}",
        f"--child-spans={shape.child_spans}",
        f"--batch-size={BATCH_SIZE}",
    ]
    for key, value in resource_attributes.items():
        command.append(f"--otlp-attributes={_attribute(key, value)}")
    if shape.attribute_bytes:
        command.append(f"--telemetry-attributes={_attribute(PAYLOAD_ATTRIBUTE, 'x' * shape.attribute_bytes)}")
    return command


def environment(spans_per_s: float, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The generator's environment: no inherited OTEL_* (an OTEL_EXPORTER_OTLP_COMPRESSION or
    OTEL_BSP_* of the caller's would silently change the load), and a queue for a second of load."""
    source = os.environ if base is None else base
    env = {key: value for key, value in source.items() if not key.startswith("OTEL_")}
    env["OTEL_BSP_MAX_QUEUE_SIZE"] = str(queue_size(spans_per_s))
    return env


def log_tail(path: Path, lines: int = 12) -> str:
    """The last log lines worth reading: gRPC's multi-line connection chatter left out."""
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        return f"(no log at {path}: {error})"
    kept = [line for line in text.splitlines() if line[:1].isdigit() or line.startswith("Error")]
    kept = [line for line in kept if '"grpc_log": true' not in line] or text.splitlines()
    return "\n".join(kept[-lines:])


class RunningGenerator:
    """A telemetrygen process started by `start`; `result` reads its count once it has exited."""

    def __init__(
        self,
        process: subprocess.Popen[bytes],
        *,
        log_path: Path,
        shape: TraceShape,
        workers: int,
        target_spans_per_s: float,
        started_s: float,
    ) -> None:
        self._process = process
        self.log_path = log_path
        self.shape = shape
        self.workers = workers
        self.target_spans_per_s = target_spans_per_s
        self.started_s = started_s
        self.exited_s: float | None = None
        self._killed = False
        # A thread reaps it the moment it exits, so the measured duration does not depend on
        # how often the caller polls.
        self._watcher = threading.Thread(target=self._watch, name=f"telemetrygen-{process.pid}", daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        self._process.wait()
        self.exited_s = time.monotonic()
        processes.forget(self._process)

    @property
    def pid(self) -> int:
        return self._process.pid

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self, timeout_s: float) -> int | None:
        """Wait up to `timeout_s` for it to exit; its exit code, or None while it runs."""
        self._watcher.join(timeout_s)
        return self._process.returncode

    def check(self) -> None:
        """Raise GeneratorError if it exited with an error (not if `kill` stopped it)."""
        code = self.poll()
        if code in (None, 0) or self._killed:
            return
        raise GeneratorError(f"telemetrygen exited with code {code}; log: {self.log_path}\n{log_tail(self.log_path)}")

    def kill(self) -> None:
        """SIGKILL its process group and reap it; harmless once it has exited."""
        if self._process.poll() is None:
            self._killed = True
        processes.kill(self._process)
        self._watcher.join()


def start(
    *,
    endpoint: str,
    spans_per_s: float,
    duration_s: float,
    shape: TraceShape,
    resource_attributes: Mapping[str, str],
    workers: int | None = None,
    cpus: set[int] | None,
    log_path: Path,
) -> RunningGenerator:
    """Start telemetrygen (see `argv`), pinned to `cpus`, its output in `log_path`.
    GeneratorError when it is not built or the load is one it cannot generate."""
    binary = telemetrygen_binary()
    if not binary.exists():
        raise GeneratorError(f"telemetrygen is not built ({binary}): run `make stack-build` first")
    count = workers if workers is not None else workers_for(spans_per_s)
    try:
        command = argv(
            endpoint=endpoint,
            spans_per_s=spans_per_s,
            duration_s=duration_s,
            shape=shape,
            resource_attributes=resource_attributes,
            workers=count,
        )
    except ValueError as error:
        # One error type for everything that keeps a round from running its load.
        raise GeneratorError(f"telemetrygen cannot run this load: {error}") from error
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        started_s = time.monotonic()
        process = processes.spawn(command, env=environment(spans_per_s), stdout=log, cpus=cpus, track="load generator")
    return RunningGenerator(
        process,
        log_path=log_path,
        shape=shape,
        workers=count,
        target_spans_per_s=spans_per_s,
        started_s=started_s,
    )


# -- its count ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GeneratorLog:
    """What a telemetrygen log says: whole traces per worker, failed exports, and when
    generation started and the last worker stopped (its own clock, millisecond resolution)."""

    traces_per_worker: dict[int, int]
    export_errors: int
    started_at: datetime | None
    finished_at: datetime | None

    @property
    def generation_s(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


def parse_log(text: str) -> GeneratorLog:
    traces: dict[int, int] = {}
    finished_at: datetime | None = None
    for match in _GENERATED.finditer(text):
        fields = json.loads(match["fields"])
        traces[int(fields["worker"])] = int(fields["traces"])
        moment = datetime.fromisoformat(match["ts"])
        finished_at = moment if finished_at is None else max(finished_at, moment)
    started = _STARTED.search(text)
    return GeneratorLog(
        traces_per_worker=traces,
        export_errors=len(_EXPORT_FAILED.findall(text)),
        started_at=datetime.fromisoformat(started["ts"]) if started else None,
        finished_at=finished_at,
    )


@dataclass
class GeneratorResult:
    """What telemetrygen generated in one run (plain values: stored as JSON as they are).

    spans: traces x spans_per_trace: created, not necessarily delivered (its batch queue drops
        silently when full; the Collector's counters say what arrived).
    export_errors: failed export calls it logged, each a batch of up to BATCH_SIZE spans.
    duration_s: wall time from start to exit, including connecting and the final flush.
    generation_s: from the first worker's start to the last one's stop, by its log; the
        achieved rate is over this window (duration_s when the log has no timestamps).
    saturated: achieved below SATURATION_SHARE of the target: a rate telemetrygen could not
        deliver (too few workers, or no CPU left), never the Collector's doing.
    """

    traces: int
    spans: int
    export_errors: int
    duration_s: float
    generation_s: float
    workers: int
    target_spans_per_s: float
    achieved_spans_per_s: float
    saturated: bool


def summarize(
    log: GeneratorLog, *, shape: TraceShape, workers: int, target_spans_per_s: float, duration_s: float
) -> GeneratorResult:
    """The result of a finished run from its parsed log; GeneratorError when a worker's count
    is missing (killed or crashed: its total would be short)."""
    missing = sorted(set(range(workers)) - set(log.traces_per_worker))
    if missing:
        raise GeneratorError(
            f"telemetrygen logged no 'traces generated' count for worker(s) {missing} of {workers}: "
            "it did not finish its run"
        )
    traces = sum(log.traces_per_worker.values())
    spans = traces * shape.spans_per_trace
    window = log.generation_s if log.generation_s and log.generation_s > 0 else duration_s
    achieved = spans / window if window > 0 else 0.0
    return GeneratorResult(
        traces=traces,
        spans=spans,
        export_errors=log.export_errors,
        duration_s=round(duration_s, 3),
        generation_s=round(window, 3),
        workers=workers,
        target_spans_per_s=target_spans_per_s,
        achieved_spans_per_s=round(achieved, 1),
        saturated=achieved < SATURATION_SHARE * target_spans_per_s,
    )


def result(running: RunningGenerator) -> GeneratorResult:
    """The count of a generator that has exited; GeneratorError if it runs, failed or left no count."""
    if running.poll() is None:
        raise GeneratorError(f"telemetrygen (pid {running.pid}) is still running: no count yet")
    running.check()
    # The watcher notes the exit time just after the reap; give it that moment.
    running.wait(5.0)
    exited_s = running.exited_s if running.exited_s is not None else time.monotonic()
    try:
        text = running.log_path.read_text(errors="replace")
    except OSError as error:
        raise GeneratorError(f"telemetrygen's log {running.log_path} cannot be read: {error}") from error
    try:
        return summarize(
            parse_log(text),
            shape=running.shape,
            workers=running.workers,
            target_spans_per_s=running.target_spans_per_s,
            duration_s=exited_s - running.started_s,
        )
    except GeneratorError as error:
        raise GeneratorError(f"{error}; log: {running.log_path}\n{log_tail(running.log_path)}") from error
