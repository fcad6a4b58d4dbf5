"""Every demo service refuses bad configuration before serving: one line naming the variable
and what it accepts, exit code 2. No stack needed: the services stop before exporting."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tracetax.ports import free_port
from tracetax.services.catalog import demo_services
from tracetax.services.process import INHERITED

SERVICES = demo_services()
BAD = [
    ({"TRACETAX_PROCESSOR": "fast"}, "TRACETAX_PROCESSOR"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_BSP_MAX_QUEUE_SIZE": "abc"}, "OTEL_BSP_MAX_QUEUE_SIZE"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER"),
    ({"TRACETAX_PROCESSOR": "batch", "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"}, "OTEL_EXPORTER_OTLP_PROTOCOL"),
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
