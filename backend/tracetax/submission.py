"""Validate a spec against the service catalog and queue it: what `POST /api/v1/experiments`
and `POST /api/v1/checks` both do (and, without the queue, `tracetax run`).

Knows nothing of HTTP: a bad spec raises `SpecError` (FastAPI-style items naming each field),
an unknown demo service `UnknownServiceError`; the routes turn them into 422 and 404.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from tracetax.core.security import CommandNotAllowedError, check_spec
from tracetax.db import repository as repo
from tracetax.db.models import Calibration, Check, Experiment
from tracetax.diagnostics import calibration
from tracetax.diagnostics.checks import Budget, unresolvable
from tracetax.diagnostics.overhead import NoiseFloor
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.engine.experiment import measurement_placement
from tracetax.engine.spec import (
    AnySpec,
    DemoServiceRef,
    ExperimentSpec,
    SpecError,
    parse_spec,
    validate_against_catalog,
    validate_cores,
)
from tracetax.engine.subjects import subject_label
from tracetax.lab import pipelines, telemetrygen
from tracetax.lab.spec import PipelineSpec
from tracetax.runtime import EngineRuntime
from tracetax.services.catalog import ServiceManifest

log = logging.getLogger(__name__)


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


def validate(spec: AnySpec, services: dict[str, ServiceManifest]) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command or a pipeline) once every
    configuration fits it; raises UnknownServiceError or SpecError."""
    if isinstance(spec, PipelineSpec):
        validate_pipelines(spec)
        return None
    manifest = None
    if isinstance(spec.service, DemoServiceRef):
        manifest = services.get(spec.service.language)
        if manifest is None:
            raise UnknownServiceError(spec.service.language, sorted(services))
    validate_against_catalog(spec, manifest)
    if any(configuration.concurrency.cores for configuration in spec.configurations):
        try:
            service_cpus = measurement_placement().service_cpus
        except ValueError:
            pass  # a bad placement variable: the engine names it when the experiment starts
        else:
            validate_cores(spec, service_cpus)
    return manifest


def validate_pipelines(spec: PipelineSpec) -> None:
    """Every variant names a shipped pipeline or a readable overlay, and the Collector accepts
    the merged config (`otelcol validate`): nothing is started for a config that would fail.
    Errors name the configuration's field, the file, the line and the component."""
    errors = []
    for index, variant in enumerate(spec.configurations):
        field = "pipeline" if variant.pipeline is not None else "config_file"
        try:
            files = pipelines.config_files(variant.pipeline, variant.config_path)
            pipelines.validate(files, pipelines.placeholder_environment(variant.settings))
        except pipelines.PipelineConfigError as error:
            errors.append({"loc": ("configurations", index, field), "msg": str(error)})
        except (KeyError, ValueError, OSError) as error:
            errors.append({"loc": ("configurations", index, field), "msg": str(error).strip('"')})
    if not telemetrygen.telemetrygen_binary().exists():
        errors.append(
            {
                "loc": ("load",),
                "msg": f"the load generator telemetrygen is not built ({telemetrygen.telemetrygen_binary()}): "
                "run `make stack-build` (or `make up`)",
            }
        )
    if errors:
        raise SpecError(errors)


def queue_experiment(runtime: EngineRuntime, spec: AnySpec) -> Queued:
    """Validate, store and queue; one experiment measures at a time."""
    validate(spec, runtime.engine.services)
    with runtime.sessions() as session:
        experiment = repo.create_experiment(session, spec.model_dump(mode="json"), subject_label(spec), spec.name)
    position = runtime.queue.submit(experiment.id)
    return Queued(experiment, position, spec.estimated_seconds())


def queue_check(runtime: EngineRuntime, spec: AnySpec, budget: Budget, strict: bool) -> tuple[Check, Queued]:
    """Queue the check's experiment (baseline against candidate) and store the check. A
    relative budget tighter than a matching calibration says this machine resolves at the
    check's rounds is refused (SpecError naming the budget field); calibrations are of
    services only so far."""
    validate(spec, runtime.engine.services)
    if isinstance(spec, ExperimentSpec):
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
                check_spec(runtime.settings, parse_spec(experiment.spec))
            except CommandNotAllowedError as error:
                repo.set_status(session, experiment, "failed", f"refused when the backend started: {error}")
                log.warning("experiment %s not run: %s", experiment_id, error)
                refused.append(experiment_id)
            except ValueError:
                continue  # a spec that no longer parses fails in the runner, with its own error
    return refused
