"""Validate a spec against the service catalog and queue it: what `POST /api/v1/experiments`
and `POST /api/v1/checks` both do (and, without the queue, `tracetax run`).

Knows nothing of HTTP: a bad spec raises `SpecError` (FastAPI-style items naming each field),
an unknown demo service `UnknownServiceError`; the routes turn them into 422 and 404.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracetax.db import repository as repo
from tracetax.db.models import Calibration, Check, Experiment
from tracetax.diagnostics import calibration
from tracetax.diagnostics.checks import Budget, unresolvable
from tracetax.diagnostics.overhead import NoiseFloor
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.engine.experiment import service_label
from tracetax.engine.spec import DemoServiceRef, ExperimentSpec, SpecError, validate_against_catalog
from tracetax.runtime import EngineRuntime
from tracetax.services.catalog import ServiceManifest


class UnknownServiceError(LookupError):
    """The spec names a demo service the catalog does not have."""

    def __init__(self, language: str, available: list[str]) -> None:
        super().__init__(f"unknown service {language!r}; available: {', '.join(available)}")
        self.language = language
        self.available = available


@dataclass(frozen=True)
class Queued:
    experiment: Experiment
    # 0: running now; 1..: waiting, 1 being next.
    queue_position: int
    estimated_seconds: float


def validate(spec: ExperimentSpec, services: dict[str, ServiceManifest]) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command) once every configuration
    fits it; raises UnknownServiceError or SpecError."""
    manifest = None
    if isinstance(spec.service, DemoServiceRef):
        manifest = services.get(spec.service.language)
        if manifest is None:
            raise UnknownServiceError(spec.service.language, sorted(services))
    validate_against_catalog(spec, manifest)
    return manifest


def queue_experiment(runtime: EngineRuntime, spec: ExperimentSpec) -> Queued:
    """Validate, store and queue; one experiment measures at a time."""
    validate(spec, runtime.engine.services)
    with runtime.sessions() as session:
        experiment = repo.create_experiment(session, spec.model_dump(mode="json"), service_label(spec), spec.name)
    position = runtime.queue.submit(experiment.id)
    return Queued(experiment, position, spec.estimated_seconds())


def queue_check(runtime: EngineRuntime, spec: ExperimentSpec, budget: Budget, strict: bool) -> tuple[Check, Queued]:
    """Queue the check's experiment (baseline against candidate) and store the check. A
    relative budget tighter than a matching calibration says this machine resolves at the
    check's rounds is refused (SpecError naming the budget field)."""
    validate(spec, runtime.engine.services)
    refuse_unresolvable(runtime, spec, budget)
    queued = queue_experiment(runtime, spec)
    with runtime.sessions() as session:
        check = repo.create_check(session, queued.experiment.id, budget.model_dump(), strict)
    return check, queued


def refuse_unresolvable(runtime: EngineRuntime, spec: ExperimentSpec, budget: Budget) -> None:
    with runtime.sessions() as session:
        stored = repo.latest_completed_calibration(session, calibration.signature(spec))
        experiment = repo.get_experiment(session, stored.experiment_id) if stored else None
        if stored is None or experiment is None:
            return
        floors = calibration_floors(experiment)
    errors = unresolvable(budget, floors, spec.rounds)
    for error in errors:
        error["msg"] = f"{error['msg']} (calibration {stored.id})"
    if errors:
        raise SpecError(errors)


def calibration_floors(experiment: Experiment) -> dict[str, NoiseFloor]:
    spec = ExperimentSpec.model_validate(experiment.spec)
    return calibration.floors(samples_by_configuration(experiment), spec)


def queue_calibration(runtime: EngineRuntime, spec: ExperimentSpec) -> tuple[Calibration, Queued]:
    """Queue a calibration's A/A experiment and store the calibration with its signature."""
    queued = queue_experiment(runtime, spec)
    with runtime.sessions() as session:
        stored = repo.create_calibration(
            session, queued.experiment.id, queued.experiment.service, calibration.signature(spec)
        )
    return stored, queued
