"""A tuning run's request: the service, its traffic (a burst included), the budgets and the
wall time it may take. Read by `tracetax tune SPEC` (YAML or JSON)."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from tracetax.spec.inputs import ENV_ENTRIES, NAME_CHARS, EnvKey, EnvValue, InputModel
from tracetax.spec.otel_env import local_variable_errors
from tracetax.spec.service import Concurrency, LoadSpec, ServiceRef
from tracetax.tuning.halving import REFERENCES, Costs, minimum_wall_time_s

# Seconds a round spends beyond its phases: start, health, stop, settle; the engine's own estimate
# (ExperimentSpec.estimated_seconds). A service slow to start (a JVM) takes longer than planned.
ROUND_OVERHEAD_S = 5.0
# Seconds an experiment spends after its last round: the ledger's wait for the stores
# (TRACETAX_LEDGER_SETTLE_S, 5 s by default from its last telemetry) and the reading.
EXPERIMENT_OVERHEAD_S = 20.0
# The probe: one round of the baseline and the SDK defaults, measuring rates and export time.
PROBE_MEASURE_S = 5.0


class TuningBudgets(InputModel):
    p99_overhead_pct: float = Field(gt=0, le=10_000, description="p99 growth against no SDK at all, %.")
    cpu_overhead_pct: float = Field(gt=0, le=10_000, description="CPU per request growth against no SDK, %.")
    max_lost_spans: float = Field(default=0, ge=0, description="Spans lost in the SDK over a rung's rounds.")


class TuningSpec(InputModel):
    name: str | None = Field(default=None, max_length=NAME_CHARS)
    service: ServiceRef
    processor: Literal["batch", "agent"] = Field(
        default="batch",
        description="The instrumented launch to tune: the service's own SDK (`batch`) or its zero-code agent.",
    )
    load: LoadSpec
    current_env: dict[EnvKey, EnvValue] = Field(
        default_factory=dict,
        max_length=ENV_ENTRIES,
        description="The OTEL_* variables the service runs with today, if not the SDK defaults: measured in the "
        "confirmation beside the defaults and the recommendation.",
    )
    concurrency: Concurrency = Field(
        default_factory=Concurrency,
        description="The service's request concurrency and cores in every measurement (many request threads "
        "make a batch processor's queue contend): the same knobs as an experiment configuration's.",
    )
    budgets: TuningBudgets
    rounds: int = Field(default=3, ge=2, le=20, description="Interleaved rounds of each rung.")
    confirm_rounds: int = Field(default=5, ge=2, le=50, description="Rounds of the confirmation experiment.")
    wall_time_s: float = Field(gt=0, le=86_400, description="The whole run's budget: probe, rungs, confirmation.")

    @field_validator("current_env")
    @classmethod
    def only_otel_variables(cls, env: dict[str, str]) -> dict[str, str]:
        bad = sorted(key for key in env if not key.startswith("OTEL_"))
        if bad:
            raise ValueError(f"only OTEL_* variables, got {', '.join(bad)}")
        if local := local_variable_errors(env):
            raise ValueError("; ".join(local))
        return env

    @field_validator("wall_time_s")
    @classmethod
    def fits_one_candidate(cls, wall_time_s: float, info: ValidationInfo) -> float:
        load, rounds, confirm = (info.data.get(key) for key in ("load", "rounds", "confirm_rounds"))
        if not isinstance(load, LoadSpec) or rounds is None or confirm is None:
            return wall_time_s  # the other fields' own errors say what is wrong
        current = bool(info.data.get("current_env"))
        minimum = minimum_wall_time_s(costs(load, rounds), reserved_s(load, confirm, current))
        if wall_time_s < minimum:
            raise ValueError(
                f"too small for even one candidate: at least {math.ceil(minimum)} s for this load, "
                f"{rounds} rounds per rung and {confirm} confirmation rounds"
            )
        return wall_time_s


def costs(load: LoadSpec, rounds: int) -> Costs:
    """What a rung of `rounds` costs at this load, each round's side-by-side phase included
    (every rung has the baseline and the defaults beside its candidates, so it has one whenever
    the load asks for it; a service that cannot run twice skips it and finishes early)."""
    together = load.side_by_side_seconds > 0
    return Costs(
        ROUND_OVERHEAD_S + load.warmup_s,
        rounds=rounds,
        per_experiment_s=EXPERIMENT_OVERHEAD_S,
        together_overhead_s=ROUND_OVERHEAD_S + load.side_by_side_warmup_seconds if together else None,
        together_s=load.side_by_side_s if together else None,
    )


def reserved_s(load: LoadSpec, confirm_rounds: int, current: bool = False) -> float:
    """The probe (one round) and the confirmation (at the load's own duration; the current
    setting, when given, is one configuration more)."""
    probe = costs(load, 1).rung_s(REFERENCES, PROBE_MEASURE_S)
    confirmation = costs(load, confirm_rounds).rung_s(1 + REFERENCES + int(current), load.duration_s)
    return probe + confirmation
