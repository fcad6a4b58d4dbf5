"""How a user's own service is launched in each configuration: as it is, or under its
language's zero-code instrumentation, so a configuration matrix needs no change to its code.

- python: `opentelemetry-instrument <argv>`: the one beside argv[0] when the service's own
  environment has it (its own pins), else TraceTax's pinned set, whose site-packages then go on
  PYTHONPATH so the service's interpreter can import them.
- java: the OpenTelemetry Java agent through JAVA_TOOL_OPTIONS=-javaagent:<jar>, which every JVM
  reads, however the service starts it (a script, `java -jar`, a wrapper).
- node: NODE_OPTIONS=--require <auto-instrumentations-node register>, likewise for any launcher.
- go: eBPF auto-instrumentation (go.opentelemetry.io/auto) attached by the Go demo's launcher to
  the service's binary by pid.

The sets are pinned under instrumented-services/zero-code/ and installed into the cache by
`make zero-code`; versions.json there says where each landed.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tracetax.system.paths import REPO_ROOT, cache_dir

VERSIONS_FILE = REPO_ROOT / "instrumented-services" / "zero-code" / "versions.json"
NODE_PROFILER_PRELOAD = REPO_ROOT / "instrumented-services" / "node" / "cpu-profiler-preload.js"
# Our own exit-time flush order for opentelemetry-instrument (its module docstring says why).
PYTHON_FLUSH_HOOK = REPO_ROOT / "instrumented-services" / "zero-code" / "python" / "flush-hook"
GO_EBPF_LAUNCHER = REPO_ROOT / "instrumented-services" / "go" / "bin" / "demo-go-ebpf"
AGENT_LANGUAGES = ("python", "java", "node")
INSTALL_HINT = "run `make zero-code` (or `make up`)"


# What each processor is, in words, for the language it runs under: `agent` is a different
# program per language (the recommendation names the one the user would install).
_PROCESSOR_NAMES = {
    "none": "no OpenTelemetry SDK",
    "simple": "SimpleSpanProcessor",
    "batch": "BatchSpanProcessor",
    "ebpf": "eBPF auto-instrumentation (go.opentelemetry.io/auto)",
}
_AGENT_NAMES = {
    "python": "Python zero-code instrumentation (opentelemetry-instrument)",
    "java": "the OpenTelemetry Java agent",
    "node": "Node zero-code instrumentation (@opentelemetry/auto-instrumentations-node)",
    "go": "eBPF auto-instrumentation (go.opentelemetry.io/auto)",
}


def processor_name(processor: str, language: str) -> str:
    """ "batch" -> "BatchSpanProcessor"; "agent" -> the zero-code program of `language`; an
    unknown processor as it is."""
    if processor == "agent":
        return _AGENT_NAMES.get(language, f"{language} zero-code instrumentation")
    return _PROCESSOR_NAMES.get(processor, processor)


class LaunchUnavailableError(RuntimeError):
    """The launch a configuration asks for cannot run here; the message says why and what to do."""


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    # Set over the configuration's own variables: the launch itself.
    env: dict[str, str] = field(default_factory=dict)
    # Set under them (a configuration may override): the agent's own processed/dropped counters,
    # which the ledger reads as `expected`. Their cost is part of the configuration's figures,
    # and `description` says so.
    defaults: dict[str, str] = field(default_factory=dict)
    # What the service runs under, in words, for the round's record.
    description: str = "as it is"


def zero_code_root() -> Path:
    return cache_dir() / "zero-code"


def versions() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(VERSIONS_FILE.read_text())
    except (OSError, ValueError) as error:
        raise LaunchUnavailableError(f"cannot read {VERSIONS_FILE}: {error}") from error
    return data


def _installed(language: str, key: str) -> Path:
    """A file of the language's pinned set in the cache, or why it is not there."""
    entry = versions().get(language) or {}
    relative = entry.get(key)
    if not relative:
        raise LaunchUnavailableError(f"{VERSIONS_FILE.name} names no {language} {key}")
    path: Path = zero_code_root() / str(relative)
    if not path.exists():
        raise LaunchUnavailableError(
            f"the {language} zero-code set is not installed ({path} is missing): {INSTALL_HINT}"
        )
    return path


def unavailable_reason(language: str, processor: str) -> str | None:
    """Why `processor` cannot launch a `language` service here, or None when it can."""
    if processor in ("none", "batch"):
        return None
    if processor == "simple":
        return (
            "no standard variable makes a service's own SDK use SimpleSpanProcessor: run it as it is "
            "(`batch`, configured by OTEL_BSP_*) or under its zero-code agent (`agent`)"
        )
    if processor == "agent" and language not in AGENT_LANGUAGES:
        hint = "use `ebpf` for Go" if language == "go" else "set service.language to python, java or node"
        return f"`agent` loads a language's zero-code agent; service.language is {language!r} ({hint})"
    if processor == "ebpf" and language != "go":
        return f"`ebpf` instruments Go binaries only; service.language is {language!r}"
    try:
        if processor == "ebpf":
            _go_launcher()
        else:
            _agent_file(language)
    except LaunchUnavailableError as error:
        return str(error)
    return None


def _agent_file(language: str) -> Path:
    key = {"python": "dir", "java": "jar", "node": "register"}[language]
    return _installed(language, key)


def _go_launcher() -> Path:
    # The launcher attaches bin/otel-go-instrumentation, built beside it when clang is present;
    # whether the kernel lets it load its probes is its own preflight (it exits 2 saying why).
    for needed in (GO_EBPF_LAUNCHER, GO_EBPF_LAUNCHER.parent / "otel-go-instrumentation"):
        if not needed.exists():
            raise LaunchUnavailableError(f"{needed} is not built: run `make services` (needs clang and llvm)")
    return GO_EBPF_LAUNCHER


def launch(argv: list[str], cwd: Path, language: str, processor: str, *, cpu_profile: bool = False) -> Launch:
    """The argv and extra environment that run a service in `processor`'s way.

    `cpu_profile`: a Node service gets the on-demand V8 profiler preloaded (the engine sets
    TRACETAX_CPU_PROFILE_DIR itself), so its stacks can be sampled like the demo's."""
    node_options = [f"--require={NODE_PROFILER_PRELOAD}"] if cpu_profile and language == "node" else []
    if processor == "none":
        env = {"OTEL_SDK_DISABLED": "true"}
        description = "as it is, OTEL_SDK_DISABLED=true, no agent"
        return Launch(argv, _with_node_options(env, node_options), description=description)
    if processor == "batch":
        return Launch(argv, _with_node_options({}, node_options), description="as it is (its own SDK)")
    reason = unavailable_reason(language, processor)
    if reason:
        raise LaunchUnavailableError(reason)
    if processor == "ebpf":
        return Launch([str(_go_launcher()), "--", *argv], description="Go eBPF auto-instrumentation by pid")
    if language == "python":
        launched = _python(argv, cwd)
    elif language == "java":
        jar = _agent_file("java")
        launched = Launch(argv, {"JAVA_TOOL_OPTIONS": f"-javaagent:{jar}"}, description=f"the Java agent ({jar.name})")
    else:
        register = _agent_file("node")
        options = _with_node_options({}, [f"--require={register}", *node_options])
        launched = Launch(argv, options, description="auto-instrumentations-node")
    return _with_self_metrics(launched, language)


def _with_self_metrics(launched: Launch, language: str) -> Launch:
    """Turn on the agent's own processed counters (versions.json), and say their cost is included."""
    metrics = {str(k): str(v) for k, v in ((versions().get(language) or {}).get("self_metrics_env") or {}).items()}
    if not metrics:
        return launched
    note = f"{launched.description}; its SDK's own counters on ({', '.join(metrics)}): their cost is included"
    return Launch(launched.argv, launched.env, metrics, note)


def _with_node_options(env: dict[str, str], options: list[str]) -> dict[str, str]:
    return {**env, "NODE_OPTIONS": " ".join(options)} if options else env


def _python(argv: list[str], cwd: Path) -> Launch:
    program = _resolve(argv[0], cwd)
    own = program.parent / "opentelemetry-instrument" if program else None
    if own is not None and own.exists():
        return Launch(
            [str(own), *argv],
            {"PYTHONPATH": str(PYTHON_FLUSH_HOOK)},
            description=f"opentelemetry-instrument of the service's own environment ({own})",
        )
    venv = _agent_file("python")
    site_packages = sorted(venv.glob("lib/python3*/site-packages"))
    if not site_packages:
        raise LaunchUnavailableError(f"{venv} has no site-packages: {INSTALL_HINT}")
    instrument = venv / "bin" / "opentelemetry-instrument"
    # The service's interpreter imports the agent from TraceTax's set: it must be the same
    # Python minor version (docs/your-service.md).
    return Launch(
        [str(instrument), *argv],
        {"PYTHONPATH": os.pathsep.join([str(site_packages[-1]), str(PYTHON_FLUSH_HOOK)])},
        description=f"opentelemetry-instrument of TraceTax's pinned set ({venv.name})",
    )


def _resolve(program: str, cwd: Path) -> Path | None:
    """argv[0] as the kernel will find it: a path (relative to cwd) or a name on PATH."""
    if os.sep in program:
        path = Path(program)
        return (cwd / path) if not path.is_absolute() else path
    found = shutil.which(program)
    return Path(found) if found else None
