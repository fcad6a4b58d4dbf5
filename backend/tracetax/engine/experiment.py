"""Run a stored experiment: interleaved rounds, each stored as soon as it ends, then the
per-configuration aggregates. Blocking; the queue runs it in a worker thread."""

from __future__ import annotations

import logging
import platform
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
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
from tracetax.engine.round import RoundOutcome, RoundSubject, Slot, TogetherSlot
from tracetax.engine.schedule import round_robin_schedule
from tracetax.spec.base import SubjectSpec
from tracetax.system.lock import LockWaitCancelledError, measurement_lock
from tracetax.system.machine import machine_fingerprint
from tracetax.system.placement import Placement, engine_on_stack_cores

log = logging.getLogger(__name__)

# The stack's components that are not ready, each with the reason (empty: all ready).
StackDown = dict[str, str]
StackProbe = Callable[[], StackDown]
# The components that exited at or after a wall-clock time (name as the probe says it -> how),
# even if they were started again since: the native stack's watcher records them.
StackExits = Callable[[float], StackDown]
# The stores' own counters now, as JSON (the caller's reader of their /metrics); never raises.
StoreCounters = Callable[[], dict[str, Any]]
# Where a round keeps them, read at its start and at its end: {"start": ..., "end": ...}.
STORE_COUNTERS_RESOURCE = "store_counters"
# What the engine runs for a spec: its subject's rounds (tracetax.subjects, given by the caller).
SubjectOpener = Callable[[SubjectSpec], RoundSubject]
# How a stored spec is read back into its subject's model (tracetax.subjects.union, given by the caller).
SpecParser = Callable[[dict[str, Any]], SubjectSpec]


@dataclass(frozen=True)
class Sufficiency:
    """After a look: whether an experiment that asked for a precision has it."""

    reached: bool
    # What is still too wide, or what was reached, in a sentence.
    summary: str


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


def record_store_counters(outcome: RoundOutcome, start: dict[str, Any] | None, end: dict[str, Any] | None) -> None:
    """Keep with the round the stores' counters read at its start and at its end: their
    difference is what each store received during the round (the cost's "stored" volume)."""
    if start is None or end is None:
        return
    outcome.resources = {**(outcome.resources or {}), STORE_COUNTERS_RESOURCE: {"start": start, "end": end}}


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
        parse_spec: SpecParser,
    ) -> None:
        self.sessions = sessions
        # Given by the caller, never read from the environment here: the engine measures with
        # the settings the backend (or the CLI) validated the spec against.
        self.settings = settings
        self.work_dir = work_dir
        self.publish = publish
        # The engine knows no subject by name: the caller says what runs for a spec.
        self.open_subject = open_subject
        self.parse_spec = parse_spec
        # Called with the experiment id once its results are stored (the span ledger).
        self.after_run: Callable[[str], None] | None = None
        # Probes the stack's components before and after each round (None: not probed).
        self.stack_probe: StackProbe | None = None
        # Which exited during a round although they are back by its end (None: not known).
        self.stack_exits: StackExits | None = None
        # Reads the stores' own counters at each round's start and end (None: not read).
        self.store_counters: StoreCounters | None = None
        # After each planned look, with the experiment id: whether it has what it asked for
        # (a precision, a check's conclusive lines); None from it: it asked for a number of rounds.
        self.enough: Callable[[str], Sufficiency | None] | None = None

    def subject_for(self, spec: SubjectSpec) -> RoundSubject:
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
            spec = self.parse_spec(experiment.spec)
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
            looks = spec.planned_looks()
            # The whole plan's order, drawn once: the rounds a look adds keep the order they would
            # have had in an experiment asked for that many rounds from the start.
            plan = round_robin_schedule([c.name for c in spec.configurations], looks[-1], spec.seed)
            rounds: list[Round] = []
            started = time.monotonic()
            per_slot_s = spec.estimated_seconds() / max(spec.rounds * len(spec.configurations), 1)
            per_look = len(spec.configurations)
            for look, next_look in zip(looks, [*looks[1:], None], strict=True):
                added = plan[len(rounds) : look * per_look]
                rounds += repo.create_rounds(
                    session, experiment, [(s.round_index, s.order_index, s.configuration) for s in added]
                )
                self._run_slots(
                    session, experiment, spec, subject, rounds, placement, cancel, shutdown, started, per_slot_s
                )
                if cancel.is_set() or shutdown.is_set():
                    break
                if not self._look(
                    session, experiment, look, next_look, started, spec.budgeted_seconds(), per_slot_s * per_look
                ):
                    break

            final = "cancelled" if cancel.is_set() else "interrupted" if shutdown.is_set() else None
            for round_ in rounds:
                if round_.status in repo.OPEN_ROUND_STATES:
                    repo.update_round(session, round_, status=final or "cancelled")
            return self._finish(session, experiment, spec, subject, rounds, final, started)

    def _finish(
        self,
        session: Session,
        experiment: Experiment,
        spec: SubjectSpec,
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

    def _run_slots(
        self,
        session: Session,
        experiment: Experiment,
        spec: SubjectSpec,
        subject: RoundSubject,
        rounds: list[Round],
        placement: Placement,
        cancel: threading.Event,
        shutdown: threading.Event,
        started: float,
        per_slot_s: float,
    ) -> None:
        """Run every round still pending, each round's side-by-side phase first; each is stored
        as soon as it ends."""
        together: dict[str, Any] = {}
        for index, round_ in enumerate(rounds):
            if round_.status != "pending":
                continue  # run at an earlier look
            if cancel.is_set() or shutdown.is_set():
                break
            if round_.order_index == 0:  # the round begins: its side-by-side phase first
                together = self._run_together(
                    experiment,
                    spec,
                    subject,
                    rounds,
                    round_.round_index,
                    placement,
                    _either(cancel, shutdown),
                    per_slot_s,
                )
                if cancel.is_set() or shutdown.is_set():
                    break
            slot = Slot(
                configuration=round_.configuration,
                run_id=round_.run_id,
                workdir=self.work_dir / experiment.id / f"r{round_.round_index}-{round_.configuration}",
                placement=placement,
                cancel=_either(cancel, shutdown),
                report=self._reporter(
                    experiment,
                    spec,
                    round_.configuration,
                    round_.round_index,
                    index,
                    len(rounds),
                    started,
                    per_slot_s,
                ),
                together=together.get(round_.configuration),
            )
            repo.update_round(session, round_, status="running", placement=placement.describe())
            probed_at = time.time()
            down_before = self._probe_stack()
            # Last before the round's first request; the end's first after its settle.
            counters_before = self._read_store_counters()
            outcome = subject.run_round(slot)
            if not slot.cancel.is_set():  # a stopped round is not measured: no need to wait
                record_store_counters(outcome, counters_before, self._read_store_counters())
                record_stack_health(outcome, down_before, self._probe_stack(exited_since=probed_at))
            values = {k: v for k, v in outcome.__dict__.items()}
            values["figures"] = outcome.figures.stored() if outcome.figures is not None else None
            if outcome.status == "cancelled" and shutdown.is_set() and not cancel.is_set():
                values["status"], values["error"] = "interrupted", "the backend stopped during this round"
            repo.update_round(session, round_, **values)

    def _look(
        self,
        session: Session,
        experiment: Experiment,
        look: int,
        next_look: int | None,
        started: float,
        budget_s: float,
        per_round_s: float,
    ) -> bool:
        """After `look` rounds: ask whether the experiment has what it asked for (`enough`) and
        keep the answer with it (`environment.precision`); True to run on to `next_look`."""
        if self.enough is None:
            return False
        sufficiency = self.enough(experiment.id)
        if sufficiency is None:  # it asked for a number of rounds, not a precision
            return False
        elapsed = time.monotonic() - started
        out_of_time = next_look is not None and elapsed + per_round_s * (next_look - look) > budget_s
        go_on = not sufficiency.reached and next_look is not None and not out_of_time
        if sufficiency.reached:
            why = f"reached after {look} rounds"
        elif next_look is None or out_of_time:
            why = f"not reached in the time budget ({budget_s:.0f} s): stopped after {look} rounds"
        else:
            why = f"not yet reached after {look} rounds: running to {next_look}"
        record = dict((experiment.environment or {}).get("precision") or {})
        looks_read = [
            *record.get("looks_read", []),
            {"rounds": look, "reached": sufficiency.reached, "summary": sufficiency.summary},
        ]
        record.update(
            reached=sufficiency.reached,
            rounds=look,
            summary=sufficiency.summary,
            stopped=why,
            looks_read=looks_read,
            elapsed_s=round(elapsed, 1),
        )
        experiment.environment = {**(experiment.environment or {}), "precision": record}
        session.commit()
        return go_on

    def _run_together(
        self,
        experiment: Experiment,
        spec: SubjectSpec,
        subject: RoundSubject,
        rounds: list[Round],
        round_index: int,
        placement: Placement,
        cancel: threading.Event,
        per_slot_s: float,
    ) -> dict[str, Any]:
        """The round's side-by-side phase (before any of its slots is marked running, so that its
        time is no round's window): what each configuration measured there."""
        mine = sorted((r for r in rounds if r.round_index == round_index), key=lambda r: r.order_index)
        started = time.monotonic()
        slot = TogetherSlot(
            round_index=round_index,
            configurations=[r.configuration for r in mine],
            run_ids={r.configuration: r.run_id for r in mine},
            workdir=self.work_dir / experiment.id / f"r{round_index}-side-by-side",
            placement=placement,
            cancel=cancel,
            report=self._reporter(
                experiment, spec, None, round_index, rounds.index(mine[0]), len(rounds), started, per_slot_s
            ),
        )
        return subject.run_together(slot)

    def _probe_stack(self, exited_since: float | None = None) -> StackDown | None:
        """The stack's components that are not ready now, and with `exited_since` those that
        exited after it (a watcher may have started one again before the round ended); None
        when there is no probe or it failed (a round is never failed for it)."""
        if self.stack_probe is None:
            return None
        try:
            down = self.stack_probe()
            if exited_since is not None and self.stack_exits is not None:
                for name, how in self.stack_exits(exited_since).items():
                    down.setdefault(name, f"{how} during the round (started again since)")
            return down
        except Exception as error:  # the probe's own fault must not stop a measurement
            log.warning("could not probe the stack's health: %r", error)
            return None

    def _read_store_counters(self) -> dict[str, Any] | None:
        """The stores' counters now; None when nothing reads them or the reader failed (the
        round's stored volume is then unknown, never the round itself failed)."""
        if self.store_counters is None:
            return None
        try:
            return self.store_counters()
        except Exception as error:  # the reader's own fault must not stop a measurement
            log.warning("could not read the stores' counters: %r", error)
            return None

    def _environment(self, placement: Placement, subject: RoundSubject) -> dict[str, Any]:
        return {
            "placement": placement.describe(),
            "tracetax": __version__,
            "host": platform.node(),
            "kernel": platform.release(),
            "python": platform.python_version(),
            # What a history compares points by: CPU model, cores, memory, kernel, virtualization.
            "machine": machine_fingerprint(),
            **subject.environment(),
        }

    def _emit(
        self, experiment: Experiment, spec: SubjectSpec, phase: Phase, slot: int, slots: int, started: float
    ) -> None:
        self.publish(
            Progress(
                experiment_id=experiment.id,
                status=experiment.status,
                phase=phase,
                rounds=_rounds_of(spec, slots),
                slot=slot,
                slots=slots,
                elapsed_s=round(time.monotonic() - started, 1),
                remaining_s=0.0,
            )
        )

    def _reporter(
        self,
        experiment: Experiment,
        spec: SubjectSpec,
        configuration: str | None,
        round_index: int,
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
                    configuration=configuration,
                    round=round_index,
                    rounds=_rounds_of(spec, slots),
                    slot=index,
                    slots=slots,
                    elapsed_s=round(elapsed, 1),
                    remaining_s=round(remaining, 1),
                    phase_duration_s=phase_duration_s,
                    **extra,
                )
            )

        return report


def _rounds_of(spec: SubjectSpec, slots: int) -> int:
    """The rounds the experiment has now: its spec's, or more once a look added some."""
    return max(spec.rounds, slots // max(len(spec.configurations), 1))


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
