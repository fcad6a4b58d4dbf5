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
from tracetax.spec.catalog import validate_against_catalog, validate_cores
from tracetax.spec.service import MAX_RATE, DemoServiceRef, ExperimentSpec


class UnknownServiceError(LookupError):
    """The spec names a demo service the catalog does not have."""

    def __init__(self, language: str, available: list[str]) -> None:
        super().__init__(f"unknown service {language!r}; available: {', '.join(available)}")
        self.language = language
        self.available = available


def request_errors(spec: ExperimentSpec, settings: Settings) -> list[dict[str, Any]]:
    """What the operator's bounds refuse of the requests a spec sends: each load phase (the
    side-by-side phase's loads together) within TRACETAX_MAX_PHASE_REQUESTS, the phase's loads
    together within one load's rate, and the whole experiment within
    TRACETAX_MAX_EXPERIMENT_REQUESTS; every error at the field to change."""
    errors = phase_request_errors(spec, settings.max_phase_requests)
    errors += together_rate_errors(spec)
    total = spec.max_requests()
    if total > settings.max_experiment_requests:
        field = ("precision", "max_wall_time_s") if spec.precision is not None else ("rounds",)
        rounds = f"up to {spec.max_rounds()}" if spec.precision is not None else str(spec.rounds)
        errors.append(
            {
                "loc": field,
                "msg": f"the experiment would send about {total:,.0f} requests ({rounds} rounds of "
                f"{spec.requests_per_round():,.0f}: {len(spec.configurations)} configurations' own phases and the "
                f"side-by-side phase), more than TRACETAX_MAX_EXPERIMENT_REQUESTS allows "
                f"({settings.max_experiment_requests:,}): "
                f"fewer {'.'.join(field)}, fewer configurations, a lower load.rate or shorter phases",
            }
        )
    return errors


def phase_request_errors(spec: ExperimentSpec, max_requests: int) -> list[dict[str, Any]]:
    """One error per load phase that would send more than `max_requests`, at its seconds' field."""
    errors = []
    load = spec.load
    for field, (seconds, requests) in spec.requests_by_phase().items():
        if requests <= max_requests:
            continue
        burst = " with its burst" if field == "duration_s" and load.burst is not None else ""
        loads = spec.side_by_side_loads() if field.startswith("side_by_side") else 1
        together = (
            f" x {loads} loads ({len(spec.configurations)} configurations x {load.side_by_side_instances} "
            "instances, side by side)"
            if loads > 1
            else ""
        )
        lower = "load.rate, load.side_by_side_instances or" if loads > 1 else "load.rate or"
        errors.append(
            {
                "loc": ("load", field),
                "msg": f"load.rate {load.rate:g}/s for load.{field} {seconds:g} s{burst}{together} is about "
                f"{requests:,.0f} requests in one phase, more than TRACETAX_MAX_PHASE_REQUESTS allows "
                f"({max_requests:,}): lower {lower} load.{field}",
            }
        )
    return errors


def together_rate_errors(spec: ExperimentSpec) -> list[dict[str, Any]]:
    """The side-by-side phase's loads run at once, each at load.rate: together no faster than
    one load may send (MAX_RATE)."""
    loads = spec.side_by_side_loads()
    load = spec.load
    if load.rate * loads <= MAX_RATE:
        return []
    field = "side_by_side_instances" if load.side_by_side_instances > 1 else "rate"
    return [
        {
            "loc": ("load", field),
            "msg": f"the side-by-side phase runs {loads} loads at once ({len(spec.configurations)} configurations x "
            f"{load.side_by_side_instances} instances) at load.rate {load.rate:g}/s each, "
            f"{load.rate * loads:,.0f} requests/s together, more than one load may send ({MAX_RATE:,}/s): lower "
            "load.rate or load.side_by_side_instances, or set load.side_by_side_s to 0",
        }
    ]


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
