"""The lab's Collector configs (collector-pipelines/lab) and tracetax.lab.pipelines.

Unmarked tests read the configs only. `services` tests need the built Collector: every
shipped variant passes the real `validate`, each kind of mistake is traced to its file, line
and component, and real lab Collectors run: passthrough exposes the counters the ledger reads,
the two sampling variants keep exactly the traces the shared policy selects, and loadbalancing
splits traces between its two downstreams.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from prometheus_client.parser import text_string_to_metric_families

from tracetax.lab import pipelines
from tracetax.lab.pipelines import PipelineConfigError
from tracetax.native_stack import components
from tracetax.native_stack.supervisor import http_ready
from tracetax.system import processes
from tracetax.system.ports import free_port

COLLECTOR = components.binary_path(components.COLLECTOR_BUILD)
needs_collector = pytest.mark.skipif(
    not COLLECTOR.is_file(), reason=f"the TraceTax Collector is not built ({COLLECTOR}): run `make stack-build`"
)
SHIPPED = [
    "passthrough",
    "batch-default",
    "batch-tuned",
    "memory-limited",
    "groupbytrace",
    "tail-sampling",
    "loadbalancing",
]
# The sampling policy both sampling variants share: trace IDs whose first hex digit is 0-3.
KEPT_PREFIXES = "0123"


def environment(**extra: str) -> dict[str, str]:
    """A complete lab environment on placeholder ports (validate binds none of them)."""
    return pipelines.placeholder_environment(extra)


def overlay(tmp_path: Path, text: str, name: str = "mine.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


# -- the shipped variants, read only ---------------------------------------------------------


def test_variants_are_the_shipped_overlays_baseline_first() -> None:
    assert list(pipelines.VARIANTS) == SHIPPED
    for name, variant in pipelines.VARIANTS.items():
        assert variant.name == name
        assert variant.overlay == pipelines.LAB_DIR / f"{name}.yaml"
        assert variant.description and not variant.description.startswith("#"), name


def test_variant_flags_follow_the_pipeline() -> None:
    flags = {name: (v.downstreams, v.holds_traces, v.samples) for name, v in pipelines.VARIANTS.items()}
    assert flags == {
        "passthrough": (0, False, False),
        "batch-default": (0, False, False),
        "batch-tuned": (0, False, False),
        "memory-limited": (0, False, False),
        "groupbytrace": (0, True, True),
        "tail-sampling": (0, True, True),
        "loadbalancing": (2, False, False),
    }


def test_every_config_has_a_header_comment_saying_what_it_tests() -> None:
    for path in sorted(pipelines.LAB_DIR.glob("*.yaml")):
        lines = path.read_text().splitlines()
        header = "\n".join(itertools.takewhile(lambda line: line.startswith("#"), lines))
        assert lines[0].startswith("# "), path.name
        assert "What it tests" in header, f"{path.name}: the header should say what it tests"


def test_every_overlay_sets_the_whole_processor_list() -> None:
    """Collector merging replaces lists: an overlay that leaves `processors` out would
    silently inherit the base's."""
    for variant in pipelines.VARIANTS.values():
        pipeline = load(variant.overlay)["service"]["pipelines"][pipelines.PIPELINE]
        assert isinstance(pipeline["processors"], list), variant.name
        for component in pipeline["processors"]:
            assert component in (load(variant.overlay).get("processors") or {}), (variant.name, component)


def test_both_sampling_variants_share_the_policy_and_the_wait() -> None:
    group = load(pipelines.VARIANTS["groupbytrace"].overlay)["processors"]
    tail = load(pipelines.VARIANTS["tail-sampling"].overlay)["processors"]
    (policy,) = tail["tail_sampling/lab"]["policies"]
    (keep,) = policy["ottl_condition"]["span"]
    (drop,) = group["filter/trace-id-quarter"]["traces"]["span"]
    assert drop == f"not {keep}"
    assert keep == f'IsMatch(trace_id.string, "^[{KEPT_PREFIXES[0]}-{KEPT_PREFIXES[-1]}]")'
    assert group["groupbytrace/lab"]["wait_duration"] == tail["tail_sampling/lab"]["decision_wait"] == "2s"
    assert group["groupbytrace/lab"]["num_traces"] == tail["tail_sampling/lab"]["num_traces"]


def test_base_states_its_queue_and_pull_reader() -> None:
    base = load(pipelines.BASE_CONFIG)
    assert base["exporters"]["otlp_grpc/downstream"]["sending_queue"]["queue_size"] == 1000
    (reader,) = base["service"]["telemetry"]["metrics"]["readers"]
    prometheus = reader["pull"]["exporter"]["prometheus"]
    assert prometheus["host"] == "127.0.0.1"
    assert prometheus["port"] == "${env:LAB_METRICS_PORT}"
    assert base["service"]["pipelines"][pipelines.PIPELINE]["processors"] == []


# -- config_files and lab_environment --------------------------------------------------------


def test_config_files_for_a_shipped_variant_and_for_a_users_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert pipelines.config_files("batch-default", None) == [
        pipelines.BASE_CONFIG,
        pipelines.LAB_DIR / "batch-default.yaml",
    ]
    # A user's overlay: from the overlays directory (the refusals: tests/subjects/collector/
    # test_validation_safety.py).
    mine = overlay(tmp_path, "processors: {}\n")
    overlays = pipelines.OverlayPolicy(tmp_path)
    assert pipelines.config_files(None, mine, overlays) == [pipelines.BASE_CONFIG, mine.resolve()]
    monkeypatch.chdir(tmp_path)
    relative = pipelines.config_files(None, Path("mine.yaml"), overlays)[1]
    assert relative == tmp_path.resolve() / "mine.yaml"


def test_config_files_refuses_an_unknown_variant_and_ambiguity(tmp_path: Path) -> None:
    with pytest.raises(PipelineConfigError, match=r"no shipped pipeline variant named 'nope'.*passthrough"):
        pipelines.config_files("nope", None)
    with pytest.raises(ValueError, match="exactly one"):
        pipelines.config_files("passthrough", tmp_path / "mine.yaml")
    with pytest.raises(ValueError, match="exactly one"):
        pipelines.config_files(None, None)


def test_lab_environment_sets_every_lab_variable() -> None:
    env = pipelines.lab_environment(
        otlp_grpc="127.0.0.1:1",
        export="127.0.0.1:2",
        health="127.0.0.1:3",
        metrics_port=4,
        downstreams=["127.0.0.1:5", "127.0.0.1:6"],
        downstream_name="downstream-2",
        extra={"LAB_MEMORY_LIMIT_MIB": "256", "LAB_EXPORT_ENDPOINT": "ignored"},
    )
    assert env == {
        "LAB_OTLP_GRPC_ENDPOINT": "127.0.0.1:1",
        "LAB_EXPORT_ENDPOINT": "127.0.0.1:2",
        "LAB_HEALTH_ENDPOINT": "127.0.0.1:3",
        "LAB_METRICS_PORT": "4",
        "LAB_DOWNSTREAM_A": "127.0.0.1:5",
        "LAB_DOWNSTREAM_B": "127.0.0.1:6",
        "LAB_DOWNSTREAM_NAME": "downstream-2",
        "LAB_MEMORY_LIMIT_MIB": "256",
    }
    minimal = pipelines.lab_environment(otlp_grpc="a:1", export="b:2", health="c:3", metrics_port=4)
    assert set(minimal) == {"LAB_OTLP_GRPC_ENDPOINT", "LAB_EXPORT_ENDPOINT", "LAB_HEALTH_ENDPOINT", "LAB_METRICS_PORT"}
    with pytest.raises(ValueError, match="at most 2"):
        pipelines.lab_environment(otlp_grpc="a:1", export="b:2", health="c:3", metrics_port=4, downstreams=["x"] * 3)


def test_every_variable_a_config_reads_is_set_or_defaulted() -> None:
    """A ${env:LAB_X} without a default must be one lab_environment sets."""
    provided = set(environment())
    for path in sorted(pipelines.LAB_DIR.glob("*.yaml")):
        required = set(re.findall(r"\$\{env:(LAB_[A-Z0-9_]+)\}", path.read_text()))
        assert required <= provided, (path.name, required - provided)


# -- validate: the YAML stage (no Collector needed) ------------------------------------------


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    broken = overlay(tmp_path, "service:\n  pipelines:\n    traces/lab:\n      processors: [batch/lab\n")
    with pytest.raises(PipelineConfigError) as raised:
        # The YAML stage fails first: the Collector is never run.
        pipelines.validate([pipelines.BASE_CONFIG, broken], environment(), collector=tmp_path / "no-collector")
    (error,) = raised.value.errors
    assert error["file"] == str(broken)
    assert error["line"] == 5
    assert error["component"] is None
    assert "not valid YAML" in error["msg"]
    assert f"{broken}:5:" in str(raised.value)


def test_repeated_key_and_non_mapping_and_missing_file(tmp_path: Path) -> None:
    repeated = overlay(tmp_path, "processors:\n  batch/lab: {}\n  batch/lab: {}\n", "repeated.yaml")
    listed = overlay(tmp_path, "- processors\n", "listed.yaml")
    missing = tmp_path / "missing.yaml"
    with pytest.raises(PipelineConfigError) as raised:
        pipelines.validate([repeated, listed, missing], environment(), collector=tmp_path / "no-collector")
    errors = {Path(error["file"]).name: error for error in raised.value.errors}
    assert errors["repeated.yaml"]["line"] == 3
    assert "'batch/lab' is repeated (first at line 2)" in errors["repeated.yaml"]["msg"]
    assert "mapping" in errors["listed.yaml"]["msg"]
    assert "cannot read" in errors["missing.yaml"]["msg"]


def test_collector_message_is_located_without_running_it(tmp_path: Path) -> None:
    """The locating logic on the texts v0.160 prints (verified in the services tests)."""
    mine = overlay(
        tmp_path,
        "processors:\n  batch/lab:\n    timeout: 1s\n  memory_limiter/lab:\n    limit_mib: 1\n"
        "    spike_limit_mib: 2\nservice:\n  pipelines:\n    traces/lab:\n      processors:\n        - batch/x\n",
    )
    files = [pipelines.BASE_CONFIG, mine]
    unconfigured = 'service::pipelines::traces/lab: references processor "batch/x" which is not configured'
    assert pipelines.locate(unconfigured, files)["line"] == 11
    invalid = "processors::memory_limiter/lab: 'spike_limit_mib' must be smaller than 'limit_mib'"
    located = pipelines.locate(invalid, files)
    assert (located["line"], located["component"]) == (6, "memory_limiter/lab")
    # A component only the base defines is found in the base.
    base_only = 'exporters::otlp_grpc/downstream: requires a non-empty "endpoint"'
    assert pipelines.locate(base_only, files)["file"] == str(pipelines.BASE_CONFIG)


def test_collector_binary_missing_says_how_to_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TRACETAX_CACHE_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"make up.*make stack-build"):
        pipelines.collector_binary()


# -- validate with the real Collector --------------------------------------------------------


@pytest.mark.services
@needs_collector
@pytest.mark.parametrize("variant", SHIPPED)
def test_every_shipped_variant_validates(variant: str) -> None:
    pipelines.validate(pipelines.config_files(variant, None), environment())


@pytest.mark.services
@needs_collector
def test_downstream_config_validates_on_its_own() -> None:
    pipelines.validate([pipelines.DOWNSTREAM_CONFIG], environment())


def refused(files: list[Path], env: dict[str, str] | None = None) -> dict[str, Any]:
    with pytest.raises(PipelineConfigError) as raised:
        pipelines.validate(files, env or environment())
    (error,) = raised.value.errors
    return error


@pytest.mark.services
@needs_collector
def test_unknown_component_type_names_file_line_and_component(tmp_path: Path) -> None:
    mine = overlay(
        tmp_path,
        "# my overlay\nprocessors:\n  foo/bar: {}\n"
        "service:\n  pipelines:\n    traces/lab:\n      processors: [foo/bar]\n",
    )
    error = refused([pipelines.BASE_CONFIG, mine])
    assert (error["file"], error["line"], error["component"]) == (str(mine), 3, "foo/bar")
    assert 'unknown type: "foo"' in error["msg"]
    assert "builder-config.yaml" in error["msg"]


@pytest.mark.services
@needs_collector
def test_unconfigured_processor_names_the_pipeline_line(tmp_path: Path) -> None:
    mine = overlay(tmp_path, "service:\n  pipelines:\n    traces/lab:\n      processors: [batch/x]\n")
    error = refused([pipelines.BASE_CONFIG, mine])
    assert (error["file"], error["line"], error["component"]) == (str(mine), 4, "batch/x")
    assert 'references processor "batch/x" which is not configured' in error["msg"]
    assert "define batch/x under `processors:`" in error["msg"]


@pytest.mark.services
@needs_collector
def test_invalid_setting_value_names_the_setting_line() -> None:
    files = pipelines.config_files("memory-limited", None)
    error = refused(files, environment(LAB_MEMORY_LIMIT_MIB="100", LAB_MEMORY_SPIKE_MIB="200"))
    text = files[1].read_text().splitlines()
    assert error["file"] == str(files[1])
    assert error["component"] == "memory_limiter/lab"
    assert text[error["line"] - 1].strip().startswith("spike_limit_mib:")
    assert "'spike_limit_mib' must be smaller than 'limit_mib'" in error["msg"]


@pytest.mark.services
@needs_collector
def test_unknown_setting_and_bad_duration_name_the_setting(tmp_path: Path) -> None:
    mine = overlay(
        tmp_path,
        "processors:\n  batch/lab:\n    send_batch_size: 10\n    timeoutt: 1s\n"
        "service:\n  pipelines:\n    traces/lab:\n      processors: [batch/lab]\n",
    )
    error = refused([pipelines.BASE_CONFIG, mine])
    assert (error["line"], error["component"]) == (4, "batch/lab")
    assert "has invalid keys: timeoutt" in error["msg"]
    mine.write_text(mine.read_text().replace("timeoutt: 1s", "timeout: soon"))
    error = refused([pipelines.BASE_CONFIG, mine])
    assert (error["line"], error["component"]) == (4, "batch/lab")
    assert "'timeout' time: invalid duration" in error["msg"]


# -- real lab Collectors ---------------------------------------------------------------------


@dataclass
class Collector:
    name: str
    process: subprocess.Popen[bytes]
    log: Path
    otlp: str
    metrics_port: int

    def metrics(self) -> dict[str, float]:
        """Every otelcol_* sample summed over its labels, by name."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=3) as response:
            text = response.read().decode()
        totals: dict[str, float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name.startswith("otelcol_"):
                    totals[sample.name] = totals.get(sample.name, 0.0) + float(sample.value)
        return totals


@dataclass
class Lab:
    lab: Collector
    downstreams: list[Collector] = field(default_factory=list)


def wait_healthy(collector: Collector, health: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if collector.process.poll() is not None:
            pytest.fail(f"{collector.name} exited ({collector.process.returncode}):\n{collector.log.read_text()}")
        if http_ready(f"http://{health}/", timeout_s=1.0)[0]:
            return
        time.sleep(0.1)
    pytest.fail(f"{collector.name} not healthy in {timeout_s}s:\n{collector.log.read_text()}")


@contextmanager
def collector(name: str, files: list[Path], env: dict[str, str], workdir: Path) -> Iterator[Collector]:
    """A Collector on fresh ports, healthy, stopped with SIGTERM on the way out."""
    health, metrics_port, otlp = f"127.0.0.1:{free_port()}", free_port(), f"127.0.0.1:{free_port()}"
    env = env | {"LAB_OTLP_GRPC_ENDPOINT": otlp, "LAB_HEALTH_ENDPOINT": health, "LAB_METRICS_PORT": str(metrics_port)}
    log = workdir / f"{name}.log"
    argv = [str(COLLECTOR), *(f"--config=file:{path}" for path in files)]
    with log.open("wb") as output:
        process = processes.spawn(argv, env={**os.environ, **env}, stdout=output)
    running = Collector(name, process, log, otlp, metrics_port)
    try:
        wait_healthy(running, health)
        yield running
    finally:
        processes.stop(process, grace_s=10)


@contextmanager
def lab(variant: str, workdir: Path) -> Iterator[Lab]:
    """The lab Collector running `variant`, exporting to its downstream Collector(s), whose
    own exports go to a port nothing listens on (they only count what arrives)."""
    nowhere = f"127.0.0.1:{free_port()}"
    count = max(pipelines.VARIANTS[variant].downstreams, 1)
    with ExitStack() as stack:
        downstreams = [
            stack.enter_context(
                collector(
                    f"downstream-{index}",
                    [pipelines.DOWNSTREAM_CONFIG],
                    {"LAB_EXPORT_ENDPOINT": nowhere, "LAB_DOWNSTREAM_NAME": f"downstream-{index}"},
                    workdir,
                )
            )
            for index in range(1, count + 1)
        ]
        targets = [d.otlp for d in downstreams]
        env = {"LAB_EXPORT_ENDPOINT": targets[0]}
        if len(targets) > 1:
            env |= {"LAB_DOWNSTREAM_A": targets[0], "LAB_DOWNSTREAM_B": targets[1]}
        files = pipelines.config_files(variant, None)
        yield Lab(stack.enter_context(collector("lab", files, env, workdir)), downstreams)


def send_traces(endpoint: str, traces: int, spans_per_trace: int = 2) -> list[str]:
    """Send `traces` traces through the OTel SDK, flush, and return their trace IDs (hex)."""
    provider = TracerProvider(resource=Resource.create({"service.name": "tracetax-lab-test"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, insecure=True)))
    tracer = provider.get_tracer("tracetax.tests.lab")
    trace_ids = []
    for _ in range(traces):
        with tracer.start_as_current_span("root") as root:
            trace_ids.append(format(root.get_span_context().trace_id, "032x"))
            for child in range(spans_per_trace - 1):
                with tracer.start_as_current_span(f"child-{child}"):
                    pass
    provider.shutdown()
    return trace_ids


def settle(read: Any, expected: float, timeout_s: float = 20.0) -> float:
    """Poll `read()` until it returns `expected` (counters arrive asynchronously)."""
    deadline = time.monotonic() + timeout_s
    value = read()
    while value != expected and time.monotonic() < deadline:
        time.sleep(0.25)
        value = read()
    return float(value)


def arrived(downstreams: list[Collector]) -> float:
    return sum(d.metrics().get("otelcol_receiver_accepted_spans_total", 0.0) for d in downstreams)


# What the passthrough lab Collector exposes once spans went through (names verified on v0.160).
LEDGER_SERIES = {
    "otelcol_receiver_accepted_spans_total",
    "otelcol_receiver_refused_spans_total",
    "otelcol_receiver_failed_spans_total",
    "otelcol_exporter_sent_spans_total",
    "otelcol_exporter_queue_size",
    "otelcol_exporter_queue_capacity",
    "otelcol_process_cpu_seconds_total",
    "otelcol_process_memory_rss_bytes",
}


@pytest.mark.services
@needs_collector
def test_passthrough_lab_exposes_the_ledger_counters(tmp_path: Path) -> None:
    traces, spans = 20, 2
    with lab("passthrough", tmp_path) as running:
        send_traces(running.lab.otlp, traces, spans)
        assert settle(lambda: arrived(running.downstreams), traces * spans) == traces * spans
        metrics = running.lab.metrics()
    assert set(metrics) >= LEDGER_SERIES, sorted(LEDGER_SERIES - set(metrics))
    assert metrics["otelcol_receiver_accepted_spans_total"] == traces * spans
    assert metrics["otelcol_receiver_refused_spans_total"] == 0
    assert metrics["otelcol_exporter_sent_spans_total"] == traces * spans
    assert metrics["otelcol_exporter_queue_capacity"] == 1000
    assert metrics["otelcol_process_memory_rss_bytes"] > 0


@pytest.mark.services
@needs_collector
@pytest.mark.parametrize("variant", ["groupbytrace", "tail-sampling"])
def test_sampling_variants_keep_exactly_the_policys_traces(variant: str, tmp_path: Path) -> None:
    traces, spans = 200, 2
    with lab(variant, tmp_path) as running:
        trace_ids = send_traces(running.lab.otlp, traces, spans)
        kept = sum(1 for trace_id in trace_ids if trace_id[0] in KEPT_PREFIXES)
        assert settle(lambda: arrived(running.downstreams), kept * spans) == kept * spans
        time.sleep(1.5)  # nothing more arrives after the decision
        assert arrived(running.downstreams) == kept * spans
        assert running.lab.metrics()["otelcol_receiver_accepted_spans_total"] == traces * spans


@pytest.mark.services
@needs_collector
def test_loadbalancing_splits_traces_between_two_downstreams(tmp_path: Path) -> None:
    traces, spans = 100, 2
    with lab("loadbalancing", tmp_path) as running:
        send_traces(running.lab.otlp, traces, spans)
        assert settle(lambda: arrived(running.downstreams), traces * spans) == traces * spans
        each = [d.metrics()["otelcol_receiver_accepted_spans_total"] for d in running.downstreams]
        sent = running.lab.metrics()["otelcol_exporter_sent_spans_total"]
    assert len(each) == 2 and all(count > 0 and count % spans == 0 for count in each), each
    assert sent == traces * spans
