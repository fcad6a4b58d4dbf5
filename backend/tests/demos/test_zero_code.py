"""How each launch runs a user's service, against a pinned set laid out in a temporary cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetax.demos import zero_code


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "zero-code"
    (root / "python-1/bin").mkdir(parents=True)
    (root / "python-1/lib/python3.11/site-packages").mkdir(parents=True)
    (root / "java").mkdir()
    (root / "java/agent.jar").write_text("")
    (root / "node/register.js").parent.mkdir()
    (root / "node/register.js").write_text("")
    versions = tmp_path / "versions.json"
    versions.write_text(
        json.dumps(
            {"python": {"dir": "python-1"}, "java": {"jar": "java/agent.jar"}, "node": {"register": "node/register.js"}}
        )
    )
    monkeypatch.setattr(zero_code, "zero_code_root", lambda: root)
    monkeypatch.setattr(zero_code, "VERSIONS_FILE", versions)
    return root


def test_none_loads_no_agent_and_disables_the_sdk(cache: Path) -> None:
    launched = zero_code.launch(["./app"], Path(), "java", "none")
    assert launched.argv == ["./app"] and launched.env == {"OTEL_SDK_DISABLED": "true"}


def test_java_gets_the_agent_through_java_tool_options(cache: Path) -> None:
    launched = zero_code.launch(["./run.sh"], Path(), "java", "agent")
    assert launched.argv == ["./run.sh"]
    assert launched.env == {"JAVA_TOOL_OPTIONS": f"-javaagent:{cache / 'java/agent.jar'}"}


def test_node_gets_the_register_hook_and_the_profiler_when_stacks_are_sampled(cache: Path) -> None:
    launched = zero_code.launch(["node", "server.js"], Path(), "node", "agent", cpu_profile=True)
    options = launched.env["NODE_OPTIONS"].split()
    assert options == [f"--require={cache / 'node/register.js'}", f"--require={zero_code.NODE_PROFILER_PRELOAD}"]
    assert zero_code.NODE_PROFILER_PRELOAD.exists()


def test_python_prefers_the_services_own_opentelemetry_instrument(cache: Path, tmp_path: Path) -> None:
    venv = tmp_path / "app/venv/bin"
    venv.mkdir(parents=True)
    (venv / "opentelemetry-instrument").write_text("")
    launched = zero_code.launch(["venv/bin/gunicorn", "app:app"], tmp_path / "app", "python", "agent")
    assert launched.argv == [str(venv / "opentelemetry-instrument"), "venv/bin/gunicorn", "app:app"]
    assert launched.env == {"PYTHONPATH": str(zero_code.PYTHON_FLUSH_HOOK)}
    assert (zero_code.PYTHON_FLUSH_HOOK / "tracetax_flush_hook.py").exists()


def test_python_otherwise_uses_the_pinned_set_on_pythonpath(cache: Path) -> None:
    launched = zero_code.launch(["/usr/bin/python3", "-m", "http.server"], Path(), "python", "agent")
    assert launched.argv[0] == str(cache / "python-1/bin/opentelemetry-instrument")
    site_packages, hook = launched.env["PYTHONPATH"].split(":")
    assert (site_packages, hook) == (
        str(cache / "python-1/lib/python3.11/site-packages"),
        str(zero_code.PYTHON_FLUSH_HOOK),
    )


def test_go_ebpf_wraps_the_binary_in_the_launcher(cache: Path) -> None:
    if zero_code.unavailable_reason("go", "ebpf"):
        pytest.skip("the Go eBPF launcher is not built here")
    launched = zero_code.launch(["./bin/server"], Path(), "go", "ebpf")
    assert launched.argv == [str(zero_code.GO_EBPF_LAUNCHER), "--", "./bin/server"]


def test_a_missing_set_is_unavailable_with_the_command_that_installs_it(cache: Path) -> None:
    (cache / "java/agent.jar").unlink()
    with pytest.raises(zero_code.LaunchUnavailableError, match="make zero-code"):
        zero_code.launch(["./run.sh"], Path(), "java", "agent")
