"""Every demo service refuses bad configuration before serving: one line naming the variable
and what it accepts, exit code 2. No stack needed: the services stop before exporting."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tracetax.demos.catalog import demo_services
from tracetax.demos.process import INHERITED
from tracetax.system.ports import free_port

pytestmark = pytest.mark.services  # starts the real demo services: not in make test-unit

SERVICES = demo_services()
BAD = [
    ({"TRACETAX_PROCESSOR": "fast"}, "TRACETAX_PROCESSOR"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_BSP_MAX_QUEUE_SIZE": "abc"}, "OTEL_BSP_MAX_QUEUE_SIZE"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"}, "OTEL_EXPORTER_OTLP_PROTOCOL"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_LOGS_EXPORTER": "console"}, "OTEL_LOGS_EXPORTER"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_METRICS_EXPORTER": "prometheus"}, "OTEL_METRICS_EXPORTER"),
    # Validated without the SDK too: the uninstrumented baseline refuses what the others refuse.
    ({"TRACETAX_PROCESSOR": "none", "OTEL_SDK_DISABLED": "yes"}, "OTEL_SDK_DISABLED"),
    # The background-only injected cost (a known cost off the request path).
    ({"TRACETAX_PROCESSOR": "none", "TRACETAX_INJECT_BACKGROUND_US": "1000001"}, "TRACETAX_INJECT_BACKGROUND_US"),
    (
        {"TRACETAX_PROCESSOR": "none", "TRACETAX_INJECT_BACKGROUND_PERIOD_MS": "0"},
        "TRACETAX_INJECT_BACKGROUND_PERIOD_MS",
    ),
]


BUSY = "TRACETAX_INJECT_BUSY_US"
BAD_BUSY = ("abc", "-1", "1000001", "2.5")
# Every bad value in one mode per language, one bad value in each other mode (the Go modes run
# different binaries: demo-go-bare for none, demo-go for simple/batch, the launcher for ebpf).
BUSY_CASES = [
    pytest.param(language, mode, value, id=f"{language}-{mode}-{value}")
    for language, manifest in SERVICES.items()
    for mode, spec in manifest.modes.items()
    if spec.available
    for value in (BAD_BUSY if mode == "batch" else BAD_BUSY[2:3])
]


def run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    import os

    base = {key: os.environ[key] for key in INHERITED if key in os.environ}
    port = str(free_port())  # valid, so the variable under test is the only bad one
    return subprocess.run(argv, cwd=cwd, env=base | {"PORT": port} | env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("language", sorted(SERVICES))
@pytest.mark.parametrize(("env", "variable"), BAD, ids=[variable for _, variable in BAD])
def test_bad_configuration_is_refused_naming_the_variable(language: str, env: dict[str, str], variable: str) -> None:
    manifest = SERVICES[language]
    mode = env["TRACETAX_PROCESSOR"] if env["TRACETAX_PROCESSOR"] in manifest.modes else "batch"
    result = run(manifest.argv(mode), manifest.directory, env)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert variable in result.stderr, result.stderr


def test_ebpf_launcher_without_its_agent_says_why(tmp_path: Path) -> None:
    go = SERVICES["go"]
    launcher = tmp_path / "demo-go-ebpf"
    shutil.copy2(go.directory / "bin" / "demo-go-ebpf", launcher)
    result = run([str(launcher)], tmp_path, {"TRACETAX_PROCESSOR": "ebpf"})
    assert result.returncode == 2
    assert "not built" in result.stderr


@pytest.mark.parametrize(("language", "mode", "value"), BUSY_CASES)
def test_bad_busy_wait_is_refused_in_every_mode(language: str, mode: str, value: str) -> None:
    manifest = SERVICES[language]
    result = run(manifest.argv(mode), manifest.directory, {"TRACETAX_PROCESSOR": mode, BUSY: value})
    if mode == "ebpf" and "TRACETAX_PROCESSOR=ebpf unavailable" in result.stderr:
        pytest.skip(result.stderr.strip().splitlines()[-1])
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert BUSY in result.stderr and "0..1000000" in result.stderr, result.stderr
