"""Response models of the experiments routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from tracetax.api.schemas.results import AnyConfigurationAggregates, ClosedPhase, OpenPhase, ResourceSample
from tracetax.db.models import Experiment, Round
from tracetax.spec.provenance import Provenance
from tracetax.subjects.base import Subject


class ExperimentCreated(BaseModel):
    id: str
    status: str
    # 0: running now; 1..: waiting, 1 being next.
    queue_position: int | None
    estimated_seconds: float


class ExperimentSummary(BaseModel):
    id: str
    name: str | None
    status: str
    # What is measured: "service" or "collector" (a Collector pipeline).
    subject: str
    # A demo service's language, "command", or "collector".
    service: str
    configurations: list[str]
    baseline: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    queue_position: int | None = None
    # Why it has not started although it is next: "waiting for the Collector (...)" while a
    # component of the stack is down (the queue holds it until the stack is ready again).
    waiting_for: str | None = None
    error: str | None = None
    # Where it came from (repository, branch, commit, pull request, CI run), when given.
    provenance: Provenance | None = None

    @classmethod
    def of(
        cls, experiment: Experiment, queue_position: int | None, waiting_for: str | None = None
    ) -> ExperimentSummary:
        configurations = experiment.spec.get("configurations", [])
        return cls(
            id=experiment.id,
            name=experiment.name,
            status=experiment.status,
            subject=experiment.spec.get("subject", "service"),
            service=experiment.service,
            configurations=[c["name"] for c in configurations],
            baseline=next((c["name"] for c in configurations if c.get("baseline")), ""),
            created_at=experiment.created_at,
            started_at=experiment.started_at,
            finished_at=experiment.finished_at,
            queue_position=queue_position,
            waiting_for=waiting_for,
            error=experiment.error,
            provenance=Provenance.model_validate(experiment.provenance) if experiment.provenance else None,
        )


class RoundSummary(BaseModel):
    round_index: int
    order_index: int
    configuration: str
    run_id: str
    status: str
    started_at: datetime | None
    finished_at: datetime | None
    error: str | None
    service_log_tail: str | None
    exit_code: int | None
    placement: dict[str, Any] | None
    requests: int | None
    achieved_rps: float | None
    p99_us: int | None
    max_throughput_rps: float | None
    # What limited the closed-loop phase: service, load generator, stack or unknown.
    limited_by: str | None = None
    # How the service ended after SIGTERM (exit code, whether its SDK could flush, a note).
    shutdown: dict[str, Any] | None = None
    # The measured phases' isolation record: other processes' CPU on the service's cores,
    # the service's run-queue wait, and whether the phase was flagged.
    isolation: dict[str, Any] | None = None
    # The stack's components probed before and after the round: flagged, with the ones not
    # ready (`down`), when a component was down during it.
    stack_health: dict[str, Any] | None = None

    @classmethod
    def of(cls, round_: Round, subject: Subject[Any, Any]) -> RoundSummary:
        """The round's summary; its figures are read as `subject`'s (its experiment's)."""
        phases = subject.results.round_phases(round_.figures)
        open_phase = phases["open_phase"] or {}
        return cls(
            round_index=round_.round_index,
            order_index=round_.order_index,
            configuration=round_.configuration,
            run_id=round_.run_id,
            status=round_.status,
            started_at=round_.started_at,
            finished_at=round_.finished_at,
            error=round_.error,
            service_log_tail=round_.service_log_tail,
            exit_code=round_.exit_code,
            placement=round_.placement,
            requests=open_phase.get("requests"),
            achieved_rps=open_phase.get("achieved_rps"),
            p99_us=(open_phase.get("summary") or {}).get("percentiles_us", {}).get("99"),
            max_throughput_rps=phases["max_throughput_rps"],
            limited_by=(phases["closed_phase"] or {}).get("limited_by"),
            shutdown=round_.shutdown,
            isolation=(round_.resources or {}).get("isolation"),
            stack_health=(round_.resources or {}).get("stack_health"),
        )


class ExperimentDetail(ExperimentSummary):
    spec: dict[str, Any]
    environment: dict[str, Any] | None
    rounds: list[RoundSummary]


class RoundRaw(RoundSummary):
    histogram: str | None
    open_phase: OpenPhase | None
    closed_phase: ClosedPhase | None
    resources: dict[str, Any] | None
    samples: list[ResourceSample] | None


class ExperimentResults(BaseModel):
    experiment_id: str
    status: str
    baseline: str
    # Per configuration, in spec order; present once the experiment has finished.
    configurations: list[AnyConfigurationAggregates]
    rounds: list[RoundRaw]
