"""What the engine runs for a Collector pipeline experiment: each round under span load from
telemetrygen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracetax.diagnostics.pipeline_figures import PipelineSideBySide
from tracetax.engine.aggregate import RoundData
from tracetax.engine.round import RoundOutcome, Slot, TogetherSlot
from tracetax.lab import pipelines, telemetrygen
from tracetax.native_stack.components import COLLECTOR_BUILD
from tracetax.spec.collector import PipelineSpec
from tracetax.subjects.collector.aggregate import aggregate_pipeline
from tracetax.subjects.collector.answers import PipelineAggregates
from tracetax.subjects.collector.runner import PipelineRoundContext, run_pipeline_round
from tracetax.subjects.collector.side_by_side import run_side_by_side
from tracetax.subjects.together import side_run_id


@dataclass
class PipelineRounds:
    spec: PipelineSpec
    # Where the downstream Collectors send on: the stack's Collector (OTLP gRPC), then Tempo.
    export_endpoint: str
    # Where a variant's config_file may come from (the backend's settings).
    overlays: pipelines.OverlayPolicy

    def environment(self) -> dict[str, Any]:
        return {
            "load_generator": {"name": "telemetrygen", "version": telemetrygen.telemetrygen_binary().name},
            "collector": COLLECTOR_BUILD.binary_name,
            # Per variant, what it ran: every variant runs the lab's one Collector build.
            "configurations": {
                variant.name: {"collector": COLLECTOR_BUILD.binary_name} for variant in self.spec.configurations
            },
        }

    def _context(self, variant: str, slot: Slot | TogetherSlot, run_id: str, workdir: Path) -> PipelineRoundContext:
        return PipelineRoundContext(
            spec=self.spec,
            variant=self.spec.configuration(variant),
            run_id=run_id,
            workdir=workdir,
            export_endpoint=self.export_endpoint,
            overlays=self.overlays,
            placement=slot.placement,
            cancel=slot.cancel,
            report=slot.report,
        )

    def run_together(self, slot: TogetherSlot) -> dict[str, Any]:
        """Every variant's lab Collector at once on the lab core (side_by_side.py); its spans
        carry `<run id>-side`, so the round's ledger and Tempo read-back never count them."""
        if not self.spec.runs_side_by_side():
            return {}
        contexts = [
            self._context(name, slot, side_run_id(slot.run_ids[name]), slot.workdir / name)
            for name in slot.configurations
        ]
        return run_side_by_side(slot, contexts)

    def run_round(self, slot: Slot) -> RoundOutcome:
        ctx = self._context(slot.configuration, slot, slot.run_id, slot.workdir)
        if isinstance(slot.together, PipelineSideBySide):
            ctx.figures.side_by_side = slot.together
        return run_pipeline_round(ctx)

    def aggregate(self, rounds: Sequence[RoundData]) -> dict[str, PipelineAggregates]:
        return aggregate_pipeline([c.name for c in self.spec.configurations], rounds)
