"""Deleting what the backend stores: an experiment's rows (rounds with their samples,
histograms and stacks, results, ledger readings, the check or calibration it answers) and its
work directory (`<work_dir>/<experiment id>/`: oha databases, service logs, JFR and perf
files). The DELETE routes delete one on request; the retention task deletes, in the
background, what is older than `retention_max_age_days`, then the oldest until what is kept
fits in `retention_max_bytes`. Neither ever deletes a queued or running experiment, or one
a running tuning still needs.

A tuning run is deleted as a whole, with the experiments it ran; a check or calibration goes
with its experiment (and deleting either deletes that experiment).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from tracetax.app.runtime import EngineRuntime
from tracetax.core.config import Settings
from tracetax.db import repository as repo
from tracetax.db.models import Calibration, Check, Tuning

log = logging.getLogger(__name__)


class NotFoundError(LookupError):
    """No such experiment, check, calibration or tuning."""


class StillActiveError(RuntimeError):
    """It is queued or running: deleting it would pull the ground from under the measurement."""


@dataclass(frozen=True)
class Store:
    """Where an experiment is kept: the database and the work directories, and whether the
    queue still works on one (it stays the queue's while its span ledger is collected)."""

    sessions: sessionmaker[Session]
    work_dir: Path
    busy: Callable[[str], bool] = lambda _experiment_id: False

    @classmethod
    def of(cls, runtime: EngineRuntime) -> Store:
        return cls(runtime.sessions, runtime.engine.work_dir, lambda i: runtime.queue.position(i) is not None)


# -- on request ----------------------------------------------------------------------------------


def delete_experiment(store: Store, experiment_id: str) -> None:
    """Delete the experiment with its rows and work directory (and the check or calibration it
    answers). Refused while it is queued or running, or while the tuning that ran it runs."""
    with store.sessions() as session:
        status = repo.experiment_status(session, experiment_id)
        if status is None:
            raise NotFoundError(f"no experiment {experiment_id}")
        _refuse_active(store, experiment_id, status, f"experiment {experiment_id}")
        for tuning in repo.tunings_of(session, experiment_id):
            if tuning.status in repo.ACTIVE_STATES:
                raise StillActiveError(
                    f"experiment {experiment_id} belongs to tuning {tuning.id}, which is {tuning.status}: "
                    f"cancel the tuning first (POST /api/v1/tunings/{tuning.id}/cancel)"
                )
        repo.delete_experiments(session, [experiment_id])
    remove_work_dirs(store.work_dir, [experiment_id])


def delete_check(store: Store, check_id: str) -> None:
    """Delete the check and the experiment it ran."""
    _delete_with_experiment(store, "check", check_id, repo.get_check)


def delete_calibration(store: Store, calibration_id: str) -> None:
    """Delete the calibration and its A/A experiment."""
    _delete_with_experiment(store, "calibration", calibration_id, repo.get_calibration)


def _delete_with_experiment(
    store: Store, kind: str, record_id: str, get: Callable[[Session, str], Check | Calibration | None]
) -> None:
    """Delete a record that answers one experiment (a check, a calibration) by deleting that
    experiment, which takes the record with it."""
    with store.sessions() as session:
        record = get(session, record_id)
        if record is None:
            raise NotFoundError(f"no {kind} {record_id}")
        experiment_id = record.experiment_id
    _delete_behind(store, f"{kind} {record_id}", experiment_id)


def delete_tuning(store: Store, tuning_id: str) -> None:
    """Delete the tuning run and every experiment it ran."""
    with store.sessions() as session:
        tuning = repo.get_tuning(session, tuning_id)
        if tuning is None:
            raise NotFoundError(f"no tuning {tuning_id}")
        if tuning.status in repo.ACTIVE_STATES:
            raise StillActiveError(
                f"tuning {tuning_id} is {tuning.status}: cancel it first (POST /api/v1/tunings/{tuning_id}/cancel), "
                "then delete it once it has stopped"
            )
        experiment_ids = list(tuning.experiment_ids)
        for experiment_id in experiment_ids:
            status = repo.experiment_status(session, experiment_id)
            if status is not None:
                _refuse_active(store, experiment_id, status, f"tuning {tuning_id}'s experiment {experiment_id}")
        repo.delete_tuning(session, tuning)
    remove_work_dirs(store.work_dir, experiment_ids)


def _delete_behind(store: Store, what: str, experiment_id: str) -> None:
    """Delete the experiment behind a check or calibration (the row goes with it)."""
    with store.sessions() as session:
        status = repo.experiment_status(session, experiment_id) or "gone"
        _refuse_active(store, experiment_id, status, f"{what} (experiment {experiment_id})")
        repo.delete_experiments(session, [experiment_id])
    remove_work_dirs(store.work_dir, [experiment_id])


def _refuse_active(store: Store, experiment_id: str, status: str, what: str) -> None:
    if status in repo.ACTIVE_STATES or store.busy(experiment_id):
        shown = status if status in repo.ACTIVE_STATES else "still finishing (its span ledger is being read)"
        raise StillActiveError(
            f"{what} is {shown}: cancel it first (POST /api/v1/experiments/{experiment_id}/cancel), "
            "then delete it once it has stopped"
        )


# -- files ---------------------------------------------------------------------------------------


def work_dir_of(work_dir: Path, experiment_id: str) -> Path | None:
    """`<work_dir>/<experiment id>`; None for an id that is not a single plain name (ids are
    UUIDs; this keeps a deletion inside the work directory whatever a row says)."""
    if not experiment_id or experiment_id in (".", "..") or "/" in experiment_id or "\\" in experiment_id:
        return None
    return work_dir / experiment_id


def remove_work_dirs(work_dir: Path, experiment_ids: Sequence[str]) -> None:
    """Remove each experiment's work directory. A failure is logged, not raised: the rows are
    already gone, and what is left is only raw files."""
    for experiment_id in experiment_ids:
        path = work_dir_of(work_dir, experiment_id)
        if path is None:
            continue
        try:
            if path.is_symlink():
                path.unlink()
            elif path.is_dir():
                shutil.rmtree(path)
        except OSError as error:
            log.warning(
                "could not remove the work directory %s of deleted experiment %s: %s", path, experiment_id, error
            )


def directory_bytes(path: Path) -> int:
    """The bytes of the files under `path` (0 if it does not exist); symlinks not followed."""
    total = 0
    try:
        entries = list(os.scandir(path))
    except OSError:
        return 0
    for entry in entries:
        with contextlib.suppress(OSError):  # a file removed while walking counts nothing
            if entry.is_dir(follow_symlinks=False):
                total += directory_bytes(Path(entry.path))
            else:
                total += entry.stat(follow_symlinks=False).st_size
    return total


# -- retention -----------------------------------------------------------------------------------


@dataclass
class Deletable:
    """What retention deletes in one go: a finished experiment of its own (with its check or
    calibration), or a finished tuning with every experiment it ran."""

    experiment_ids: list[str]
    ended: datetime
    size_bytes: int
    tuning_id: str | None = None

    def describe(self) -> str:
        if self.tuning_id is not None:
            return f"tuning {self.tuning_id} ({len(self.experiment_ids)} experiments)"
        return f"experiment {self.experiment_ids[0]}"


@dataclass
class RetentionPass:
    """What one pass deleted, and what stays."""

    deleted_experiments: list[str] = field(default_factory=list)
    deleted_tunings: list[str] = field(default_factory=list)
    freed_bytes: int = 0
    kept_bytes: int = 0


def enforce_retention(
    store: Store, max_age_days: float | None, max_bytes: int | None, now: datetime | None = None
) -> RetentionPass:
    """One pass: delete what ended more than `max_age_days` ago, then the oldest until the
    experiments' work directories and rows (about their size) fit in `max_bytes`. Queued and
    running experiments, and running tunings' experiments, count toward the size but are kept."""
    now = now or datetime.now(UTC)
    with store.sessions() as session:
        states = repo.experiment_states(session)
        row_bytes = repo.stored_bytes(session)
        tunings = list(repo.list_all_tunings(session))
    sizes = {
        i: row_bytes.get(i, 0) + directory_bytes(store.work_dir / i) for i in states if work_dir_of(store.work_dir, i)
    }
    candidates = sorted(_deletables(store, states, tunings, sizes), key=lambda d: d.ended)
    outcome = RetentionPass(kept_bytes=sum(sizes.values()))
    for deletable in candidates:
        if max_age_days is not None and deletable.ended < now - timedelta(days=max_age_days):
            reason = f"ended {deletable.ended:%Y-%m-%d %H:%M} UTC, over retention_max_age_days ({max_age_days:g})"
        elif max_bytes is not None and outcome.kept_bytes > max_bytes:
            reason = f"the oldest while {outcome.kept_bytes} bytes are kept, over retention_max_bytes ({max_bytes})"
        else:
            continue
        _delete(store, deletable, reason, outcome)
    return outcome


def _deletables(
    store: Store, states: dict[str, tuple[str, datetime]], tunings: Sequence[Tuning], sizes: dict[str, int]
) -> list[Deletable]:
    def finished(experiment_id: str) -> bool:
        status = states[experiment_id][0]
        return status in repo.FINAL_EXPERIMENT_STATES and not store.busy(experiment_id)

    deletables = []
    in_tunings: set[str] = set()
    for tuning in tunings:
        ids = [i for i in tuning.experiment_ids if i in states]
        in_tunings.update(ids)
        if tuning.status in repo.FINAL_EXPERIMENT_STATES and all(finished(i) for i in ids):
            ended = tuning.finished_at or tuning.created_at
            deletables.append(Deletable(ids, ended, sum(sizes.get(i, 0) for i in ids), tuning.id))
    for experiment_id, (_, ended) in states.items():
        if experiment_id not in in_tunings and experiment_id in sizes and finished(experiment_id):
            deletables.append(Deletable([experiment_id], ended, sizes[experiment_id]))
    return deletables


def _delete(store: Store, deletable: Deletable, reason: str, outcome: RetentionPass) -> None:
    """Delete one; a failure is logged and the pass goes on with the next."""
    try:
        with store.sessions() as session:
            tuning = repo.get_tuning(session, deletable.tuning_id) if deletable.tuning_id else None
            if tuning is not None:
                repo.delete_tuning(session, tuning)
            else:
                repo.delete_experiments(session, deletable.experiment_ids)
        remove_work_dirs(store.work_dir, deletable.experiment_ids)
    except Exception:
        log.exception("retention: could not delete %s", deletable.describe())
        return
    log.info("retention: deleted %s, about %d bytes: %s", deletable.describe(), deletable.size_bytes, reason)
    outcome.deleted_experiments.extend(deletable.experiment_ids)
    if deletable.tuning_id is not None:
        outcome.deleted_tunings.append(deletable.tuning_id)
    outcome.freed_bytes += deletable.size_bytes
    outcome.kept_bytes -= deletable.size_bytes


class RetentionTask:
    """Runs a retention pass at start-up and every `retention_interval_s` on the event loop's
    default executor. A pass that fails is logged and the next one runs on time."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self.settings.retention_max_age_days is not None or self.settings.retention_max_bytes is not None

    def start(self) -> None:
        if self.enabled:
            self._task = asyncio.create_task(self._serve(), name="tracetax-retention")

    async def stop(self) -> None:
        """Let a pass under way finish (it deletes row by row), then end."""
        self._stop.set()
        if self._task is not None:
            await self._task

    async def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                await asyncio.to_thread(
                    enforce_retention,
                    self.store,
                    self.settings.retention_max_age_days,
                    self.settings.retention_max_bytes,
                )
            except Exception:
                log.exception("retention pass failed; the next one runs in %g s", self.settings.retention_interval_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=self.settings.retention_interval_s)
