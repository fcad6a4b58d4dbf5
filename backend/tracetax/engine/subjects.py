"""What an experiment measures: a service (under HTTP load from oha) or a Collector pipeline
(under span load from telemetrygen). The engine runs both the same way, with the same queue,
interleaved rounds, storage and progress; a subject supplies only what differs: how one
round runs, how its rounds aggregate, and what it records about the environment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tracetax.demos.catalog import ServiceManifest
from tracetax.engine.aggregate import RoundData, aggregate, aggregate_pipeline
from tracetax.engine.loadgen import LoadDriver
from tracetax.engine.pipeline_runner import PipelineRoundContext, run_pipeline_round
from tracetax.engine.runner import RoundContext, RoundOutcome, run_round
from tracetax.lab import pipelines, telemetrygen
from tracetax.native_stack.components import COLLECTOR_BUILD
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import AnySpec, DemoServiceRef, ExperimentSpec
from tracetax.system.placement import Placement

Report = Callable[[str, float | None, dict[str, Any]], None]


@dataclass
class Slot:
    """One (round, configuration) to run, as the engine hands it to a subject."""

    configuration: str
    run_id: str
    workdir: Path
    placement: Placement
    cancel: threading.Event
    report: Report


class Subject(Protocol):
    def environment(self) -> dict[str, Any]: ...
    def run_round(self, slot: Slot) -> RoundOutcome: ...
    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]: ...


def subject_label(spec: AnySpec) -> str:
    """What the experiments list shows as the subject: a language, "command" or "collector"."""
    if isinstance(spec, PipelineSpec):
        return "collector"
    return spec.service.language if isinstance(spec.service, DemoServiceRef) else "command"


@dataclass
class ServiceSubject:
    spec: ExperimentSpec
    manifest: ServiceManifest | None
    driver: LoadDriver
    otlp_endpoint: str

    def environment(self) -> dict[str, Any]:
        return {
            "load_generator": {"name": self.driver.name, "version": self.driver.version()},
            "service_sdk": self.manifest.sdk_version if self.manifest else None,
        }

    def run_round(self, slot: Slot) -> RoundOutcome:
        return run_round(
            RoundContext(
                spec=self.spec,
                configuration=self.spec.configuration(slot.configuration),
                manifest=self.manifest,
                run_id=slot.run_id,
                workdir=slot.workdir,
                otlp_endpoint=self.otlp_endpoint,
                placement=slot.placement,
                driver=self.driver,
                cancel=slot.cancel,
                report=slot.report,
            )
        )

    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]:
        spans = self.spec.spans_per_request()
        per_configuration = {c.name: spans if c.exports("traces") else None for c in self.spec.configurations}
        return aggregate([c.name for c in self.spec.configurations], rounds, per_configuration)


@dataclass
class PipelineSubject:
    spec: PipelineSpec
    # Where the downstream Collectors send on: the stack's Collector (OTLP gRPC), then Tempo.
    export_endpoint: str
    # Where a variant's config_file may come from (the backend's settings).
    overlays: pipelines.OverlayPolicy

    def environment(self) -> dict[str, Any]:
        return {
            "load_generator": {"name": "telemetrygen", "version": telemetrygen.telemetrygen_binary().name},
            "collector": COLLECTOR_BUILD.binary_name,
        }

    def run_round(self, slot: Slot) -> RoundOutcome:
        return run_pipeline_round(
            PipelineRoundContext(
                spec=self.spec,
                variant=self.spec.configuration(slot.configuration),
                run_id=slot.run_id,
                workdir=slot.workdir,
                export_endpoint=self.export_endpoint,
                overlays=self.overlays,
                placement=slot.placement,
                cancel=slot.cancel,
                report=slot.report,
            )
        )

    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, dict[str, Any]]:
        return aggregate_pipeline([c.name for c in self.spec.configurations], rounds)
