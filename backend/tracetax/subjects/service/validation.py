"""A service spec at submission: within the operator's bounds, fitting its service (a demo's
manifest, the machine's cores), and a check's budget within what a calibration resolves."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics import calibration
from tracetax.diagnostics.checks import Budget, unresolvable
from tracetax.diagnostics.overhead import NoiseFloor
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.engine.experiment import measurement_placement
from tracetax.spec.service import (
    DemoServiceRef,
    ExperimentSpec,
    LoadSpec,
    validate_against_catalog,
    validate_cores,
)


class UnknownServiceError(LookupError):
    """The spec names a demo service the catalog does not have."""

    def __init__(self, language: str, available: list[str]) -> None:
        super().__init__(f"unknown service {language!r}; available: {', '.join(available)}")
        self.language = language
        self.available = available


def phase_request_errors(load: LoadSpec, sample_stacks: bool, max_requests: int) -> list[dict[str, Any]]:
    """One error per load phase that would send more than `max_requests`, at its seconds' field."""
    errors = []
    for field, (seconds, requests) in load.requests_by_phase(sample_stacks).items():
        if requests > max_requests:
            burst = " with its burst" if field == "duration_s" and load.burst is not None else ""
            errors.append(
                {
                    "loc": ("load", field),
                    "msg": f"load.rate {load.rate:g}/s for load.{field} {seconds:g} s{burst} is about "
                    f"{requests:,.0f} requests in one phase, more than TRACETAX_MAX_PHASE_REQUESTS allows "
                    f"({max_requests:,}): lower load.rate or load.{field}",
                }
            )
    return errors


def manifest_for(spec: ExperimentSpec, services: dict[str, ServiceManifest]) -> ServiceManifest | None:
    """The demo service's manifest, or None for a user's own command or an unknown service."""
    return services.get(spec.service.language) if isinstance(spec.service, DemoServiceRef) else None


def validate_service(
    spec: ExperimentSpec, services: dict[str, ServiceManifest], settings: Settings
) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command) once every configuration
    fits it; raises UnknownServiceError or SpecError."""
    manifest = None
    if isinstance(spec.service, DemoServiceRef):
        manifest = services.get(spec.service.language)
        if manifest is None:
            raise UnknownServiceError(spec.service.language, sorted(services))
    validate_against_catalog(spec, manifest)
    if any(configuration.concurrency.cores for configuration in spec.configurations):
        try:
            service_cpus = measurement_placement(settings).service_cpus
        except ValueError:
            pass  # a bad placement variable: the engine names it when the experiment starts
        else:
            validate_cores(spec, service_cpus)
    return manifest


def unresolvable_lines(session: Session, spec: ExperimentSpec, budget: Budget) -> list[dict[str, Any]]:
    """The relative budget lines tighter than the latest matching calibration says this
    machine resolves at the check's rounds, each naming the calibration."""
    stored = repo.latest_completed_calibration(session, calibration.signature(spec))
    experiment = repo.get_experiment(session, stored.experiment_id) if stored else None
    if stored is None or experiment is None:
        return []
    errors = unresolvable(budget, calibration_floors(experiment), spec.rounds)
    for error in errors:
        error["msg"] = f"{error['msg']} (calibration {stored.id})"
    return errors


def calibration_floors(experiment: Experiment) -> dict[str, NoiseFloor]:
    spec = ExperimentSpec.model_validate(experiment.spec)
    return calibration.floors(samples_by_configuration(experiment), spec)
