"""What can be measured: the demo services under instrumented-services/, from their manifests.

Each service folder holds a `service.json` saying how to build it and which argv runs each
OpenTelemetry mode; the engine sets TRACETAX_PROCESSOR=<mode>, PORT and OTEL_* itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from tracetax.system.paths import REPO_ROOT

SERVICES_DIR = REPO_ROOT / "instrumented-services"


class Signals(BaseModel):
    """What a mode produces per request, when it differs from the demo contract (K spans, one
    log record, the request counter): eBPF instrumentation sees only the server span."""

    spans_per_request: int | None = None
    span_name: str | None = None
    logs: bool = True
    metrics: bool = True


class ModeSpec(BaseModel):
    argv: list[str] = Field(default_factory=list)
    # Files (relative to the service folder) the mode needs at run time; the mode is reported
    # unavailable, with the reason, when one is missing (e.g. an agent that could not be built).
    needs_files: list[str] = Field(default_factory=list)
    requires: str | None = None
    signals: Signals = Field(default_factory=Signals)
    available: bool = True
    # Why the mode cannot run here (e.g. the kernel refuses eBPF), when not available.
    why: str | None = None
    # When this mode counts dropped spans differently from the service's default (the Java
    # agent's own SDK, for one): a PromQL selector like ServiceManifest.dropped_spans_metric.
    dropped_spans_metric: str | None = None

    @model_validator(mode="after")
    def runnable_or_explained(self) -> ModeSpec:
        if self.available and not self.argv:
            raise ValueError("an available mode needs an argv")
        if not self.available and not self.why:
            raise ValueError("an unavailable mode must say why")
        return self


class Profiling(BaseModel):
    tool: str
    command: str
    # The stack sampler the engine runs in each measured phase (tracetax.profiling.samplers).
    sampler: Literal["go-pprof", "py-spy", "jfr", "v8-cpu-prof"] | None = None


ConcurrencyKnob = Literal["threads", "workers", "gomaxprocs"]


class ServiceManifest(BaseModel):
    language: str
    framework: str
    sdk_version: str | None = None
    build: list[str] = Field(min_length=1)
    modes: dict[str, ModeSpec]
    queue_full: str | None = None
    # PromQL selector of the SDK's dropped-span counter as it lands in the metrics store, e.g.
    # `otel_sdk_processor_span_processed_total{error_type="queue_full"}`; None if the SDK has none.
    dropped_spans_metric: str | None = None
    profiling: Profiling | None = None
    # The variable that makes every /work request busy-wait that many microseconds (an integer
    # 0..1000000; a known cost, for checking what the harness measures), when the service has one.
    inject_busy_wait: str | None = None
    # The request-concurrency knobs the service honours (a spec's `concurrency` fields) and the
    # variable each is passed in: `threads` (request worker threads), `workers` (worker
    # processes sharing the port), `gomaxprocs` (Go's GOMAXPROCS).
    concurrency: dict[ConcurrencyKnob, str] = Field(default_factory=dict)
    # Filled in by the loader: the service's folder (argv paths are relative to it).
    directory: Path = Path()

    def mode(self, name: str) -> ModeSpec:
        try:
            return self.modes[name]
        except KeyError:
            accepted = ", ".join(sorted(self.modes))
            raise UnknownModeError(f"{self.language} has no mode {name!r}; accepted: {accepted}") from None

    def dropped_spans_selector(self, mode: str) -> str | None:
        return self.mode(mode).dropped_spans_metric or self.dropped_spans_metric

    def argv(self, mode: str) -> list[str]:
        """argv of `mode`; relative paths in it are relative to the service folder (the cwd)."""
        return list(self.mode(mode).argv)


class CatalogError(RuntimeError):
    """A manifest is missing or invalid; the message names the file and the field."""


class UnknownModeError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def load_manifest(directory: Path) -> ServiceManifest:
    path = directory / "service.json"
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise CatalogError(f"{path}: cannot read the service manifest: {error}") from error
    try:
        manifest = ServiceManifest.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise CatalogError(f"{path}: invalid service manifest: {problems}") from error
    manifest.directory = directory
    for name, mode in manifest.modes.items():
        missing = [needed for needed in mode.needs_files if not (directory / needed).exists()]
        if mode.available and missing:
            mode.available = False
            mode.why = f"{', '.join(missing)} not built ({mode.requires or 'see the service README'})"
            manifest.modes[name] = mode
    return manifest


def demo_services(root: Path = SERVICES_DIR) -> dict[str, ServiceManifest]:
    """Every demo service by language, in name order."""
    return {
        manifest.language: manifest
        for manifest in (load_manifest(d) for d in sorted(root.iterdir()) if (d / "service.json").exists())
    }
