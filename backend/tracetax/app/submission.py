"""Validate a spec against the service catalog and queue it: what `POST /api/v1/experiments`
and `POST /api/v1/checks` both do (and, without the queue, `tracetax run`).

Knows nothing of HTTP: a bad spec raises `SpecError` (FastAPI-style items naming each field),
an unknown demo service `UnknownServiceError`, a full queue `QueueFullError`; the routes turn
them into 422, 404 and 429. The operator's bounds (TRACETAX_MAX_*) come in with the settings.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from tracetax.app.runtime import EngineRuntime
from tracetax.core.command_policy import check_spec
from tracetax.core.config import Settings
from tracetax.core.security import CommandNotAllowedError
from tracetax.db import repository as repo
from tracetax.db.models import Calibration, Check, Experiment
from tracetax.demos.catalog import ServiceManifest
from tracetax.diagnostics import calibration
from tracetax.diagnostics.checks import Budget, unresolvable
from tracetax.diagnostics.overhead import NoiseFloor
from tracetax.diagnostics.report import samples_by_configuration
from tracetax.engine.experiment import measurement_placement
from tracetax.engine.subjects import subject_label
from tracetax.lab import pipelines, telemetrygen
from tracetax.spec.collector import PipelineSpec
from tracetax.spec.service import (
    AnySpec,
    DemoServiceRef,
    ExperimentSpec,
    LoadSpec,
    SpecError,
    parse_spec,
    validate_against_catalog,
    validate_cores,
)

log = logging.getLogger(__name__)


class UnknownServiceError(LookupError):
    """The spec names a demo service the catalog does not have."""

    def __init__(self, language: str, available: list[str]) -> None:
        super().__init__(f"unknown service {language!r}; available: {', '.join(available)}")
        self.language = language
        self.available = available


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


def validate(spec: AnySpec, services: dict[str, ServiceManifest], settings: Settings) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command or a pipeline) once the spec
    is within the settings' bounds and every configuration fits the service; raises
    UnknownServiceError or SpecError."""
    validate_bounds(spec, settings)
    return validate_service(spec, services, settings, pipelines.OverlayPolicy.from_settings(settings))


def validate_bounds(spec: AnySpec, settings: Settings) -> None:
    """What one spec may ask of this machine: every request of a load phase is read back into
    its histogram (TRACETAX_MAX_PHASE_REQUESTS), and the whole spec holds the queue for its
    estimated wall time (TRACETAX_MAX_SPEC_ESTIMATE_S)."""
    errors = []
    if isinstance(spec, ExperimentSpec):
        errors += phase_request_errors(spec.load, spec.sample_stacks, settings.max_phase_requests)
    estimate = spec.estimated_seconds()
    if estimate > settings.max_spec_estimate_s:
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


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds:,.0f} s"


def refuse_when_queue_full(runtime: EngineRuntime) -> None:
    """QueueFullError when TRACETAX_MAX_QUEUE_LENGTH experiments are waiting (the running one
    is not counted). Call it under `admission`, before anything is stored."""
    with runtime.sessions() as session:
        waiting = len(repo.queued_ids(session))
    if waiting >= runtime.settings.max_queue_length:
        raise QueueFullError(waiting)


def validate_service(
    spec: AnySpec,
    services: dict[str, ServiceManifest],
    settings: Settings,
    overlays: pipelines.OverlayPolicy | None = None,
) -> ServiceManifest | None:
    """The demo service's manifest (None for a user's own command or a pipeline) once every
    configuration fits it; raises UnknownServiceError or SpecError. `overlays`: where a
    pipeline variant's config_file may come from (default: the lab's own directory only)."""
    if isinstance(spec, PipelineSpec):
        validate_pipelines(spec, overlays or pipelines.OverlayPolicy(None))
        return None
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


def validate_pipelines(spec: PipelineSpec, overlays: pipelines.OverlayPolicy) -> None:
    """Every variant names a shipped pipeline or an overlay `overlays` allows, and the Collector
    accepts the merged config (`otelcol validate`, which sees nothing of the backend's
    environment): nothing is started for a config that would fail. Errors name the
    configuration's field, the file, the line and the component."""
    errors = []
    for index, variant in enumerate(spec.configurations):
        field = "pipeline" if variant.pipeline is not None else "config_file"
        try:
            files = pipelines.config_files(variant.pipeline, variant.config_path, overlays)
            environment = pipelines.placeholder_environment(variant.settings)
            pipelines.validate(files, environment, max_bytes=overlays.max_bytes)
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


def queue_experiment(runtime: EngineRuntime, spec: AnySpec, *, admitted: bool = False) -> Queued:
    """Validate, store and queue; one experiment measures at a time. Refused with
    QueueFullError, nothing stored, when the queue is full, unless the experiment belongs to a
    run already `admitted` (a tuning's rungs: the tuning was counted when it started)."""
    validate(spec, runtime.engine.services, runtime.settings)
    with admission:
        if not admitted:
            refuse_when_queue_full(runtime)
        with runtime.sessions() as session:
            experiment = repo.create_experiment(session, spec.model_dump(mode="json"), subject_label(spec), spec.name)
        position = runtime.queue.submit(experiment.id)
    return Queued(experiment, position, spec.estimated_seconds())


def queue_check(runtime: EngineRuntime, spec: AnySpec, budget: Budget, strict: bool) -> tuple[Check, Queued]:
    """Queue the check's experiment (baseline against candidate) and store the check. A
    relative budget tighter than a matching calibration says this machine resolves at the
    check's rounds is refused (SpecError naming the budget field); calibrations are of
    services only so far."""
    validate(spec, runtime.engine.services, runtime.settings)
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
