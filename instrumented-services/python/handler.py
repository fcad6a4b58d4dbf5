"""The work handler: GET /work and GET /healthz, a Starlette app.

This module imports no OpenTelemetry code. The telemetry calls go through a small `Telemetry`
object handed in by the entry point: `NoTelemetry` below in `none` mode, `otel.OTelTelemetry`
(which uses the global OTel API providers) in `simple`/`batch` mode. So the handler does exactly
the same work in every mode, and `none` never loads an OTel module.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import time
from collections.abc import Iterator
from typing import Protocol

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from config import LANGUAGE

MAX_ITERS = 10_000_000
MAX_SPANS = 1000
_DIGITS = re.compile(r"[0-9]{1,12}")


class Telemetry(Protocol):
    def child_span(self, index: int, iters: int) -> contextlib.AbstractContextManager[None]:
        """A child span of the current (SERVER) span: even index work.compute INTERNAL, odd work.fetch CLIENT."""
        ...

    def request_done(self, iters: int, spans: int, duration_s: float) -> None:
        """One log record, the request counter and the duration histogram."""
        ...


class NoTelemetry:
    """`none` mode: no spans, no logs, no metrics (and no OTel import)."""

    def child_span(self, index: int, iters: int) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def request_done(self, iters: int, spans: int, duration_s: float) -> None:
        pass


def compute(start: int, end: int, arr: list[int]) -> int:
    """Deterministic CPU work: acc += i ^ arr[i % 64] for i in [start, end)."""
    acc = 0
    for i in range(start, end):
        acc += i ^ arr[i & 63]
    return acc


def chunks(iters: int, parts: int) -> Iterator[tuple[int, int]]:
    """Split [0, iters) into `parts` contiguous ranges whose sizes differ by at most one."""
    base, extra = divmod(iters, parts)
    start = 0
    for p in range(parts):
        end = start + base + (1 if p < extra else 0)
        yield start, end
        start = end


def _param(request: Request, name: str, default: int, low: int, high: int) -> int | JSONResponse:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        return JSONResponse({"error": f"{name} must be an integer in [{low}, {high}], got {raw!r}"}, status_code=400)
    return int(raw)


def busy_wait(ns: int) -> None:
    """Spin until the calling thread has run `ns` nanoseconds of CPU time (its own CPU clock,
    TRACETAX_INJECT_BUSY_US): a known cost of exactly that CPU time however often the spin is
    preempted (on the wall clock a preempted spin would end having used less). A request's
    latency grows by at least that: by that alone on an idle core. No sleep."""
    if ns <= 0:
        return
    deadline = time.thread_time_ns() + ns
    while time.thread_time_ns() < deadline:
        pass


def burn_in_background(burn_us: int, period_ms: int) -> threading.Event | None:
    """Start a daemon thread that spins `burn_us` µs of its CPU time (busy_wait) every `period_ms`
    (TRACETAX_INJECT_BACKGROUND_US): a known cost off the request path, which shows in the
    process's CPU. It still takes the GIL while it spins (Python threads do), so the event loop
    may wait behind a burst, as it would behind any background thread of the app's. Returns the
    event that stops it (None: nothing to burn)."""
    if burn_us <= 0:
        return None
    stop = threading.Event()

    def loop() -> None:
        # Fixed rate: a burst starts a period after the previous one started (so the CPU is
        # burn/period exactly). Event.wait sleeps without the GIL; the burst is all the thread does.
        next_at = time.monotonic() + period_ms / 1000
        while not stop.wait(max(0.0, next_at - time.monotonic())):
            busy_wait(burn_us * 1000)
            next_at += period_ms / 1000

    threading.Thread(target=loop, name="tracetax-background-inject", daemon=True).start()
    return stop


def otel_loaded() -> bool:
    return any(name == "opentelemetry" or name.startswith("opentelemetry.") for name in sys.modules)


def build_app(telemetry: Telemetry, processor: str, inject_busy_us: int = 0) -> Starlette:
    busy_ns = inject_busy_us * 1000

    async def work(request: Request) -> JSONResponse:
        started = time.perf_counter()
        iters = _param(request, "iters", 1000, 0, MAX_ITERS)
        if isinstance(iters, JSONResponse):
            return iters
        spans = _param(request, "spans", 1, 1, MAX_SPANS)
        if isinstance(spans, JSONResponse):
            return spans

        busy_wait(busy_ns)
        arr = list(range(64))  # the small per-request allocation
        total = 0
        if spans == 1:
            total = compute(0, iters, arr)
        else:
            for index, (start, end) in enumerate(chunks(iters, spans - 1)):
                with telemetry.child_span(index, end - start):
                    total += compute(start, end, arr)

        telemetry.request_done(iters, spans, time.perf_counter() - started)
        return JSONResponse({"iters": iters, "spans": spans, "sum": total})

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse(
            {"status": "ok", "language": LANGUAGE, "processor": processor, "otel_loaded": otel_loaded()}
        )

    return Starlette(routes=[Route("/work", work, methods=["GET"]), Route("/healthz", healthz, methods=["GET"])])
