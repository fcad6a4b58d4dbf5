"""What the engine runs for a Collector pipeline experiment: each round under span load from
telemetrygen."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracetax.engine.aggregate import RoundData, aggregate_pipeline
from tracetax.engine.round import RoundOutcome, Slot, TogetherSlot
from tracetax.lab import pipelines, telemetrygen
from tracetax.native_stack.components import COLLECTOR_BUILD
from tracetax.spec.collector import PipelineSpec
from tracetax.subjects.collector.runner import PipelineRoundContext, run_pipeline_round


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
        }

    def run_together(self, slot: TogetherSlot) -> dict[str, Any]:
        # Pipeline variants still run one at a time (docs/diagnostics.md, "Side by side").
        return {}

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
