"""The spec of a Collector pipeline experiment: which pipeline variants, under which span load.

It is the service experiment's spec file with `subject: collector`: the same `name`,
`configurations` (here pipeline variants, one of them the baseline), `load`, `rounds` and
`seed`, run by the same engine in interleaved, shuffled rounds. Every error names its field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator, model_validator

from tracetax.spec.base import SubjectSpec, require_one_baseline_and_unique_names
from tracetax.spec.inputs import (
    FILE_PATH_CHARS,
    IDENTIFIER_CHARS,
    NAME_CHARS,
    SEED_MAX,
    SEED_MIN,
    SETTING_ENTRIES,
    SIDE_BY_SIDE_DEFAULT_MAX_S,
    InputModel,
    SettingKey,
    SettingValue,
    SideBySideTiming,
)
from tracetax.spec.provenance import Provenance

# A ramp step's time besides sending: telemetrygen's start and the settle before reading the queue.
RAMP_STEP_OVERHEAD_S = 1.5
# Starting the lab Collector and stopping it, each round of each variant (the estimate's; published
# with the ramp's step overhead as PipelineSpec's `x-estimate`, which the UI's estimate reads).
PIPELINE_STARTUP_S = 2.0
PIPELINE_STOP_S = 2.0
NAME_PATTERN = r"^[a-z0-9][a-z0-9._%-]{0,39}$"
# The most spans per second one telemetrygen sends, and all of a phase's together (the
# side-by-side phase runs one per variant at once).
MAX_SPANS_PER_S = 1_000_000
# Variables an overlay may read besides the endpoints the lab sets itself.
LAB_SETTING = re.compile(r"^LAB_[A-Z0-9_]+$")
RESERVED_SETTINGS = {
    "LAB_OTLP_GRPC_ENDPOINT",
    "LAB_EXPORT_ENDPOINT",
    "LAB_HEALTH_ENDPOINT",
    "LAB_METRICS_PORT",
    "LAB_DOWNSTREAM_A",
    "LAB_DOWNSTREAM_B",
    "LAB_DOWNSTREAM_NAME",
}


def literal_setting(value: str) -> str:
    """A LAB_* value is taken as it is written. The Collector expands `${env:...}` and
    `${file:...}` in every value it reads, so a `$` could have it read the backend's
    environment or any file and echo it back in an error: refused outright."""
    if "$" in value:
        raise ValueError(
            "setting values are literal: `$` is refused, since the Collector would expand `${...}` "
            "(an environment variable, a file) in it; write the value itself (e.g. 1s, 512)"
        )
    return value


# A LAB_* setting's value; a refusal is located at the setting's key (settings.LAB_...).
LabSettingValue = Annotated[SettingValue, AfterValidator(literal_setting)]


class VariantSpec(InputModel):
    """One pipeline under test: a shipped variant of collector-pipelines/lab, or a user's own
    overlay file over the lab base (it sets `service.pipelines.traces/lab`)."""

    name: str = Field(
        default="",
        pattern=NAME_PATTERN + "|^$",
        description="By default the pipeline's name; required with config_file.",
    )
    pipeline: str | None = Field(
        default=None,
        max_length=IDENTIFIER_CHARS,
        description="A shipped variant (collector-pipelines/lab/<pipeline>.yaml).",
        examples=["batch-default"],
    )
    config_file: str | None = Field(
        default=None,
        max_length=FILE_PATH_CHARS,
        description="A user's overlay over the lab base, instead of `pipeline`: a YAML file on the backend's "
        "host under collector-pipelines/lab/ or TRACETAX_PIPELINE_OVERLAYS_DIR, of at most "
        "TRACETAX_MAX_CONFIG_FILE_BYTES.",
    )
    baseline: bool = False
    settings: dict[SettingKey, LabSettingValue] = Field(
        default_factory=dict,
        max_length=SETTING_ENTRIES,
        description="LAB_* variables the overlay reads, e.g. LAB_MEMORY_LIMIT_MIB for memory-limited. "
        "Values are literal: `$` (the Collector's `${...}` expansion) is refused.",
    )

    @model_validator(mode="after")
    def one_source_and_a_name(self) -> VariantSpec:
        if (self.pipeline is None) == (self.config_file is None):
            raise ValueError("give exactly one of `pipeline` (a shipped variant) and `config_file` (your own overlay)")
        if not self.name:
            if self.pipeline is None:
                raise ValueError("a variant with config_file needs a `name`")
            if not re.match(NAME_PATTERN, self.pipeline):
                raise ValueError(f"pipeline {self.pipeline!r} is no valid name: give a `name`")
            self.name = self.pipeline
        return self

    @field_validator("settings")
    @classmethod
    def only_lab_settings(cls, settings: dict[str, str]) -> dict[str, str]:
        bad = sorted(key for key in settings if not LAB_SETTING.match(key) or key in RESERVED_SETTINGS)
        if bad:
            raise ValueError(
                f"only LAB_* settings that the lab does not set itself may be given, got {', '.join(bad)} "
                "(endpoints and ports are chosen per round)"
            )
        return settings

    @property
    def config_path(self) -> Path | None:
        return Path(self.config_file).expanduser() if self.config_file else None


class RampSpec(InputModel):
    """After the measured phase, steps of rising span rate against the same lab Collector,
    each with a fresh telemetrygen, until the pipeline stops keeping up: the highest
    sustainable rate, and CPU against rate along the way."""

    start_spans_per_s: float | None = Field(
        default=None, gt=0, le=MAX_SPANS_PER_S, description="The first step's rate; by default the measured phase's."
    )
    factor: float = Field(default=1.5, ge=1.05, le=4, description="Each step's rate over the previous one's.")
    step_s: float = Field(default=3, ge=1, le=120, description="How long each step sends.")
    max_spans_per_s: float = Field(
        default=200_000, gt=0, le=MAX_SPANS_PER_S, description="The ramp stops here at the latest."
    )
    max_steps: int = Field(default=12, ge=1, le=40)

    def rates(self, first: float) -> list[float]:
        """The rates the ramp may try, in order (it stops at the first step not kept up with)."""
        rates: list[float] = []
        rate = self.start_spans_per_s or first
        while rate <= self.max_spans_per_s and len(rates) < self.max_steps:
            rates.append(round(rate, 1))
            rate *= self.factor
        return rates


class SpanLoadSpec(SideBySideTiming, InputModel):
    """telemetrygen's load: a constant span rate in traces of a fixed shape."""

    spans_per_s: float = Field(gt=0, le=MAX_SPANS_PER_S, description="Constant span rate sent to the lab Collector.")
    warmup_s: float = Field(default=2, ge=0, le=600)
    duration_s: float = Field(default=20, gt=0, le=3600, description="Measured phase.")
    drain_s: float = Field(
        default=6,
        ge=1,
        le=600,
        description="After the measured phase, how long the pipeline gets to pass on what it holds (a trace-holding "
        "processor's decision wait, the batch timeout) before its counters are read. Longer than any decision wait.",
    )
    spans_per_trace: int = Field(
        default=5, ge=2, le=1000, description="Root span plus children (telemetrygen makes at least one child)."
    )
    attribute_bytes: int = Field(default=0, ge=0, le=65536, description="Bytes of one extra attribute per span.")
    services_per_trace: Literal[1] = Field(
        default=1,
        description="telemetrygen generates every trace under one service name; more are not supported yet.",
    )
    ramp: RampSpec | None = Field(
        default=None,
        description="Find each variant's highest sustainable span rate after the measured phase (off by default).",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="telemetrygen workers (goroutines); by default as many as the rate needs (lab.telemetrygen).",
    )
    side_by_side_s: float | None = Field(
        default=None,
        ge=0,
        le=3600,
        description="Side-by-side phase at the start of every round: every variant's lab Collector live at once on "
        "the lab core, each fed by its own telemetrygen at `spans_per_s`, so that cores per 10k spans/s and peak RSS "
        "are paired under the same core speed (docs/diagnostics.md). Unset: as long as `duration_s`, at most 10 s. "
        "0 measures them one at a time, as lost spans and the ramp always are.",
    )
    side_by_side_warmup_s: float | None = Field(
        default=None,
        ge=0,
        le=600,
        description="Warm-up of the side-by-side phase, every variant at once. Unset: as long as `warmup_s`.",
    )


class PipelineSpec(SubjectSpec):
    model_config = ConfigDict(
        json_schema_extra={
            "x-estimate": {
                "startup_s": PIPELINE_STARTUP_S,
                "stop_s": PIPELINE_STOP_S,
                "ramp_step_overhead_s": RAMP_STEP_OVERHEAD_S,
                "side_by_side_default_max_s": SIDE_BY_SIDE_DEFAULT_MAX_S,
            }
        }
    )

    subject: Literal["collector"]
    name: str | None = Field(default=None, max_length=NAME_CHARS)
    configurations: list[VariantSpec] = Field(min_length=1, max_length=12)
    load: SpanLoadSpec
    rounds: int = Field(default=5, ge=1, le=50, description="Interleaved rounds, as for services.")
    seed: int = Field(default=0, ge=SEED_MIN, le=SEED_MAX)
    provenance: Provenance | None = Field(
        default=None, description="Where the run came from, as for services: stored beside the spec, not in it."
    )

    @model_validator(mode="after")
    def one_baseline_and_unique_names(self) -> PipelineSpec:
        require_one_baseline_and_unique_names(self.configurations)
        return self

    @property
    def baseline(self) -> VariantSpec:
        return next(v for v in self.configurations if v.baseline)

    def configuration(self, name: str) -> VariantSpec:
        return next(v for v in self.configurations if v.name == name)

    def estimated_seconds(self, startup_s: float = PIPELINE_STARTUP_S) -> float:
        load = self.load
        per_run = startup_s + load.warmup_s + load.duration_s + load.drain_s + PIPELINE_STOP_S
        if load.ramp is not None:
            # Every step may run: the estimate is an upper bound.
            per_run += len(load.ramp.rates(load.spans_per_s)) * (load.ramp.step_s + RAMP_STEP_OVERHEAD_S)
        return (per_run * len(self.configurations) + self.side_by_side_seconds(startup_s)) * self.rounds

    def side_by_side_seconds(self, startup_s: float = PIPELINE_STARTUP_S) -> float:
        """Rough wall time of one round's side-by-side phase (0 when it does not run): every
        variant's Collectors start one after another, then warm-up, window and stop."""
        if not self.runs_side_by_side():
            return 0.0
        load = self.load
        starts = startup_s * len(self.configurations)
        return starts + load.side_by_side_warmup_seconds + load.side_by_side_seconds + PIPELINE_STOP_S

    def runs_side_by_side(self) -> bool:
        """Whether each round starts with the side-by-side phase: asked for and more than one variant."""
        return self.load.side_by_side_seconds > 0 and len(self.configurations) > 1

    def side_by_side_loads(self) -> int:
        """The telemetrygens the side-by-side phase runs at once, one per variant (0 when it does not run)."""
        return len(self.configurations) if self.runs_side_by_side() else 0

    def spans_by_phase(self) -> dict[str, tuple[float, float]]:
        """Each phase's (seconds, spans all of its telemetrygens send), by the field under `load`
        giving its length: a variant's warm-up and measured phase, the ramp's fastest step
        ("ramp.step_s") and, when it runs, the side-by-side phase's warm-up and window."""
        load = self.load
        phases = {
            "warmup_s": (load.warmup_s, load.spans_per_s * load.warmup_s),
            "duration_s": (load.duration_s, load.spans_per_s * load.duration_s),
        }
        rates = load.ramp.rates(load.spans_per_s) if load.ramp is not None else []
        if load.ramp is not None and rates:
            phases["ramp.step_s"] = (load.ramp.step_s, max(rates) * load.ramp.step_s)
        loads = self.side_by_side_loads()
        if loads:
            for field, seconds in (
                ("side_by_side_warmup_s", load.side_by_side_warmup_seconds),
                ("side_by_side_s", load.side_by_side_seconds),
            ):
                phases[field] = (seconds, load.spans_per_s * seconds * loads)
        return phases

    def spans_per_round(self) -> float:
        """Spans one round may send: each variant's warm-up, measured phase and every ramp step
        (the ramp may run them all), and the side-by-side phase."""
        load = self.load
        own = load.spans_per_s * (load.warmup_s + load.duration_s)
        if load.ramp is not None:
            own += sum(load.ramp.rates(load.spans_per_s)) * load.ramp.step_s
        together = sum(spans for field, (_, spans) in self.spans_by_phase().items() if field.startswith("side_by_side"))
        return own * len(self.configurations) + together

    def max_spans(self) -> float:
        """Spans the whole experiment may send."""
        return self.spans_per_round() * self.rounds

    def planned_looks(self) -> tuple[int, ...]:
        """A pipeline experiment runs its `rounds` (a precision is for services so far)."""
        return (self.rounds,)

    def budgeted_seconds(self) -> float:
        return self.estimated_seconds()
