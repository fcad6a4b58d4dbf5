"""What the engine runs for a service experiment: each round under HTTP load from oha."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracetax.demos.catalog import ServiceManifest
from tracetax.engine.aggregate import RoundData, aggregate
from tracetax.engine.loadgen import LoadDriver
from tracetax.engine.round import RoundOutcome, Slot
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.runner import RoundContext, run_round


@dataclass
class ServiceRounds:
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
