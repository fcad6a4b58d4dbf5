"""What GET …/results answers, typed: each configuration's aggregates as its subject
describes them (its `answers.py`, looked up in the registry), and a round's raw record.

A round's record is TypedDicts, not models, because it describes stored dicts as they are: a
key absent from an older result stays absent (NotRequired) instead of coming back as a null,
and keys a newer producer adds pass through (extra="allow"). Producers: each subject's
aggregation (the configurations' figures), engine/sampler.py (samples), its rounds (the phases).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from tracetax.api.schemas.by_subject import by_subject
from tracetax.lab.ledger import PipelineLedger
from tracetax.lab.ramp import RampStep
from tracetax.subjects.registry import SUBJECTS
from tracetax.system.stored_json import OPEN, Number

if TYPE_CHECKING:
    AnyConfigurationAggregates = dict[str, Any]
else:
    # One configuration's figures, the subject's shape (picked by `subject`).
    AnyConfigurationAggregates = by_subject(
        {name: subject.results.aggregates_answer for name, subject in SUBJECTS.items()}
    )

# -- A round's raw record ---------------------------------------------------------------------


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
    ledger: PipelineLedger


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
