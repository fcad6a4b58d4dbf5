"""What GET …/diagnostics answers for a Collector pipeline, typed to the leaves.

diagnostics/pipeline.py builds the answer and keeps a round's ledger and its read-back as the
dicts lab/ledger.py and pipeline_traces.py write; these models describe the same answer with
those dicts typed (api/schemas/results.py), so the OpenAPI says what they hold. extra="allow":
a field the producer adds passes through rather than being dropped.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from tracetax.api.schemas.results import PipelineLedger, StoredTraces
from tracetax.diagnostics.overhead import Change, NoiseFloor
from tracetax.diagnostics.pipeline import SpanDelay
from tracetax.diagnostics.pipeline_recommend import PipelineRecommendation
from tracetax.diagnostics.rounds import SideBySideUse


class PipelineRoundLedger(BaseModel):
    model_config = ConfigDict(extra="allow")

    configuration: str
    round: int
    run_id: str
    # generated -> receiver -> processors -> exporter -> downstream
    ledger: PipelineLedger
    # What reached Tempo, read after the run: None until collected; {error} when Tempo did not answer.
    stored: StoredTraces | None = None


class PipelineDiagnostics(BaseModel):
    """diagnostics.pipeline.PipelineDiagnostics as answered (see there for each field)."""

    model_config = ConfigDict(extra="allow")

    subject: Literal["collector"] = "collector"
    experiment_id: str
    baseline: str
    overhead: dict[str, dict[str, Change]]
    noise_floor: dict[str, NoiseFloor]
    flagged_rounds: list[str]
    stack_down_rounds: list[str] = []
    saturated_rounds: list[str]
    ledger: list[PipelineRoundLedger]
    span_delay: dict[str, SpanDelay]
    recommendation: PipelineRecommendation
    # Which figures were paired from the rounds' side-by-side phases; None without such a phase.
    side_by_side: SideBySideUse | None = None
