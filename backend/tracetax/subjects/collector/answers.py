"""What the API answers of a Collector pipeline, typed: one variant's aggregates
(subjects/collector/aggregate.py), a round's span ledger (lab/ledger.py), what reached Tempo
(diagnostics/pipeline_traces.py) and the diagnostics with those typed to their leaves."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, with_config
from typing_extensions import TypedDict

from tracetax.diagnostics.overhead import Change, NoiseFloor
from tracetax.diagnostics.pipeline import SpanDelay
from tracetax.diagnostics.pipeline_recommend import PipelineRecommendation
from tracetax.diagnostics.rounds import SideBySideUse
from tracetax.subjects.answers import SideBySideFailure
from tracetax.system.stored_json import OPEN, Number


@with_config(OPEN)
class ReceiverFlow(TypedDict):
    accepted: Number | None
    refused: Number | None
    not_received: Number | None


@with_config(OPEN)
class ProcessorFlow(TypedDict):
    incoming: Number | None
    outgoing: Number | None
    held_or_dropped: Number | None


@with_config(OPEN)
class ExporterFlow(TypedDict):
    sent: Number | None
    send_failed: Number | None
    enqueue_failed: Number | None
    # Left in the queue after the drain.
    queue_size: Number | None


@with_config(OPEN)
class DownstreamFlow(TypedDict):
    accepted: Number | None
    by_collector: dict[str, Number | None]
    sent: Number | None
    send_failed: Number | None


@with_config(OPEN)
class PipelineLedger(TypedDict, total=False):
    """Where a round's spans went, stage by stage, after the drain; a key is absent where the
    round stored no ledger of it."""

    generated: Number | None
    receiver: ReceiverFlow
    # Spans into and out of each processor of the lab pipeline.
    processors: dict[str, ProcessorFlow]
    # Each processor's own counters, as the Collector names them.
    processor_counters: dict[str, Number]
    exporter: ExporterFlow
    downstream: DownstreamFlow
    # Generated and never arrived downstream (a sampling pipeline's kept-out traces too).
    not_arrived: Number | None
    left_out_by_policy: Number | None
    # What a stage reports losing (sampling pipelines), else what never arrived.
    lost: Number | None
    kept_ratio: Number | None


@with_config(OPEN)
class RampPoint(TypedDict):
    """A step of a round's ramp as the aggregates keep it: what a capacity plan reads."""

    spans_per_s: Number
    achieved_spans_per_s: Number | None
    cpu_cores: Number | None
    rss_max_bytes: Number | None
    sustained: bool | None
    why: str | None


@with_config(OPEN)
class PipelinePerRound(TypedDict):
    round: int
    cpu_cores: Number | None
    spans_per_s: Number | None
    spans_per_s_per_core: Number | None
    cores_per_10k_spans_s: Number | None
    rss_max_bytes: Number | None
    rss_steady_bytes: Number | None
    downstream_cpu_cores: Number | None
    ledger: PipelineLedger | None
    generator: dict[str, Any] | None
    max_sustainable_spans_per_s: NotRequired[Number | None]
    # What stopped this round's ramp; null without one.
    ramp_limited_by: NotRequired[str | None]
    # CPU against rate along this round's ramp; empty (or null, in results stored before it) without one.
    ramp: NotRequired[list[RampPoint] | None]


@with_config(OPEN)
class LedgerTotals(TypedDict):
    generated: Number | None
    lost: Number | None
    not_arrived: Number | None


@with_config(OPEN)
class PipelineSideBySideRound(TypedDict):
    round: int
    cores_per_10k_spans_s: Number | None
    cpu_cores: Number | None
    spans_per_s: Number | None
    rss_max_bytes: Number | None
    # Busy shares (0-1) over the phase: `service` (the lab core), `load_generator` (its core) and
    # `configurations` (each variant's lab Collector's own share of a core).
    utilisation: dict[str, Any] | None
    generator_saturated: bool | None
    note: str | None


@with_config(OPEN)
class PipelineSideBySideAggregate(TypedDict):
    """The variant in its rounds' side-by-side phases (subjects/collector/aggregate.py
    `pipeline_side_by_side_summary`): what cores per 10k spans/s and peak RSS are paired from."""

    rounds: int
    cores_per_10k_spans_s: Number | None
    cpu_cores: Number | None
    spans_per_s: Number | None
    rss_max_bytes: Number | None
    failed_rounds: list[SideBySideFailure]
    per_round: list[PipelineSideBySideRound]


@with_config(OPEN)
class PipelineAggregates(TypedDict):
    """A pipeline variant over its completed rounds (medians; the ledger's totals summed, null if unknown)."""

    configuration: str
    subject: Literal["collector"]
    rounds_completed: int
    rounds_failed: int
    # The lab Collector's cores over the measured phase.
    cpu_cores: Number | None
    # Spans per second the lab Collector's receiver accepted.
    spans_per_s: Number | None
    spans_per_s_per_core: Number | None
    cores_per_10k_spans_s: Number | None
    rss_max_bytes: Number | None
    # Median RSS over the second half of the measured phase.
    rss_steady_bytes: Number | None
    downstream_cpu_cores: Number | None
    kept_ratio: Number | None
    # From the ramp, when there was one.
    max_sustainable_spans_per_s: NotRequired[Number | None]
    ramp_limited_by: NotRequired[list[str]]
    # telemetrygen could not deliver the rate in some round.
    generator_saturated: bool
    ledger_totals: LedgerTotals
    per_round: list[PipelinePerRound]
    # Null when its rounds had no side-by-side phase (one variant, side_by_side_s 0); absent in
    # results stored before the phase existed.
    side_by_side: NotRequired[PipelineSideBySideAggregate | None]


# -- What reached Tempo (diagnostics/pipeline_traces.py), a pipeline ledger entry's `stored` ---


@with_config(OPEN)
class StoredTraces(TypedDict, total=False):
    """What of a round reached Tempo; {error} alone when Tempo did not answer."""

    error: str
    # Search stopped at its limit: no span count; the checks below are on a sample.
    uncounted: str
    traces_found: int | None
    traces_checked: int
    stored_spans: int | None
    # False: counted from search matches, not from every trace fetched whole.
    stored_spans_exact: bool
    complete_traces: int
    incomplete_examples: list[str]
    whole_on_one_downstream: int
    traces_by_downstream: dict[str, int]
    split_examples: list[str]
    unmarked_traces: int
    delay_spans: int
    delay_p50_us: Number | None
    delay_p99_us: Number | None
    delay_max_us: Number | None
    sample_trace_ids: list[str]


# -- The diagnostics (diagnostics/pipeline.py builds them with a round's ledger and read-back as
# the dicts lab/ledger.py and pipeline_traces.py write; these describe the same answer with
# those dicts typed, so the OpenAPI says what they hold. extra="allow": a field the producer
# adds passes through rather than being dropped) ------------------------------------------------


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
