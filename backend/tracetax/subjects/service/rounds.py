"""What the engine runs for a service experiment: each round under HTTP load from oha."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics.service_figures import ServiceSideBySide
from tracetax.engine.aggregate import RoundData
from tracetax.engine.loadgen import LoadDriver
from tracetax.engine.round import RoundOutcome, Slot, TogetherSlot
from tracetax.engine.settle import Settle
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.service.aggregate import aggregate
from tracetax.subjects.service.answers import ConfigurationAggregates
from tracetax.subjects.service.runner import RoundContext, run_round
from tracetax.subjects.service.side_by_side import SIDE_RUN_SUFFIX, run_side_by_side
from tracetax.subjects.service.versions import configuration_versions


@dataclass
class ServiceRounds:
    spec: ExperimentSpec
    manifest: ServiceManifest | None
    driver: LoadDriver
    otlp_endpoint: str
    settle: Settle

    def environment(self) -> dict[str, Any]:
        return {
            "load_generator": {"name": self.driver.name, "version": self.driver.version()},
            "service_sdk": self.manifest.sdk_version if self.manifest else None,
            # Per configuration, the SDK or zero-code agent it ran (None: none ran, or unknown).
            "configurations": configuration_versions(self.spec, self.manifest),
        }

    def _context(self, configuration: str, slot: Slot | TogetherSlot, run_id: str, workdir: Path) -> RoundContext:
        return RoundContext(
            spec=self.spec,
            configuration=self.spec.configuration(configuration),
            manifest=self.manifest,
            run_id=run_id,
            workdir=workdir,
            otlp_endpoint=self.otlp_endpoint,
            placement=slot.placement,
            driver=self.driver,
            settle=self.settle,
            cancel=slot.cancel,
            report=slot.report,
        )

    def run_together(self, slot: TogetherSlot) -> dict[str, Any]:
        if not self.spec.runs_side_by_side():
            return {}
        contexts = [
            self._context(name, slot, f"{slot.run_ids[name]}{SIDE_RUN_SUFFIX}", slot.workdir / name)
            for name in slot.configurations
        ]
        return run_side_by_side(slot, contexts)

    def run_round(self, slot: Slot) -> RoundOutcome:
        ctx = self._context(slot.configuration, slot, slot.run_id, slot.workdir)
        if isinstance(slot.together, ServiceSideBySide):
            ctx.figures.side_by_side = slot.together
        return run_round(ctx)

    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, ConfigurationAggregates]:
        spans = self.spec.spans_per_request()
        per_configuration = {c.name: spans if c.exports("traces") else None for c in self.spec.configurations}
        return aggregate([c.name for c in self.spec.configurations], rounds, per_configuration)
