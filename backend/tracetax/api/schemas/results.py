"""What GET …/results answers, typed: the aggregates, ledgers and ramps the engine and the lab
store as JSON, described where the API reads them so the OpenAPI (and the UI's generated types)
says what they hold.

They are TypedDicts, not models, because they describe stored dicts as they are: a key absent
from an older result stays absent (NotRequired) instead of coming back as a null, and keys a
newer producer adds pass through (extra="allow"). Producers: engine/aggregate.py (the
configurations' figures), engine/sampler.py (samples), lab/ledger.py (a pipeline round's
ledger), lab/ramp.py (a ramp's steps), diagnostics/pipeline_traces.py (what reached Tempo).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import ConfigDict, Discriminator, Tag, WithJsonSchema, with_config
from typing_extensions import TypedDict

# A JSON number as stored: an int stays an int (1, not 1.0), so the answer is the same text
# as before these types; `float` alone would turn every stored int into a float.
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]
OPEN = ConfigDict(extra="allow")

# -- A service's configurations (engine/aggregate.py `aggregate_configuration`) ----------------

# The merged histogram's summary, microseconds; percentile keys as histogram.percentile_key writes them.
LatencySummary = TypedDict(
    "LatencySummary",
    {
        "count": int,
        "mean": Number,
        "min": Number,
        "max": Number,
        "p50": NotRequired[Number],
        "p90": NotRequired[Number],
        "p99": NotRequired[Number],
        "p99.9": NotRequired[Number],
        "p99.99": NotRequired[Number],
    },
)
with_config(OPEN)(LatencySummary)


@with_config(OPEN)
class PerRoundAggregate(TypedDict):
    round: int
    requests: int | None
    achieved_rps: Number | None
    p99_us: Number | None
    max_throughput_rps: Number | None
    # What limited the round's closed-loop phase; absent in results stored before it was kept.
    max_throughput_limited_by: NotRequired[str | None]
    cpu_per_request_us: Number | None
    cpu_utilization: Number | None
    rss_max_bytes: Number | None
    ctx_per_request: Number | None


@with_config(OPEN)
class ThreadGroupFigures(TypedDict):
    """One thread group: the most threads it had in a round, the rounds it ran in, medians over
    them; per span only where the spans a request makes are known (null: unknown, never 0)."""

    threads: int
    rounds: int
    cpu_per_request_us: Number | None
    ctx_per_request: Number | None
    cpu_per_span_us: Number | None
    ctx_per_span: Number | None


@with_config(OPEN)
class SideBySideRound(TypedDict):
    round: int
    # The configuration's live instances in the phase (load.side_by_side_instances), pooled in
    # the figures below; `requests` is theirs together, `achieved_rps` one instance's mean.
    instances: int
    requests: int | None
    achieved_rps: Number | None
    cpu_per_request_us: Number | None
    rss_max_bytes: Number | None
    p50_us: Number | None
    p99_us: Number | None
    # Busy shares (0-1) over the phase: `service` (its cores), `load_generator` (its core) and
    # `configurations` (each configuration's own share of a core).
    utilisation: dict[str, Any] | None
    # Too busy for its latency to be paired: that round's p50 comes from the solo phases.
    latency_flagged: bool


@with_config(OPEN)
class SideBySideFailure(TypedDict):
    round: int
    error: str


@with_config(OPEN)
class SideBySideAggregate(TypedDict):
    """The configuration in its rounds' side-by-side phases (engine/aggregate.py
    `side_by_side_summary`): what CPU per request, RSS and p50 are paired from."""

    rounds: int
    cpu_per_request_us: Number | None
    rss_max_bytes: Number | None
    p50_us: Number | None
    latency_flagged_rounds: list[int]
    failed_rounds: list[SideBySideFailure]
    per_round: list[SideBySideRound]


@with_config(OPEN)
class ConfigurationAggregates(TypedDict):
    """A service configuration over its completed rounds."""

    configuration: str
    rounds_completed: int
    rounds_failed: int
    requests: int
    errors: int
    latency_us: LatencySummary
    # [percentile (0..100), latency µs] from the merged HDR histogram.
    percentile_curve: list[tuple[Number, Number]]
    histogram: str | None
    max_throughput_rps: Number | None
    max_throughput_limited_by: NotRequired[list[str]]
    cpu_per_request_us: Number | None
    cpu_utilization: Number | None
    rss_max_bytes: Number | None
    ctx_per_request: Number | None
    # Per thread group (a thread name, trailing digits as `*`); absent in results stored before
    # thread groups were measured.
    thread_groups: NotRequired[dict[str, ThreadGroupFigures]]
    per_round: list[PerRoundAggregate]
    # Null when its rounds had no side-by-side phase (one configuration, side_by_side_s 0, a
    # service with a fixed port); absent in results stored before the phase existed.
    side_by_side: NotRequired[SideBySideAggregate | None]


# -- A Collector pipeline's variants (engine/aggregate.py `aggregate_variant`, lab/ledger.py) ---


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
    """The variant in its rounds' side-by-side phases (engine/aggregate.py
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


def _subject_of(aggregates: Any) -> str:
    """Which subject's figures these are: a pipeline variant's carry `subject: collector`."""
    subject = aggregates.get("subject") if isinstance(aggregates, dict) else None
    return "collector" if subject == "collector" else "service"


# One configuration's figures, the subject's shape (picked by `subject`, absent for a service).
AnyConfigurationAggregates = Annotated[
    Annotated[ConfigurationAggregates, Tag("service")] | Annotated[PipelineAggregates, Tag("collector")],
    Discriminator(_subject_of),
]

# -- A round's raw record ---------------------------------------------------------------------


@with_config(OPEN)
class RampStep(TypedDict, total=False):
    """One step of a pipeline round's ramp (lab/ramp.py): a rate held, and whether the pipeline kept up."""

    spans_per_s: Number
    achieved_spans_per_s: Number | None
    cpu_cores: Number | None
    rss_max_bytes: Number | None
    refused: Number | None
    send_failed: Number | None
    enqueue_failed: Number | None
    queue_size: Number | None
    sustained: bool | None
    limited_by: str | None
    why: str | None


@with_config(OPEN)
class ClosedPhase(TypedDict, total=False):
    """A round's closed-loop phase: a service's maximum throughput, or a pipeline's ramp."""

    ramp: list[RampStep]
    max_sustainable_spans_per_s: Number | None
    limited_by: str | None
    why: str | None


@with_config(OPEN)
class OpenPhase(TypedDict, total=False):
    """A round's measured phase, under the key a round's answer has always had (its subject's
    figures, engine/figures.py): a service's open-model phase as the load driver summarised it,
    or a pipeline's measured window with its span ledger (lab/ledger.py)."""

    # A service's
    requests: int
    errors: int
    duration_s: Number
    achieved_rps: Number
    # {percentiles_us: {"99": µs, ...}, ...}
    summary: dict[str, Any]
    # A pipeline's: telemetrygen's record, the lab Collector's telemetry and the ledger.
    generator: dict[str, Any]
    window_s: Number
    telemetry: dict[str, Any]
    ledger: dict[str, Any]


@with_config(OPEN)
class ResourceSample(TypedDict):
    """One resource sample of a round (engine/sampler.py); CPU is cumulative."""

    # Seconds since the sampler started.
    t: Number
    cpu_user_s: Number
    cpu_system_s: Number
    rss_bytes: int
    ctx_voluntary: int
    ctx_involuntary: int
    threads: int
    # Per thread name: [user s, system s].
    by_thread: dict[str, tuple[Number, Number]]
    loadgen_cpu_s: NotRequired[Number]


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
