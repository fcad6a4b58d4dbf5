"""Tuning runs behind the API: each runs the tuner (tracetax/tuning/search.py) in a thread of its
own, queueing every rung as an ordinary experiment on the engine's queue and reading its
diagnostics when it ends; the run's row records its experiments and progress as it goes, so a
cancelled or interrupted run keeps every experiment it finished.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy.orm import Session

from tracetax.app import submission
from tracetax.app.runtime import EngineRuntime
from tracetax.app.submission import queue_experiment, refuse_when_queue_full, validate_service
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment
from tracetax.spec.base import SpecError
from tracetax.spec.service import ExperimentSpec
from tracetax.subjects.base import DiagnosticsOptions
from tracetax.subjects.registry import subject_for
from tracetax.subjects.service.validation import request_errors
from tracetax.subjects.union import parse_spec
from tracetax.tuning.candidates import MAX_CANDIDATES
from tracetax.tuning.halving import REFERENCES, BudgetTooSmallError
from tracetax.tuning.search import TuningReport, configuration, tune
from tracetax.tuning.spec import TuningSpec, costs, reserved_s

log = logging.getLogger(__name__)
POLL_S = 1.0


class TuningCancelledError(RuntimeError):
    pass


class EngineLab:
    """Runs the tuner's experiments on the engine's queue, one after another."""

    def __init__(self, runtime: EngineRuntime, tuning_id: str, cancel: threading.Event) -> None:
        self.runtime, self.tuning_id, self.cancel = runtime, tuning_id, cancel

    def run(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if self.cancel.is_set():
            raise TuningCancelledError()
        spec = parse_spec(body)
        # The tuning was counted against the queue's length when it started: its rungs run.
        queued = queue_experiment(self.runtime, spec, admitted=True, record=self._record)
        experiment_id = queued.experiment.id
        while (status := self._status(experiment_id)) not in repo.FINAL_EXPERIMENT_STATES:
            if self.cancel.is_set():
                self.runtime.queue.cancel(experiment_id)
                raise TuningCancelledError()
            time.sleep(POLL_S)
        if status != "completed":
            raise RuntimeError(f"experiment {experiment_id} {status}")
        with self.runtime.sessions() as session:
            stored = repo.get_experiment(session, experiment_id)
            assert stored is not None  # noqa: S101 - queued just above
            options = DiagnosticsOptions(cpu_budget_pct=10.0)
            built = subject_for(spec).diagnosis.diagnostics(session, stored, spec, self.runtime.subjects, options)
        return experiment_id, built.model_dump(mode="json")

    def _status(self, experiment_id: str) -> str:
        with self.runtime.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            return experiment.status if experiment else "failed"

    def _record(self, session: Session, experiment: Experiment) -> None:
        """The rung joins the run's experiments in the step that queues it: the first one takes
        the run's place in the queue (the run is `queued` until then, and counted as waiting)."""
        tuning = repo.get_tuning(session, self.tuning_id)
        if tuning is not None:
            repo.update_tuning(
                session, tuning, status="running", experiment_ids=[*tuning.experiment_ids, experiment.id]
            )


@dataclass
class _Handle:
    cancel: threading.Event
    thread: threading.Thread | None = None
    # Set by stop_all: the backend is stopping, not a user cancelling.
    stopping: bool = False


# Runs in progress in this process.
_running: dict[str, _Handle] = {}
STOPPING = "the backend stopped during the run: the experiments it finished are kept"


def probe_spec(spec: TuningSpec) -> ExperimentSpec:
    """The run's first experiment: what every rung's is checked like (service, launch, load)."""
    return ExperimentSpec.model_validate(
        {
            "service": spec.service.model_dump(mode="json"),
            "configurations": [
                configuration(spec, "no-sdk", processor="none"),
                configuration(spec, "sdk-defaults"),
            ],
            "load": spec.load.model_dump(mode="json"),
        }
    )


def check_spec(runtime: EngineRuntime, spec: TuningSpec) -> None:
    """Raises what the rungs' experiments would raise, before anything runs: an unknown service,
    a launch that cannot run here (named as the tuning's `processor`)."""
    submission.refuse_redacted(spec)
    validate_bounds(spec, runtime.settings)
    try:
        validate_service(probe_spec(spec), runtime.subjects.services, runtime.settings)
    except SpecError as error:
        # The probe's two configurations share the tuning's fields: each error is said once.
        located = dict.fromkeys((_tuning_field(tuple(e["loc"])), e["msg"]) for e in error.errors)
        raise SpecError([{"loc": loc, "msg": msg} for loc, msg in located]) from None


def validate_bounds(spec: TuningSpec, settings: Settings) -> None:
    """The tuning within the operator's bounds: it holds the queue for `wall_time_s`
    (TRACETAX_MAX_SPEC_ESTIMATE_S), and its experiments send no more requests than any
    experiment may. Checked on the largest experiment it may queue: the most candidates a rung
    may have at the longest phase any rung may measure (a last rung's), side by side with the
    references as the load asks; and the confirmation."""
    errors: list[dict[str, Any]] = []
    if spec.wall_time_s > settings.max_spec_estimate_s:
        errors.append(
            {
                "loc": ("wall_time_s",),
                "msg": f"{spec.wall_time_s:g} s is more than TRACETAX_MAX_SPEC_ESTIMATE_S allows "
                f"({settings.max_spec_estimate_s:g} s): a tuning holds the queue for its whole wall time",
            }
        )
    longest = longest_phase_s(spec)
    rung = bounding_spec(spec, MAX_CANDIDATES + REFERENCES, longest, spec.rounds)
    for error in request_errors(rung, settings):
        if error["loc"] == ("load", "duration_s") and longest > spec.load.duration_s:
            error["loc"] = ("wall_time_s",)
            error["msg"] += f" (the last rung measures up to {longest:g} s within wall_time_s)"
        errors.append(error)
    confirmation_configurations = 1 + REFERENCES + int(bool(spec.current_env))
    confirmation = bounding_spec(spec, confirmation_configurations, spec.load.duration_s, spec.confirm_rounds)
    for error in request_errors(confirmation, settings):
        if error["loc"] == ("rounds",):
            error["loc"] = ("confirm_rounds",)
        errors.append(error)
    # The rung's and the confirmation's may be the same field's: each field once, the rung's first.
    located: dict[tuple[Any, ...], dict[str, Any]] = {}
    for error in errors:
        located.setdefault(tuple(error["loc"]), error)
    if located:
        raise SpecError(list(located.values()))


def bounding_spec(spec: TuningSpec, configurations: int, measure_s: float, rounds: int) -> ExperimentSpec:
    """An experiment the tuning may queue, for its bounds: `configurations` of the tuned launch
    beside the baseline, measuring `measure_s` without a closed-loop phase, in `rounds` rounds."""
    return ExperimentSpec.model_validate(
        {
            "service": spec.service.model_dump(mode="json"),
            "configurations": [
                configuration(spec, "no-sdk", processor="none"),
                *(configuration(spec, f"candidate-{index}") for index in range(1, configurations)),
            ],
            "load": spec.load.model_dump(mode="json") | {"duration_s": measure_s, "max_throughput_s": 0},
            "rounds": rounds,
            "sample_stacks": False,
        }
    )


def longest_phase_s(spec: TuningSpec) -> float:
    """An upper bound of any measured phase the run may have: the confirmation measures for
    load.duration_s; the last rung, one candidate beside the references, at most what is left of
    wall_time_s after the probe and the confirmation."""
    rung_costs = costs(spec.load, spec.rounds)
    available = spec.wall_time_s - reserved_s(spec.load, spec.confirm_rounds, bool(spec.current_env))
    last_rung = available / ((1 + REFERENCES) * spec.rounds) - rung_costs.per_round_overhead_s
    return max(spec.load.duration_s, last_rung)


def _tuning_field(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """A probe configuration's field as the tuning spec's: its concurrency, else the launch."""
    if loc[:1] != ("configurations",):
        return loc
    return loc[2:] if loc[2:3] == ("concurrency",) else ("processor",)


def start(runtime: EngineRuntime, spec: TuningSpec) -> str:
    """Store the run and start its thread; returns its id."""
    refuse_when_queue_full(runtime)  # before the checks: a refusal costs nothing
    check_spec(runtime, spec)
    with submission.admission:
        # Counted like an experiment while `queued`: its first rung takes its place (EngineLab._record).
        refuse_when_queue_full(runtime)
        with runtime.sessions() as session:
            tuning = repo.create_tuning(session, spec.model_dump(mode="json"), spec.name)
    handle = _Handle(threading.Event())
    handle.thread = threading.Thread(
        target=_run, args=(runtime, tuning.id, spec, handle), name=f"tuning-{tuning.id[:8]}", daemon=True
    )
    _running[tuning.id] = handle
    handle.thread.start()
    return tuning.id


def cancel(tuning_id: str) -> bool:
    handle = _running.get(tuning_id)
    if handle is None:
        return False
    handle.cancel.set()
    return True


def stop_all(timeout_s: float = 10.0) -> None:
    """At shutdown, before the database goes: every run stops and records why."""
    handles = list(_running.values())
    for handle in handles:
        handle.stopping = True
        handle.cancel.set()
    for handle in handles:
        if handle.thread is not None:
            handle.thread.join(timeout_s)


def _run(runtime: EngineRuntime, tuning_id: str, spec: TuningSpec, handle: _Handle) -> None:
    def update(**changes: Any) -> None:
        with runtime.sessions() as session:
            tuning = repo.get_tuning(session, tuning_id)
            if tuning is not None:
                repo.update_tuning(session, tuning, **changes)

    try:
        result = tune(spec, EngineLab(runtime, tuning_id, handle.cancel), say=lambda line: update(progress=line))
        update(status="completed", report=report_json(result), progress="finished")
    except TuningCancelledError:
        if handle.stopping:
            update(status="failed", error=STOPPING)
        else:
            update(status="cancelled", error="cancelled by request: the experiments it finished are kept")
    except BudgetTooSmallError as error:
        update(status="failed", error=f"wall_time_s: {error}")
    except Exception as error:  # the run ends, its experiments stand; the reason is recorded
        log.exception("tuning %s failed", tuning_id)
        update(status="failed", error=str(error))
    finally:
        _running.pop(tuning_id, None)


def report_json(result: TuningReport) -> dict[str, Any]:
    """The report as stored and served: plain JSON (an unknown drop count stays unknown: None)."""
    data = asdict(result)
    if not result.export_measured:
        data["measured"]["export_p99_ms"] = None
    for rung in data["rungs"]:
        for outcome in rung["outcomes"]:
            _unknown_as_none(outcome)
    for outcome in data["front"]:
        _unknown_as_none(outcome)
    choice = data.get("choice") or {}
    for key in ("recommended", "closest"):
        if choice.get(key):
            _unknown_as_none(choice[key])
    return data


def _unknown_as_none(outcome: dict[str, Any]) -> None:
    for key, value in outcome.items():
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            outcome[key] = None


def fail_interrupted(runtime: EngineRuntime) -> None:
    """At start-up: runs a stopped backend left behind are over (their experiments stand)."""
    with runtime.sessions() as session:
        for tuning in repo.interrupted_tunings(session):
            repo.update_tuning(session, tuning, status="failed", error=STOPPING)
