"""The Go service leaves the SDK's self-observability off unless OTEL_GO_X_OBSERVABILITY=true (it
cut batch mode's max throughput by ~17%). Checked on what the SDK exports: its metrics go to a
small OTLP/HTTP sink here, and the SDK's own instruments are the `otel.sdk.*` names. No stack."""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tracetax.demos.catalog import demo_services
from tracetax.demos.process import ServiceProcess
from tracetax.system.ports import free_port

pytestmark = pytest.mark.services  # starts the real demo services: not in make test-unit


class Sink(http.server.ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), SinkHandler)
        self.metrics: list[bytes] = []


class SinkHandler(http.server.BaseHTTPRequestHandler):
    server: Sink

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path == "/v1/metrics":
            self.server.metrics.append(body)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def sink() -> Iterator[Sink]:
    server = Sink()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("setting", "sdk_metrics"), [(None, False), ("true", True)], ids=["unset", "true"])
def test_sdk_self_observability_only_when_asked(
    setting: str | None, sdk_metrics: bool, sink: Sink, tmp_path: Path
) -> None:
    go = demo_services()["go"]
    port = free_port()
    env = {
        "TRACETAX_PROCESSOR": "batch",
        "PORT": str(port),
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
        "OTEL_METRIC_EXPORT_INTERVAL": "300",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }
    if setting is not None:
        env["OTEL_GO_X_OBSERVABILITY"] = setting
    service = ServiceProcess(
        go.argv("batch"), cwd=go.directory, env=env, port=port, log_path=tmp_path / "go.log", name="go (batch)"
    )
    service.start()
    try:
        service.wait_healthy(30)
        for _ in range(5):
            assert httpx.get(f"{service.base_url}/work", params={"spans": 3}).status_code == 200
        deadline = time.monotonic() + 10
        while not any(b"tracetax.demo.requests" in body for body in sink.metrics) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.7)  # two more export intervals: the SDK's instruments, if any, are in by now
    finally:
        assert service.stop(10) == 0, service.last_lines()
    exported = b"".join(sink.metrics)
    assert b"tracetax.demo.requests" in exported, "the app's own metrics never arrived"
    assert (b"otel.sdk." in exported) is sdk_metrics
