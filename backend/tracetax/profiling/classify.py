"""Sort each stack sample by where it ran and what it did, per language.

Where: the request path (threads or goroutines that serve requests: a request's latency
includes what runs there) or the background (the SDK's export workers, timers, the exporter's
own I/O threads); "unattributed" when the sampler cannot say (a single-threaded runtime whose
stack root names no request or timer).
What: export (span/log/metric serialization, the OTLP client, its network writes) when any
frame of the stack is the exporter's (an exporter never calls back into the application);
otherwise the innermost frame that is either the SDK's (span creation, context, processors,
metric recording, instrumentation) or the application's (its own code and its HTTP
framework) decides, so a framework called from an instrumentation middleware is still the
application's and the runtime counts for whoever called it; nothing known: application.

The rules match frame names as each language's sampler prints them; they are listed per
sampler below so a newcomer can check them against a flame graph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from tracetax.profiling.folded import Folded, frames

Where = Literal["request", "background", "unattributed"]
What = Literal["export", "sdk", "application"]


@dataclass(frozen=True)
class Rules:
    sampler: str
    # Patterns on the first frame (thread / goroutine role): request path, background.
    request_roots: re.Pattern[str]
    background_roots: re.Pattern[str]
    # Patterns on any frame of the stack.
    export_frames: re.Pattern[str]
    sdk_frames: re.Pattern[str]
    application_frames: re.Pattern[str]
    # Single-threaded runtimes: request path / background told apart by these frames instead.
    request_frames: re.Pattern[str] | None = None
    background_frames: re.Pattern[str] | None = None
    # What the reader should know about how far the split can be trusted.
    note: str = ""


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


NEVER = re.compile(r"(?!x)x")

RULES: dict[str, Rules] = {
    "go-pprof": Rules(
        sampler="go-pprof",
        # Goroutine labels set by the demo service and inherited by goroutines they start
        # (net/http's persistConn read/write loops dialled by a request carry "request").
        request_roots=re.compile(r"^goroutine (request|http-server)$"),
        background_roots=re.compile(r"^goroutine otel-sdk$"),
        export_frames=_any(
            r"go\.opentelemetry\.io/otel/exporters/",
            r"go\.opentelemetry\.io/proto/otlp",
            r"google\.golang\.org/protobuf/",
            r"google\.golang\.org/grpc",
            r"net/http\.\(\*persistConn\)",
            r"net/http\.\(\*Transport\)",
            r"net/http\.\(\*Client\)",
        ),
        sdk_frames=_any(r"go\.opentelemetry\.io/"),
        application_frames=_any(r"^main\.", r"^net/http\."),
        # A service of your own has no labels: its goroutines are told apart by where they run.
        request_frames=_any(r"^net/http\.\(\*conn\)\.serve$"),
        background_frames=_any(r"go\.opentelemetry\.io/otel/sdk/.*\.\(\*batch"),
        note="goroutine labels (tracetax.role) tell the demo's request goroutines from the SDK's; unlabelled "
        "ones (a service of your own) by net/http's connection goroutine and the SDK's batch processors; "
        "the rest (GC workers, the scheduler) are unattributed",
    ),
    "py-spy": Rules(
        sampler="py-spy",
        request_roots=re.compile(r"^thread MainThread"),
        background_roots=re.compile(r"^thread Otel"),
        # The exporter's HTTP client (requests, urllib3, http.client, socket) is always called
        # from an exporter frame; matched on its own it would count a service's own I/O (a
        # gunicorn worker's socket reads) as export.
        export_frames=_any(r"opentelemetry/exporter/", r"opentelemetry/proto/", r"google/protobuf/", r"/grpc/"),
        sdk_frames=_any(r"/opentelemetry/"),
        # The framework, and the service's own files (neither a site-package nor the stdlib).
        application_frames=_any(
            r"/(uvicorn|starlette|httptools|uvloop)/", r"\((?![^)]*site-packages)(?![^)]*/lib/python3)[^)]*\.py:\d+\)$"
        ),
        # Threads of other servers (gunicorn's gthread workers, waitress, a WSGI thread pool) run
        # requests under their server's frames.
        request_frames=_any(
            r"/(gunicorn|waitress|werkzeug|uvicorn|hypercorn|django/core/handlers|flask|starlette)/",
            r"wsgiref/",
            r"socketserver\.py",
        ),
        note="thread names: MainThread runs the event loop or a sync worker (every request); Otel* threads are "
        "the SDK's batch processors and metric reader (the zero-code agent's too); other threads by their "
        "server's frames. Samples are of the thread holding the GIL "
        "(Python on CPU); native work done without the GIL, such as the socket syscalls, is not seen",
    ),
    "jfr": Rules(
        sampler="jfr",
        # The demo's workers, and the request threads of common servers (Jetty, Tomcat, Undertow,
        # Netty, Vert.x) for a service of your own.
        request_roots=re.compile(
            r"^thread (http-worker|HTTP-Dispatcher|qtp\d+|https?-(jsse-)?nio-|XNIO-|reactor-http-|"
            r"nioEventLoopGroup|vert\.x-eventloop)"
        ),
        background_roots=re.compile(r"^thread "),
        export_frames=_any(
            r"^io\.opentelemetry\.exporter\.",
            r"(^|\.)okhttp3\.",  # the agent's copy is shaded under io.opentelemetry.javaagent.shaded
            r"(^|\.)okio\.",
            r"^io\.grpc\.",
            r"^java\.net\.http\.",
        ),
        sdk_frames=_any(r"^io\.opentelemetry\."),
        application_frames=_any(r"^io\.tracetax\.demo\.", r"^(com\.)?sun\.net\.httpserver\."),
        note="thread names: http-worker-* serve requests; every other Java thread (the "
        "BatchSpanProcessor worker, OkHttp's dispatcher threads the OTLP exporter sends on, "
        "the metric reader) is background. JFR samples Java threads only: GC and JIT threads "
        "are not in the profile",
    ),
    "v8-cpu-prof": Rules(
        sampler="v8-cpu-prof",
        request_roots=NEVER,
        background_roots=NEVER,
        request_frames=_any(r"^parserOnHeadersComplete ", r"^parserOnIncoming ", r"node:_http_server"),
        background_frames=_any(r"^processTimers ", r"^listOnTimeout "),
        export_frames=_any(r"@opentelemetry/otlp-", r"@opentelemetry/exporter-", r"protobufjs"),
        sdk_frames=_any(r"@opentelemetry/"),
        application_frames=_any(r"node:_http_(server|outgoing)", r" (?!.*node_modules)(file://|/)\S+$"),
        note="one JavaScript thread: a sample is on the request path when its stack starts in "
        "the HTTP parser's request callback, background when it starts in a timer (the batch "
        "processors' flush); I/O and promise callbacks (where an export's network writes "
        "finish) cannot be tied to either and are unattributed",
    ),
    "perf": Rules(
        sampler="perf",
        request_roots=NEVER,
        background_roots=re.compile(r"^thread (BatchSpanProce|otel|Otel|OkHttp)"),
        request_frames=_any(r"net/http\.\(\*conn\)\.serve"),
        export_frames=_any(r"opentelemetry.*[Ee]xport", r"otlp", r"protobuf"),
        sdk_frames=_any(r"opentelemetry"),
        application_frames=NEVER,
        note="perf sees native frames: an interpreter's or JIT's own frames are not named, so most samples "
        "cannot be placed on the request path or in the background (unattributed)",
    ),
}


class Share(BaseModel):
    samples: int
    share: float  # of all the service's samples


class ExportLocation(BaseModel):
    """Where one configuration's CPU went, from its stack samples (all rounds merged)."""

    sampler: str
    samples: int
    # Each (where, what) cell: "request/export", "background/sdk", "unattributed/application", ...
    cells: dict[str, Share]
    # The stacked bar: export on the request path, export in the background, other SDK, application.
    export_request_path: float
    export_background: float
    export_unattributed: float
    sdk_other: float
    application: float
    export_share: float
    # Of the export work, the part on the request path (None when there was no export work).
    export_on_request_path_of_export: float | None
    # False when the sampler could not attribute most export work to either side.
    distinguishable: bool
    note: str


def where(rules: Rules, stack: list[str]) -> Where:
    root = stack[0] if stack else ""
    if rules.request_roots.search(root):
        return "request"
    if rules.background_roots.search(root):
        return "background"
    # Frame-based (single-threaded runtimes): the outermost match decides.
    for frame in stack[1:]:
        if rules.request_frames is not None and rules.request_frames.search(frame):
            return "request"
        if rules.background_frames is not None and rules.background_frames.search(frame):
            return "background"
    return "unattributed"


def what(rules: Rules, stack: list[str]) -> What:
    if any(rules.export_frames.search(frame) for frame in stack[1:]):
        return "export"
    for frame in reversed(stack[1:]):  # innermost first
        if rules.sdk_frames.search(frame):
            return "sdk"
        if rules.application_frames.search(frame):
            return "application"
    return "application"


def summarize(rules: Rules, stacks: Folded) -> ExportLocation:
    counts: dict[str, int] = {}
    for stack, count in stacks.items():
        parts = frames(stack)
        key = f"{where(rules, parts)}/{what(rules, parts)}"
        counts[key] = counts.get(key, 0) + count
    total = sum(counts.values())

    def share(*keys: str) -> float:
        return sum(counts.get(key, 0) for key in keys) / total if total else 0.0

    export_keys = ("request/export", "background/export", "unattributed/export")
    export = share(*export_keys)
    on_request = share("request/export")
    unattributed = share("unattributed/export")
    return ExportLocation(
        sampler=rules.sampler,
        samples=total,
        cells={key: Share(samples=count, share=count / total) for key, count in sorted(counts.items())},
        export_request_path=on_request,
        export_background=share("background/export"),
        export_unattributed=unattributed,
        sdk_other=share("request/sdk", "background/sdk", "unattributed/sdk"),
        application=share("request/application", "background/application", "unattributed/application"),
        export_share=export,
        export_on_request_path_of_export=on_request / export if export else None,
        distinguishable=not export or unattributed <= export / 2,
        note=rules.note,
    )
