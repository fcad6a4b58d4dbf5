"""What the API answers of a Collector pipeline's results, typed: one variant's aggregates as its
aggregation (subjects/collector/aggregate.py) stores them, each round's span ledger as
lab/ledger.py describes it. (Its diagnostics answer as their model, diagnostics/pipeline.py.)"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.lab.ledger import PipelineLedger
from tracetax.subjects.answers import SideBySideFailure
from tracetax.system.stored_json import OPEN, Number


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
