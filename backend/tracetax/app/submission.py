"""Validate a spec against the service catalog and queue it: what `POST /api/v1/experiments`
and `POST /api/v1/checks` both do (and `tracetax run`: the same admission and storing, without
the queue).

Knows nothing of HTTP: a bad spec raises `SpecError` (FastAPI-style items naming each field),
an unknown demo service `UnknownServiceError`, a full queue `QueueFullError`; the routes turn
them into 422, 404 and 429. The operator's bounds (TRACETAX_MAX_*) come in with the settings.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.core.security import CommandNotAllowedError
from tracetax.db import repository as repo
from tracetax.db.models import Calibration, Check, Experiment
from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics import calibration
from tracetax.diagnostics.checks import Budget
from tracetax.lab import pipelines
from tracetax.spec.base import SpecError, SubjectSpec
from tracetax.spec.provenance import HistoryGate
from tracetax.spec.redaction import REDACTED, Location, UnfilledSecretsError, fill_secrets, redacted_locations
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.registry import subject_for

# Raised by the service subject's validation; the routes and the CLI catch it from here.
from tracetax.subjects.service.validation import UnknownServiceError as UnknownServiceError
from tracetax.subjects.union import parse_spec

log = logging.getLogger(__name__)


class QueueFullError(RuntimeError):
    """As many experiments wait in the queue as TRACETAX_MAX_QUEUE_LENGTH allows."""

    def __init__(self, waiting: int) -> None:
        super().__init__(
            f"the queue holds {waiting} experiments waiting, the most TRACETAX_MAX_QUEUE_LENGTH allows; "
            "wait for one to finish or cancel one"
        )
        self.waiting = waiting


# Counting the waiting experiments and adding one is one step: two submissions at once (the
# routes run in a thread pool) must not both take the last place.
admission = threading.Lock()


@dataclass(frozen=True)
class Queued:
    experiment: Experiment
    # 0: running now; 1..: waiting, 1 being next.
    queue_position: int
    estimated_seconds: float


def validate(spec: SubjectSpec, services: dict[str, ServiceManifest], settings: Settings) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command or a pipeline) once the spec
    is within the settings' bounds and every configuration fits the service; raises
    UnknownServiceError or SpecError."""
    refuse_redacted(spec)
    validate_bounds(spec, settings)
    return validate_service(spec, services, settings, pipelines.OverlayPolicy.from_settings(settings))


def with_stored_secrets(spec: SubjectSpec, stored: dict[str, Any]) -> SubjectSpec:
    """`spec`, copied from a stored experiment's redacted answer, with each REDACTED secret
    filled from `stored` (that experiment's spec as stored): a run again that never showed the
    secrets. A REDACTED value the stored spec has no value for is a SpecError naming it."""
    submitted = spec.model_dump(mode="json")
    try:
        filled = fill_secrets(submitted, stored)
    except UnfilledSecretsError as error:
        raise SpecError([_redacted_error(loc, filled_from=True) for loc in error.locations]) from None
    return spec if filled == submitted else type(spec).model_validate(filled)


def refuse_redacted(spec: BaseModel) -> None:
    """A REDACTED value where a secret goes would be sent to the service as it is: a SpecError
    naming each, saying how to give the value (a spec, a check, a tuning alike)."""
    locations = redacted_locations(spec.model_dump(mode="json"))
    if locations:
        raise SpecError([_redacted_error(loc, filled_from=False) for loc in locations])


def _redacted_error(loc: Location, *, filled_from: bool) -> dict[str, Any]:
    where = "the experiment named in from_experiment has no value here" if filled_from else "nothing fills it"
    return {
        "loc": loc,
        "msg": f"{REDACTED!r} is a secret as answers show it, and {where}: give the value itself, or run "
        "again with from_experiment naming the experiment whose spec holds it",
    }


def validate_bounds(spec: SubjectSpec, settings: Settings) -> None:
    """What one spec may ask of this machine: every request of a load phase is read back into
    its histogram (TRACETAX_MAX_PHASE_REQUESTS), and the whole spec holds the queue for its
    estimated wall time, or its precision's whole time budget (TRACETAX_MAX_SPEC_ESTIMATE_S)."""
    errors = subject_for(spec).rules.bound_errors(spec, settings)
    budget = spec.budgeted_seconds() if isinstance(spec, ExperimentSpec) and spec.precision else None
    if budget is not None and budget > settings.max_spec_estimate_s:
        # A spec asking for a precision may hold the queue for its whole time budget.
        errors.append(
            {
                "loc": ("precision", "max_wall_time_s"),
                "msg": f"precision.max_wall_time_s ({_duration(budget)}) is more than TRACETAX_MAX_SPEC_ESTIMATE_S "
                f"allows ({settings.max_spec_estimate_s:g} s): lower it",
            }
        )
    estimate = spec.estimated_seconds()
    if budget is None and estimate > settings.max_spec_estimate_s:
        errors.append(
            {
                "loc": ("rounds",),
                "msg": f"the spec would take about {_duration(estimate)} ({len(spec.configurations)} configurations "
                f"x {spec.rounds} rounds of {_duration(estimate / len(spec.configurations) / spec.rounds)}), "
                f"more than TRACETAX_MAX_SPEC_ESTIMATE_S allows ({settings.max_spec_estimate_s:g} s): "
                "fewer rounds or configurations, or shorter phases",
            }
        )
    if errors:
        raise SpecError(errors)


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds:,.0f} s"


def refuse_when_queue_full(runtime: EngineRuntime) -> None:
    """QueueFullError when TRACETAX_MAX_QUEUE_LENGTH places are taken: experiments waiting and
    tunings waiting for their first rung (the running experiment is not counted). Under
    `admission`, right before something is stored, it decides; called before a spec's
    validation as well, it spares a request the work (`otelcol validate`) of a refusal."""
    with runtime.sessions() as session:
        waiting = repo.waiting_count(session)
    if waiting >= runtime.settings.max_queue_length:
        raise QueueFullError(waiting)


def validate_service(
    spec: SubjectSpec,
    services: dict[str, ServiceManifest],
    settings: Settings,
    overlays: pipelines.OverlayPolicy | None = None,
) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command or a pipeline) once every
    configuration fits it; raises UnknownServiceError or SpecError. `overlays`: where a
    pipeline variant's config_file may come from (default: the lab's own directory only)."""
    return subject_for(spec).rules.validate(spec, services, settings, overlays or pipelines.OverlayPolicy(None))


# What is stored with an experiment in the same admission step (a tuning's rung takes its run's place).
RecordWith = Callable[[Session, Experiment], None]


def queue_experiment(
    runtime: EngineRuntime, spec: SubjectSpec, *, admitted: bool = False, record: RecordWith | None = None
) -> Queued:
    """Validate, store and queue; one experiment measures at a time. Refused with
    QueueFullError, nothing stored, when the queue is full, unless the experiment belongs to a
    run already `admitted` (a tuning's rungs: the tuning was counted when it started)."""
    if not admitted:
        refuse_when_queue_full(runtime)
    admit_experiment(spec, runtime.subjects.services, runtime.settings)
    return enqueue(runtime, spec, admitted=admitted, record=record)


def admit_experiment(
    spec: SubjectSpec, services: dict[str, ServiceManifest], settings: Settings
) -> ServiceManifest | None:
    """Every refusal an experiment's spec meets before it is stored, wherever it is submitted
    (the API's queue, `tracetax run` in its own process): `validate`'s, and a precision
    without its half-width. Returns the demo service's manifest (None for a command or a
    pipeline); raises UnknownServiceError or SpecError."""
    manifest = validate(spec, services, settings)
    refuse_precision_without_target(spec)
    return manifest


def enqueue(
    runtime: EngineRuntime, spec: SubjectSpec, *, admitted: bool = False, record: RecordWith | None = None
) -> Queued:
    """Store and queue a validated spec. Counting the places taken and taking one is one step
    under `admission`, `record` included: submissions at once never take more places than
    TRACETAX_MAX_QUEUE_LENGTH allows."""
    with admission:
        if not admitted:
            refuse_when_queue_full(runtime)
        experiment = store_experiment(runtime, spec, record)
        position = runtime.queue.submit(experiment.id)
    return Queued(experiment, position, spec.estimated_seconds())


def store_experiment(runtime: EngineRuntime, spec: SubjectSpec, record: RecordWith | None = None) -> Experiment:
    """Store an admitted spec as a queued experiment (with what `record` stores beside it in
    the same session); `enqueue` then queues it, `tracetax run` runs it in its own process."""
    with runtime.sessions() as session:
        label = subject_for(spec).rules.label(spec)
        experiment = repo.create_experiment(session, stored_spec(spec), label, spec.name, provenance_of(spec))
        if record is not None:
            record(session, experiment)
    return experiment


def stored_spec(spec: SubjectSpec) -> dict[str, Any]:
    """The spec as stored in `experiments.spec`: without its provenance, which is stored beside
    it (`experiments.provenance`), so that what compares specs (calibrations' signatures, a
    tuning's rungs, the UI's "run again") never sees where a run came from."""
    return spec.model_dump(mode="json", exclude={"provenance"})


def provenance_of(spec: SubjectSpec) -> dict[str, Any] | None:
    """The spec's provenance as stored, without its unknown fields; None when it has none."""
    if spec.provenance is None:
        return None
    return spec.provenance.model_dump(mode="json", exclude_none=True) or None


@dataclass(frozen=True)
class CheckOrigin:
    """What a check keeps besides its experiment and budget: the candidate's and the
    baseline's own names (the experiment renames them `candidate` and `baseline`) and the gate
    against the branch's history, when asked."""

    configuration: str | None = None
    baseline_configuration: str | None = None
    against_history: HistoryGate | None = None


def queue_check(
    runtime: EngineRuntime, spec: SubjectSpec, budget: Budget, strict: bool, origin: CheckOrigin | None = None
) -> tuple[Check, Queued]:
    """Queue the check's experiment (baseline against candidate) and store the check. A
    relative budget tighter than a matching calibration says this machine resolves at the
    check's rounds is refused (SpecError naming the budget field); calibrations are of
    services only so far."""
    origin = origin or CheckOrigin()
    refuse_when_queue_full(runtime)
    validate(spec, runtime.subjects.services, runtime.settings)
    refuse_unresolvable(runtime, spec, budget)
    queued = enqueue(runtime, spec)
    gate = origin.against_history
    with runtime.sessions() as session:
        check = repo.create_check(
            session,
            queued.experiment.id,
            budget.model_dump(),
            strict,
            configuration=origin.configuration,
            baseline_configuration=origin.baseline_configuration,
            against_history=gate.model_dump(mode="json") if gate is not None else None,
        )
    return check, queued


def refuse_precision_without_target(spec: SubjectSpec) -> None:
    """Outside a check, a precision needs its half-width: nothing else would say when to stop."""
    precision = getattr(spec, "precision", None)
    if precision is not None and precision.half_width_pct is None:
        raise SpecError(
            [
                {
                    "loc": ("precision", "half_width_pct"),
                    "msg": "say how narrow the intervals must be (e.g. 5 for ±5%); only a check may leave it "
                    "out, to run until every budget line is conclusive",
                }
            ]
        )


def refuse_unresolvable(runtime: EngineRuntime, spec: SubjectSpec, budget: Budget) -> None:
    with runtime.sessions() as session:
        errors = subject_for(spec).rules.unresolvable(session, spec, budget)
    if errors:
        raise SpecError(errors)


def queue_calibration(runtime: EngineRuntime, spec: ExperimentSpec) -> tuple[Calibration, Queued]:
    """Queue a calibration's A/A experiment and store the calibration with its signature."""
    queued = queue_experiment(runtime, spec)
    with runtime.sessions() as session:
        stored = repo.create_calibration(
            session, queued.experiment.id, queued.experiment.service, calibration.signature(spec)
        )
    return stored, queued


def refuse_queued_commands(runtime: EngineRuntime) -> list[str]:
    """Before the queue starts again: an experiment left queued with a command service the
    settings no longer allow (command services turned off, the allow-list narrowed, the
    backend moved beyond loopback) fails with the reason instead of running. The API refuses
    such a submission; this covers one accepted under the settings of an earlier start."""
    refused = []
    with runtime.sessions() as session:
        for experiment_id in repo.queued_ids(session):
            experiment = repo.get_experiment(session, experiment_id)
            if experiment is None:
                continue
            try:
                spec = parse_spec(experiment.spec)
                subject_for(spec).rules.check_allowed(runtime.settings, spec)
            except CommandNotAllowedError as error:
                repo.set_status(session, experiment, "failed", f"refused when the backend started: {error}")
                log.warning("experiment %s not run: %s", experiment_id, error)
                refused.append(experiment_id)
            except ValueError:
                continue  # a spec that no longer parses fails in the runner, with its own error
    return refused
