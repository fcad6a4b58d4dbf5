"""Each language's rules on stacks as its sampler prints them (taken from the demo services)."""

from __future__ import annotations

from collections import Counter

import pytest

from tracetax.profiling.classify import RULES, summarize, what, where

SITE = "/svc/.venv/lib/python3.11/site-packages"
OTLP = f"{SITE}/opentelemetry/exporter/otlp/proto"
NODE_OTLP = "/x/node_modules/@opentelemetry/otlp-exporter-base/a.js"
PY_REQUEST = [
    "thread MainThread(uvicorn-requests)",
    "<module> (/svc/main.py:81)",
    f"RequestResponseCycle.run_asgi ({SITE}/uvicorn/protocols/http/httptools_impl.py:422)",
    f"OpenTelemetryMiddleware.__call__ ({SITE}/opentelemetry/instrumentation/asgi/__init__.py:797)",
]


@pytest.mark.parametrize(
    ("sampler", "stack", "expected"),
    [
        # Go: a request goroutine's span export (Simple), the BSP goroutine's, the handler itself.
        (
            "go-pprof",
            [
                "goroutine request",
                "net/http.(*conn).serve",
                "main.(*workHandler).ServeHTTP",
                "go.opentelemetry.io/otel/sdk/trace.(*simpleSpanProcessor).OnEnd",
                "go.opentelemetry.io/otel/exporters/otlp/otlptrace.(*Exporter).ExportSpans",
            ],
            ("request", "export"),
        ),
        (
            "go-pprof",
            ["goroutine request", "net/http.(*persistConn).writeLoop", "net.(*conn).Write", "syscall.write"],
            ("request", "export"),
        ),
        (
            "go-pprof",
            [
                "goroutine otel-sdk",
                "go.opentelemetry.io/otel/sdk/trace.(*batchSpanProcessor).processQueue",
                "runtime.selectgo",
            ],
            ("background", "sdk"),
        ),
        (
            "go-pprof",
            [
                "goroutine request",
                "net/http.(*conn).serve",
                "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp.(*middleware).serveHTTP",
                "main.(*workHandler).ServeHTTP",
                "runtime.mallocgc",
            ],
            ("request", "application"),
        ),
        ("go-pprof", ["goroutine unlabelled", "runtime.gcBgMarkWorker"], ("unattributed", "application")),
        # Python: the framework under the instrumentation middleware is the application's.
        ("py-spy", [*PY_REQUEST, f"Router.app ({SITE}/starlette/routing.py:70)"], ("request", "application")),
        (
            "py-spy",
            [
                *PY_REQUEST,
                f"Tracer.start_span ({SITE}/opentelemetry/sdk/trace/__init__.py:1200)",
                "RLock.acquire (/usr/lib/python3.11/threading.py:100)",
            ],
            ("request", "sdk"),
        ),
        (
            "py-spy",
            [
                *PY_REQUEST,
                f"SimpleSpanProcessor.on_end ({SITE}/opentelemetry/sdk/trace/export/__init__.py:120)",
                f"OTLPSpanExporter.export ({OTLP}/http/trace_exporter/__init__.py:180)",
                "HTTPConnection.send (/usr/lib/python3.11/http/client.py:1009)",
            ],
            ("request", "export"),
        ),
        (
            "py-spy",
            [
                "thread OtelBatchSpanRecordProcessor",
                f"BatchProcessor.worker ({SITE}/opentelemetry/sdk/_shared_internal/__init__.py:160)",
                f"_encode_span ({OTLP}/common/_internal/trace_encoder/__init__.py:102)",
            ],
            ("background", "export"),
        ),
        ("py-spy", [*PY_REQUEST[:2], "work (/svc/handler.py:30)"], ("request", "application")),
        # Java: the OTLP exporter's OkHttp threads are background.
        (
            "jfr",
            [
                "thread http-worker-*",
                "java.lang.Thread.run",
                "io.tracetax.demo.Main.lambda$main$2",
                "io.opentelemetry.sdk.trace.SdkSpan.end",
            ],
            ("request", "sdk"),
        ),
        (
            "jfr",
            [
                "thread okhttp-dispatch-*",
                "okhttp3.internal.connection.RealCall$AsyncCall.run",
                "java.lang.Long.toString",
            ],
            ("background", "export"),
        ),
        (
            "jfr",
            [
                "thread BatchSpanProcessor_WorkerThread-*",
                "io.opentelemetry.sdk.trace.export.BatchSpanProcessor$Worker.run",
                "io.opentelemetry.exporter.internal.marshal.Serializer.serializeRepeatedMessage",
            ],
            ("background", "export"),
        ),
        # Node: one thread; the stack's outer frames say which side.
        (
            "v8-cpu-prof",
            [
                "thread main",
                "parserOnHeadersComplete node:_http_common",
                "parserOnIncoming node:_http_server",
                "onEnd /svc/node_modules/@opentelemetry/sdk-trace-base/build/src/export/SimpleSpanProcessor.js",
                "send /svc/node_modules/@opentelemetry/otlp-exporter-base/build/src/http-exporter.js",
            ],
            ("request", "export"),
        ),
        (
            "v8-cpu-prof",
            [
                "thread main",
                "processTimers node:internal/timers",
                "listOnTimeout node:internal/timers",
                "_flushOneBatch /svc/node_modules/@opentelemetry/sdk-trace-base/build/BatchSpanProcessorBase.js",
            ],
            ("background", "sdk"),
        ),
        (
            "v8-cpu-prof",
            [
                "thread main",
                "processTicksAndRejections node:internal/process/task_queues",
                "onFinish /svc/node_modules/@opentelemetry/otlp-exporter-base/build/src/http-transport.js",
            ],
            ("unattributed", "export"),
        ),
    ],
)
def test_sample_classification(sampler: str, stack: list[str], expected: tuple[str, str]) -> None:
    rules = RULES[sampler]
    assert (where(rules, stack), what(rules, stack)) == expected


def test_summary_shares_add_up_and_split_export() -> None:
    stacks = Counter(
        {
            "goroutine request;main.(*workHandler).ServeHTTP;go.opentelemetry.io/otel/exporters/otlp/x": 30,
            "goroutine otel-sdk;go.opentelemetry.io/otel/exporters/otlp/y": 10,
            "goroutine request;go.opentelemetry.io/otel/sdk/trace.(*recordingSpan).End": 20,
            "goroutine request;main.(*workHandler).ServeHTTP": 40,
        }
    )
    summary = summarize(RULES["go-pprof"], stacks)
    assert summary.samples == 100
    assert (summary.export_request_path, summary.export_background) == (0.3, 0.1)
    assert (summary.sdk_other, summary.application) == (0.2, 0.4)
    assert summary.export_on_request_path_of_export == pytest.approx(0.75)
    assert summary.cells["request/export"].samples == 30
    assert summary.distinguishable


def test_export_that_cannot_be_attributed_is_reported_as_such() -> None:
    stacks = Counter(
        {
            f"thread main;processTicksAndRejections node:internal/process/task_queues;send {NODE_OTLP}": 8,
            f"thread main;parserOnIncoming node:_http_server;send {NODE_OTLP}": 2,
        }
    )
    summary = summarize(RULES["v8-cpu-prof"], stacks)
    assert summary.export_unattributed == 0.8
    assert not summary.distinguishable


def test_no_export_work_has_no_request_path_split() -> None:
    summary = summarize(RULES["go-pprof"], Counter({"goroutine request;main.handler": 5}))
    assert summary.export_share == 0 and summary.export_on_request_path_of_export is None
