"""OpenTelemetry setup: traces, metrics and logs over OTLP (grpc or http/protobuf).

Imported by the entry point only in `simple` and `batch` mode. `setup_otel_sdk` builds the three
SDK providers, installs them as the global API providers and returns one shutdown function.
`instrument_app` wraps the ASGI app in the OTel ASGI middleware (the SERVER span); `OTelTelemetry`
is what the handler calls for its child spans, its log record and its metrics.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any

# The SDK's own self-observability metrics (otel.sdk.processor.span.processed with
# error.type=queue_full, otel.sdk.processor.log.processed, queue size/capacity, exporter counters):
# off by default in the SDK, on here unless the environment says otherwise. Read by the SDK when each
# processor/exporter is constructed, so it must be set before the imports below build anything.
os.environ.setdefault("OTEL_PYTHON_SDK_INTERNAL_METRICS_ENABLED", "true")

from opentelemetry import _logs, metrics, trace  # noqa: E402
from opentelemetry._logs import SeverityNumber  # noqa: E402
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware  # noqa: E402
from opentelemetry.sdk._logs import LoggerProvider  # noqa: E402
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, SimpleLogRecordProcessor  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor  # noqa: E402
from opentelemetry.trace import SpanKind  # noqa: E402

from config import DEFAULT_SERVICE_NAME  # noqa: E402

SCOPE = "tracetax-demo-python"
ShutdownFunc = Callable[[float], None]


def _protocol(signal: str) -> str:
    return (
        os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL", "").strip()
        or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip()
        or "http/protobuf"
    )


# Exporters: endpoints, headers and timeouts come from OTEL_EXPORTER_OTLP_* (read by the exporters).
# The span and log exporters report otel.sdk.exporter.* metrics through `meter_provider`.
def _span_exporter(meter_provider: MeterProvider | None) -> Any:
    if _protocol("TRACES") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    return OTLPSpanExporter(meter_provider=meter_provider)


def _log_exporter(meter_provider: MeterProvider | None) -> Any:
    if _protocol("LOGS") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
    else:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    return OTLPLogExporter(meter_provider=meter_provider)


def _metric_exporter() -> Any:
    if _protocol("METRICS") == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
    else:
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    return OTLPMetricExporter()


def _resource(worker: int | None = None) -> Resource:
    # Resource.create reads OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME; only when neither names
    # the service does the project default apply.
    resource = Resource.create({})
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": DEFAULT_SERVICE_NAME}))
    if worker is not None:
        # One of TRACETAX_WORKERS processes: each exports its own cumulative counters, so each
        # needs a resource of its own or the backends would mix their series into one.
        instance = f"{resource.attributes['service.name']}-worker-{worker}-{os.getpid()}"
        resource = resource.merge(Resource({"service.instance.id": instance}))
    return resource


def setup_otel_sdk(processor: str, signals: frozenset[str], worker: int | None = None) -> ShutdownFunc:
    """Build and install the providers of the `signals` that are on for `simple` or `batch`;
    return the shutdown function. An off signal keeps the API's no-op provider. `worker`: the
    index of this worker process (TRACETAX_WORKERS > 1), which adds a `service.instance.id`."""
    if processor not in ("simple", "batch"):
        raise ValueError(f"setup_otel_sdk: unsupported processor {processor!r}")
    resource = _resource(worker)
    simple = processor == "simple"

    # Metrics first, so the traces and logs pipelines can report their own metrics through it.
    # PeriodicExportingMetricReader reads OTEL_METRIC_EXPORT_INTERVAL / _TIMEOUT itself.
    meter_provider: MeterProvider | None = None
    if "METRICS" in signals:
        reader = PeriodicExportingMetricReader(_metric_exporter())
        meter_provider = MeterProvider(metric_readers=[reader], resource=resource, shutdown_on_exit=False)
        metrics.set_meter_provider(meter_provider)

    # The sampler comes from OTEL_TRACES_SAMPLER / _ARG; the batch processors read OTEL_BSP_* and
    # OTEL_BLRP_* (validated in config.py before we get here).
    tracer_provider: TracerProvider | None = None
    if "TRACES" in signals:
        tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False, meter_provider=meter_provider)
        span_exporter = _span_exporter(meter_provider)
        span_processor = SimpleSpanProcessor if simple else BatchSpanProcessor
        tracer_provider.add_span_processor(span_processor(span_exporter, meter_provider=meter_provider))
        trace.set_tracer_provider(tracer_provider)
    logger_provider: LoggerProvider | None = None
    if "LOGS" in signals:
        logger_provider = LoggerProvider(resource=resource, shutdown_on_exit=False, meter_provider=meter_provider)
        log_exporter = _log_exporter(meter_provider)
        log_processor = SimpleLogRecordProcessor if simple else BatchLogRecordProcessor
        logger_provider.add_log_record_processor(log_processor(log_exporter, meter_provider=meter_provider))
        _logs.set_logger_provider(logger_provider)

    def shutdown(timeout_s: float) -> None:
        """Flush and shut down traces and logs (in parallel), then metrics, within `timeout_s`.

        Every failure is collected and raised together as one ExceptionGroup. The SDK's own
        shutdown calls are not bounded (BatchProcessor.shutdown waits up to 30 s for an export
        stuck on an unreachable endpoint), so each runs in a daemon thread that we stop waiting
        for at the deadline.
        """
        deadline = time.monotonic() + timeout_s
        errors: list[Exception] = []

        def run(name: str, fn: Callable[[], object]) -> tuple[threading.Thread, list[Exception]]:
            failed: list[Exception] = []

            def target() -> None:
                try:
                    fn()
                except Exception as err:  # noqa: BLE001 - reported to the caller
                    failed.append(RuntimeError(f"{name} shutdown: {err!r}"))

            thread = threading.Thread(target=target, name=f"otel-shutdown-{name}", daemon=True)
            thread.start()
            return thread, failed

        def wait(name: str, thread: threading.Thread, failed: list[Exception], until: float = deadline) -> None:
            thread.join(max(0.0, until - time.monotonic()))
            if thread.is_alive():
                errors.append(TimeoutError(f"{name} shutdown did not finish in time (export stuck?)"))
            errors.extend(failed)

        # Traces and logs first: their processors report into the meter provider while flushing.
        pending = [
            (name, *run(name, provider.shutdown))
            for name, provider in (("traces", tracer_provider), ("logs", logger_provider))
            if provider is not None
        ]
        # Traces and logs may use two thirds of the budget; metrics keep at least the last third.
        for name, thread, failed in pending:
            wait(name, thread, failed, deadline - timeout_s / 3)
        if meter_provider is not None:
            remaining_ms = max(0.0, deadline - time.monotonic()) * 1000
            provider = meter_provider
            wait("metrics", *run("metrics", lambda: provider.shutdown(timeout_millis=remaining_ms)))
        if errors:
            raise ExceptionGroup("OpenTelemetry shutdown", errors)

    return shutdown


def _span_details(scope: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """SERVER span name and attributes: "GET /work" with http.route (the plain ASGI middleware has no router)."""
    method = scope.get("method", "HTTP")
    path = scope.get("path", "")
    if path == "/work":
        return f"{method} /work", {"http.route": "/work"}
    return method, {}


def instrument_app(app: Any) -> Any:
    """The SERVER span: the OTel ASGI middleware around the Starlette app.

    /healthz is excluded; the middleware's extra per-message "http receive"/"http send" INTERNAL
    spans are turned off so that a request has exactly the SERVER span plus our children.
    """
    return OpenTelemetryMiddleware(
        app,
        excluded_urls="healthz",
        default_span_details=_span_details,
        exclude_spans=["receive", "send"],
    )


class OTelTelemetry:
    """The handler's telemetry calls on the global OTel API providers."""

    def __init__(self) -> None:
        self._tracer = trace.get_tracer(SCOPE)
        self._logger = _logs.get_logger(SCOPE)
        meter = metrics.get_meter(SCOPE)
        self._requests = meter.create_counter(
            "tracetax.demo.requests", unit="{request}", description="GET /work requests served"
        )
        self._duration = meter.create_histogram(
            "tracetax.demo.request.duration", unit="s", description="Time spent in the /work handler"
        )
        self._metric_attrs = {"http.route": "/work"}

    @contextlib.contextmanager
    def child_span(self, index: int, iters: int):  # type: ignore[no-untyped-def]
        attributes: dict[str, Any] = {"work.step.index": index, "work.iters": iters}
        if index % 2 == 0:
            name, kind = "work.compute", SpanKind.INTERNAL
        else:
            name, kind = "work.fetch", SpanKind.CLIENT
            attributes["peer.service"] = "cache"
        with self._tracer.start_as_current_span(name, kind=kind, attributes=attributes):
            yield

    def request_done(self, iters: int, spans: int, duration_s: float) -> None:
        self._logger.emit(
            body="work done",
            severity_number=SeverityNumber.INFO,
            severity_text="INFO",
            attributes={"work.iters": iters, "work.spans": spans},
        )
        self._requests.add(1, self._metric_attrs)
        self._duration.record(duration_s, self._metric_attrs)
