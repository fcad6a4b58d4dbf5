"""What the API answers of a service's results, typed: one configuration's aggregates as
its aggregation (subjects/service/aggregate.py) stores them."""

from __future__ import annotations

from typing import Any, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.subjects.answers import SideBySideFailure
from tracetax.system.stored_json import OPEN, Number

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
class SideBySideAggregate(TypedDict):
    """The configuration in its rounds' side-by-side phases (subjects/service/aggregate.py
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
