"""Run a stored experiment: interleaved rounds, each stored as soon as it ends, then the
per-configuration aggregates. Blocking; the queue runs it in a worker thread."""

from __future__ import annotations

import logging
import platform
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from tracetax import __version__
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Experiment, Round
from tracetax.engine.aggregate import RoundData
from tracetax.engine.isolation import ServiceCoresBusyError, check_service_cores_free
from tracetax.engine.progress import Phase, Progress, ProgressCallback, ended
from tracetax.engine.round import RoundOutcome, RoundSubject, Slot
from tracetax.engine.schedule import round_robin_schedule
from tracetax.spec.service import AnySpec, parse_spec
from tracetax.system.lock import LockWaitCancelledError, measurement_lock
from tracetax.system.placement import Placement, engine_on_stack_cores

log = logging.getLogger(__name__)

# The stack's components that are not ready, each with the reason (empty: all ready).
StackDown = dict[str, str]
StackProbe = Callable[[], StackDown]
# What the engine runs for a spec: its subject's rounds (tracetax.subjects, given by the caller).
SubjectOpener = Callable[[AnySpec], RoundSubject]


def record_stack_health(outcome: RoundOutcome, before: StackDown | None, after: StackDown | None) -> None:
    """Keep with the round which of the stack's components were not ready before or after it
    (`resources.stack_health`). A component down around a round may have lost part of its
    telemetry: the round is flagged, and the ledger reads the stages it serves as unknown."""
    if before is None and after is None:
        return
    down = sorted({*(before or {}), *(after or {})})
    record: dict[str, Any] = {"flagged": bool(down), "down": down, "before": before, "after": after}
    if down:
        record["note"] = (
            f"{', '.join(down)} not ready before or after this round: the ledger stages read from "
            f"{'it' if len(down) == 1 else 'them'} are unknown"
        )
    outcome.resources = {**(outcome.resources or {}), "stack_health": record}


def round_data(round_: Round) -> RoundData:
    return RoundData(
        configuration=round_.configuration,
        round_index=round_.round_index,
        status=round_.status,
        histogram=round_.histogram,
        figures=round_.figures,
        resources=round_.resources,
    )


def measurement_placement(settings: Settings) -> Placement:
    """The cores for a measurement: the layout rule, or TRACETAX_SERVICE_CPUS /
    TRACETAX_LOADGEN_CPUS (environment or .env). Raises ValueError naming a bad variable."""
    return Placement.for_this_machine(settings.service_cpus, settings.loadgen_cpus)


class ExperimentEngine:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        work_dir: Path,
        publish: ProgressCallback,
        *,
        settings: Settings,
        open_subject: SubjectOpener,
    ) -> None:
        self.sessions = sessions
        # Given by the caller, never read from the environment here: the engine measures with
        # the settings the backend (or the CLI) validated the spec against.
        self.settings = settings
        self.work_dir = work_dir
        self.publish = publish
        # The engine knows no subject by name: the caller says what runs for a spec.
        self.open_subject = open_subject
        # Called with the experiment id once its results are stored (the span ledger).
        self.after_run: Callable[[str], None] | None = None
        # Probes the stack's components before and after each round (None: not probed).
        self.stack_probe: StackProbe | None = None

    def subject_for(self, spec: AnySpec) -> RoundSubject:
        return self.open_subject(spec)

    def execute(self, experiment_id: str, cancel: threading.Event, shutdown: threading.Event) -> str:
        """Run the experiment to its end (after any other measurement on this machine has
        finished); returns its final status. Cancelled while it waits for that, it ends then."""
        try:
            with measurement_lock(cancel=_either(cancel, shutdown)):
                return self._execute_locked(experiment_id, cancel, shutdown)
        except LockWaitCancelledError:
            return self._given_up_waiting(experiment_id, cancel)

    def _given_up_waiting(self, experiment_id: str, cancel: threading.Event) -> str:
        with self.sessions() as session:
            experiment = repo.get_experiment(session, experiment_id)
            if experiment is None:
                return "missing"
            if not cancel.is_set():  # the backend stops: it stays queued for the next start
                return experiment.status
            note = "cancelled before it started (it was waiting for another measurement on this machine)"
            repo.set_status(session, experiment, "cancelled", note)
            self.publish(ended(experiment.id, "cancelled", experiment.spec.get("rounds", 0)))
            return "cancelled"

    def _execute_locked(self, experiment_id: str, cancel: threading.Event, shutdown: threading.Event) -> str:
        with self.sessions() as session, ExitStack() as on_exit:
            experiment = repo.get_experiment(session, experiment_id)
            if experiment is None or experiment.status != "queued":
                return experiment.status if experiment else "missing"
            spec = parse_spec(experiment.spec)
            subject = self.subject_for(spec)
            try:
                placement = measurement_placement(self.settings)
                check_service_cores_free(placement)
            except (ValueError, ServiceCoresBusyError) as error:
                repo.set_status(session, experiment, "failed", str(error))
                self.publish(ended(experiment.id, "failed", spec.rounds, str(error)))
                return "failed"
            # Nothing of this process (threads included) runs on the service's cores meanwhile.
            on_exit.enter_context(engine_on_stack_cores(placement))
            experiment.environment = self._environment(placement, subject)
            repo.set_status(session, experiment, "running")
            slots = round_robin_schedule([c.name for c in spec.configurations], spec.rounds, spec.seed)
            rounds = repo.create_rounds(
                session, experiment, [(s.round_index, s.order_index, s.configuration) for s in slots]
            )
            started = time.monotonic()
            per_slot_s = spec.estimated_seconds() / max(len(rounds), 1)

            for index, round_ in enumerate(rounds):
                if cancel.is_set() or shutdown.is_set():
                    break
                repo.update_round(session, round_, status="running", placement=placement.describe())
                slot = Slot(
                    configuration=round_.configuration,
                    run_id=round_.run_id,
                    workdir=self.work_dir / experiment.id / f"r{round_.round_index}-{round_.configuration}",
                    placement=placement,
                    cancel=_either(cancel, shutdown),
                    report=self._reporter(experiment, spec, round_, index, len(rounds), started, per_slot_s),
                )
                down_before = self._probe_stack()
                outcome = subject.run_round(slot)
                if not slot.cancel.is_set():  # a stopped round is not measured: no need to wait
                    record_stack_health(outcome, down_before, self._probe_stack())
                values = {k: v for k, v in outcome.__dict__.items()}
                values["figures"] = outcome.figures.stored() if outcome.figures is not None else None
                if outcome.status == "cancelled" and shutdown.is_set() and not cancel.is_set():
                    values["status"], values["error"] = "interrupted", "the backend stopped during this round"
                repo.update_round(session, round_, **values)

            final = "cancelled" if cancel.is_set() else "interrupted" if shutdown.is_set() else None
            for round_ in rounds:
                if round_.status in repo.OPEN_ROUND_STATES:
                    repo.update_round(session, round_, status=final or "cancelled")
            return self._finish(session, experiment, spec, subject, rounds, final, started)

    def _finish(
        self,
        session: Session,
        experiment: Experiment,
        spec: AnySpec,
        subject: RoundSubject,
        rounds: list[Round],
        final: str | None,
        started: float,
    ) -> str:
        self._emit(experiment, spec, "aggregating", len(rounds), len(rounds), started)
        repo.save_results(session, experiment, subject.aggregate([round_data(r) for r in rounds]))
        if final is None:
            completed = {r.configuration for r in rounds if r.status == "completed"}
            missing = [c.name for c in spec.configurations if c.name not in completed]
            final = "failed" if missing else "completed"
            error = f"no round completed for: {', '.join(missing)}" if missing else None
        else:
            error = "cancelled by request" if final == "cancelled" else "the backend stopped during the run"
        if final == "interrupted" and self.after_run is not None:
            # The backend stops within its grace: the ledger waits for the next start.
            note = "span ledger not collected: the backend stopped (collect it again: POST .../ledger)"
            error = f"{error}; {note}" if error else note
        elif self.after_run is not None and any(r.status == "completed" for r in rounds):
            self._emit(experiment, spec, "collecting", len(rounds), len(rounds), started)
            try:
                self.after_run(experiment.id)
            except Exception as failure:  # the ledger can be collected again later; the run stands
                note = f"span ledger not collected: {failure!r}"
                error = f"{error}; {note}" if error else note
        repo.set_status(session, experiment, final, error)
        self._emit(experiment, spec, "finished", len(rounds), len(rounds), started)
        return final

    def _probe_stack(self) -> StackDown | None:
        """The stack's components that are not ready now; None when there is no probe or it
        failed (a round is never failed for it)."""
        if self.stack_probe is None:
            return None
        try:
            return self.stack_probe()
        except Exception as error:  # the probe's own fault must not stop a measurement
            log.warning("could not probe the stack's health: %r", error)
            return None

    def _environment(self, placement: Placement, subject: RoundSubject) -> dict[str, Any]:
        return {
            "placement": placement.describe(),
            "tracetax": __version__,
            "host": platform.node(),
            "kernel": platform.release(),
            "python": platform.python_version(),
            **subject.environment(),
        }

    def _emit(self, experiment: Experiment, spec: AnySpec, phase: Phase, slot: int, slots: int, started: float) -> None:
        self.publish(
            Progress(
                experiment_id=experiment.id,
                status=experiment.status,
                phase=phase,
                rounds=spec.rounds,
                slot=slot,
                slots=slots,
                elapsed_s=round(time.monotonic() - started, 1),
                remaining_s=0.0,
            )
        )

    def _reporter(
        self,
        experiment: Experiment,
        spec: AnySpec,
        round_: Round,
        index: int,
        slots: int,
        started: float,
        per_slot_s: float,
    ) -> Any:
        slot_started = time.monotonic()

        def report(phase: Any, phase_duration_s: float | None, extra: dict[str, Any]) -> None:
            elapsed = time.monotonic() - started
            in_slot = time.monotonic() - slot_started
            remaining = max(per_slot_s - in_slot, 0.0) + per_slot_s * (slots - index - 1)
            self.publish(
                Progress(
                    experiment_id=experiment.id,
                    status="running",
                    phase=phase,
                    configuration=round_.configuration,
                    round=round_.round_index,
                    rounds=spec.rounds,
                    slot=index,
                    slots=slots,
                    elapsed_s=round(elapsed, 1),
                    remaining_s=round(remaining, 1),
                    phase_duration_s=phase_duration_s,
                    **extra,
                )
            )

        return report


class _either(threading.Event):  # noqa: N801 - reads as a function at the call site
    """An event that is set when either of two others is."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        super().__init__()
        self._events = (first, second)

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)

    def wait(self, timeout: float | None = None) -> bool:
        # Event.wait would wait on this event's own flag, which nothing sets.
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True
