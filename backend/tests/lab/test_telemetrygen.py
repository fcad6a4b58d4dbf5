"""telemetrygen as the lab runs it: its command line, its log, its process; and one real run
into a real Collector whose accepted count must equal what telemetrygen generated."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from tracetax.lab import telemetrygen
from tracetax.lab.ledger import accepted
from tracetax.lab.telemetry import TelemetryError, scrape
from tracetax.lab.telemetrygen import GeneratorError, TraceShape
from tracetax.native_stack.components import COLLECTOR_BUILD, binary_path
from tracetax.system import processes
from tracetax.system.ports import free_port

FIVE = TraceShape(spans_per_trace=5, attribute_bytes=0)

# Captured from telemetrygen v0.160.0 (2 workers, 5 spans per trace), gRPC chatter shortened,
# with one failed export from a run against a closed port.
CAPTURED_LOG = """\
2026-11-23T20:36:11.950Z\tINFO\ttraces/traces.go:53\tstarting gRPC exporter
2026-11-23T20:36:11.950Z\tINFO\tgrpclog/component.go:69\t[core] dial target: "127.0.0.1:41234"\t{"grpc_log": true}
2026-11-23T20:36:11.951Z\tINFO\ttraces/traces.go:125\tgeneration of traces is limited\t{"per-second": 250}
2026-11-23T20:36:11.952Z\tINFO\tchannelz/trace.go:200\t[core] [Channel #1] Resolver state updated: {
  "Addresses": [
    {
      "Addr": "127.0.0.1:41234"
    }
  ]
} (resolver returned new addresses)\t{"grpc_log": true}
2026/11/23 20:36:13 traces export: exporter export timeout: rpc error: code = Unavailable desc = connection refused
2026-11-23T20:36:16.953Z\tINFO\ttraces/worker.go:180\ttraces generated\t{"worker": 1, "traces": 248}
2026-11-23T20:36:16.955Z\tINFO\ttraces/worker.go:180\ttraces generated\t{"worker": 0, "traces": 250}
2026-11-23T20:36:16.955Z\tINFO\ttraces/traces.go:75\tstop the batch span processor
2026-11-23T20:36:16.957Z\tINFO\ttraces/traces.go:65\tstopping the exporter
"""


def build_argv(**overrides: object) -> list[str]:
    arguments: dict[str, object] = {
        "endpoint": "127.0.0.1:4317",
        "spans_per_s": 1000.0,
        "duration_s": 5.0,
        "shape": FIVE,
        "resource_attributes": {},
    }
    return telemetrygen.argv(**(arguments | overrides))  # type: ignore[arg-type]


def flag(command: list[str], name: str) -> str:
    values = [item.split("=", 1)[1] for item in command if item.startswith(f"--{name}=")]
    assert len(values) == 1, f"--{name} appears {len(values)} times in {command}"
    return values[0]


# -- the command line ------------------------------------------------------------------------


def test_argv_splits_the_span_rate_over_enough_workers() -> None:
    command = build_argv(spans_per_s=20_000.0)
    assert command[0] == str(telemetrygen.telemetrygen_binary())
    assert command[1] == "traces"
    assert flag(command, "workers") == "80"  # 250 spans/s each: a worker's accurate range
    assert float(flag(command, "rate")) == 250.0  # spans per second per worker, not traces
    assert flag(command, "child-spans") == "4"
    assert flag(command, "duration") == "5000ms"
    assert flag(command, "otlp-endpoint") == "127.0.0.1:4317"
    assert "--otlp-insecure" in command


def test_argv_keeps_the_rate_exact_for_a_given_worker_count() -> None:
    command = build_argv(spans_per_s=20_000.0, workers=3, duration_s=1.5)
    assert float(flag(command, "rate")) * 3 == pytest.approx(20_000.0, rel=1e-15)
    assert flag(command, "duration") == "1500ms"


def test_argv_quotes_attributes_as_telemetrygen_parses_them() -> None:
    command = build_argv(
        resource_attributes={"service.name": "lab svc", "tracetax.run.id": 'a "b", c'},
        shape=TraceShape(spans_per_trace=2, attribute_bytes=1024),
    )
    resource = [item for item in command if item.startswith("--otlp-attributes=")]
    assert resource == ['--otlp-attributes=service.name="lab svc"', '--otlp-attributes=tracetax.run.id="a "b", c"']
    payload = flag(command, "telemetry-attributes")
    assert payload == f'{telemetrygen.PAYLOAD_ATTRIBUTE}="{"x" * 1024}"'
    assert flag(command, "child-spans") == "1"


def test_no_payload_attribute_when_none_is_asked() -> None:
    assert not any(item.startswith("--telemetry-attributes") for item in build_argv())


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"shape": TraceShape(1, 0)}, "at least one child"),
        ({"shape": TraceShape(5, 0, services_per_trace=2)}, "one service"),
        ({"shape": TraceShape(5, telemetrygen.MAX_ATTRIBUTE_BYTES + 1)}, "attribute_bytes"),
        ({"spans_per_s": 0.0}, "unthrottled"),
        ({"spans_per_s": float("nan")}, "positive"),
        ({"endpoint": "http://127.0.0.1:4317"}, "host:port"),
        ({"duration_s": 0.0}, "1 ms"),
        ({"workers": 0}, "workers"),
        ({"resource_attributes": {"a=b": "c"}}, "no '='"),
    ],
)
def test_argv_refuses_what_telemetrygen_would_not_do_as_asked(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_argv(**overrides)


def test_workers_and_queue_follow_the_rate() -> None:
    assert telemetrygen.workers_for(1.0) == 1
    assert telemetrygen.workers_for(250.0) == 1
    assert telemetrygen.workers_for(251.0) == 2
    assert telemetrygen.queue_size(100.0) == telemetrygen.QUEUE_MIN
    assert telemetrygen.queue_size(50_000.0) == 50_000
    assert telemetrygen.queue_size(10_000_000.0) == telemetrygen.QUEUE_MAX


def test_environment_drops_inherited_otel_settings() -> None:
    env = telemetrygen.environment(
        20_000.0, {"PATH": "/bin", "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_BSP_MAX_QUEUE_SIZE": "1"}
    )
    assert env == {"PATH": "/bin", "OTEL_BSP_MAX_QUEUE_SIZE": "20000"}


# -- its log ---------------------------------------------------------------------------------


def test_parse_log_reads_counts_errors_and_the_generation_window() -> None:
    log = telemetrygen.parse_log(CAPTURED_LOG)
    assert log.traces_per_worker == {0: 250, 1: 248}
    assert log.export_errors == 1
    assert log.generation_s == pytest.approx(5.004)


def test_summarize_counts_spans_and_the_achieved_rate() -> None:
    result = telemetrygen.summarize(
        telemetrygen.parse_log(CAPTURED_LOG), shape=FIVE, workers=2, target_spans_per_s=500.0, duration_s=5.03
    )
    assert (result.traces, result.spans, result.export_errors) == (498, 2490, 1)
    assert result.achieved_spans_per_s == pytest.approx(2490 / 5.004, abs=0.1)
    assert not result.saturated
    assert result.duration_s == 5.03


def test_summarize_flags_a_rate_the_generator_could_not_reach() -> None:
    result = telemetrygen.summarize(
        telemetrygen.parse_log(CAPTURED_LOG), shape=FIVE, workers=2, target_spans_per_s=1000.0, duration_s=5.03
    )
    assert result.saturated  # 498 spans/s of 1000 asked


def test_summarize_refuses_a_run_with_a_worker_missing() -> None:
    with pytest.raises(GeneratorError, match=r"worker\(s\) \[2\] of 3"):
        telemetrygen.summarize(
            telemetrygen.parse_log(CAPTURED_LOG), shape=FIVE, workers=3, target_spans_per_s=500.0, duration_s=5.0
        )


def test_summarize_falls_back_to_wall_time_without_timestamps() -> None:
    text = '2026-11-23T20:36:16.953Z\tINFO\ttraces/worker.go:180\ttraces generated\t{"worker": 0, "traces": 10}\n'
    result = telemetrygen.summarize(
        telemetrygen.parse_log(text), shape=FIVE, workers=1, target_spans_per_s=10.0, duration_s=5.0
    )
    assert (result.generation_s, result.achieved_spans_per_s) == (5.0, 10.0)


# -- its process (a stand-in binary that prints the captured log) ----------------------------


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake telemetrygen in a fake tool cache; its exit code comes from the file `code`."""
    monkeypatch.setenv("TRACETAX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRACETAX_STATE_DIR", str(tmp_path / "state"))
    binary = telemetrygen.telemetrygen_binary()
    binary.parent.mkdir(parents=True)
    (tmp_path / "log.txt").write_text(CAPTURED_LOG)
    (tmp_path / "code").write_text("0")
    binary.write_text(f"#!/bin/sh\ncat {tmp_path / 'log.txt'}\nexit $(cat {tmp_path / 'code'})\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def start_stand_in(workdir: Path) -> telemetrygen.RunningGenerator:
    return telemetrygen.start(
        endpoint="127.0.0.1:4317",
        spans_per_s=500.0,
        duration_s=5.0,
        shape=FIVE,
        resource_attributes={},
        cpus=None,
        log_path=workdir / "run" / "telemetrygen.log",
    )


def test_start_and_result_of_a_finished_generator(stand_in: Path) -> None:
    generator = start_stand_in(stand_in)
    assert generator.wait(10) == 0
    generator.check()
    result = telemetrygen.result(generator)
    assert (result.spans, result.workers) == (2490, 2)
    assert 0 < result.duration_s < 10
    assert not processes.registry().entries()  # reaped and forgotten on exit
    generator.kill()  # harmless once it has exited


def test_a_failed_generator_raises_with_its_log(stand_in: Path) -> None:
    (stand_in / "code").write_text("3")
    generator = start_stand_in(stand_in)
    assert generator.wait(10) == 3
    with pytest.raises(GeneratorError, match="exited with code 3") as raised:
        generator.check()
    assert "traces generated" in str(raised.value)
    with pytest.raises(GeneratorError, match="code 3"):
        telemetrygen.result(generator)


def test_kill_stops_a_running_generator_without_calling_it_failed(stand_in: Path) -> None:
    telemetrygen.telemetrygen_binary().write_text("#!/bin/sh\nexec sleep 30\n")
    generator = start_stand_in(stand_in)
    assert generator.poll() is None
    with pytest.raises(GeneratorError, match="still running"):
        telemetrygen.result(generator)
    generator.kill()
    assert generator.poll() is not None
    generator.check()  # stopped on purpose: not a failure
    with pytest.raises(GeneratorError, match="did not finish its run"):
        telemetrygen.result(generator)  # but it left no count


def test_start_refuses_without_the_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETAX_CACHE_DIR", str(tmp_path))
    with pytest.raises(GeneratorError, match="make stack-build"):
        start_stand_in(tmp_path)


def test_start_turns_a_bad_load_into_a_generator_error(stand_in: Path) -> None:
    with pytest.raises(GeneratorError, match="cannot run this load"):
        telemetrygen.start(
            endpoint="127.0.0.1:4317",
            spans_per_s=500.0,
            duration_s=5.0,
            shape=TraceShape(1, 0),
            resource_attributes={},
            cpus=None,
            log_path=stand_in / "telemetrygen.log",
        )


# -- the real thing --------------------------------------------------------------------------

COLLECTOR_CONFIG = """\
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:{grpc}
exporters:
  debug:
    verbosity: basic
service:
  telemetry:
    logs:
      level: warn
    metrics:
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: {metrics}
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [debug]
"""


def wait_for_metrics(port: int, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            scrape("collector", port)
            return
        except TelemetryError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.services
def test_the_collector_accepts_exactly_what_telemetrygen_generated(tmp_path: Path) -> None:
    collector_binary = binary_path(COLLECTOR_BUILD)
    for needed in (collector_binary, telemetrygen.telemetrygen_binary()):
        if not needed.exists():
            pytest.skip(f"{needed} is not built: run `make stack-build`")
    grpc, metrics = free_port(), free_port()
    config = tmp_path / "collector.yaml"
    config.write_text(COLLECTOR_CONFIG.format(grpc=grpc, metrics=metrics))
    with (tmp_path / "collector.log").open("wb") as log:
        collector = processes.spawn([str(collector_binary), f"--config={config}"], stdout=log, env=dict(os.environ))
    try:
        wait_for_metrics(metrics)
        generator = telemetrygen.start(
            endpoint=f"127.0.0.1:{grpc}",
            spans_per_s=1000.0,
            duration_s=3.0,
            shape=FIVE,
            resource_attributes={"service.name": "tracetax-lab-test"},
            cpus=None,
            log_path=tmp_path / "telemetrygen.log",
        )
        try:
            assert generator.wait(60) == 0, telemetrygen.log_tail(generator.log_path)
            sent = telemetrygen.result(generator)
        finally:
            generator.kill()
        assert sent.export_errors == 0
        assert not sent.saturated, sent
        # Everything was exported before telemetrygen exited; the counter follows at once.
        assert accepted(scrape("collector", metrics)) == sent.spans
    finally:
        processes.stop(collector, 10)
