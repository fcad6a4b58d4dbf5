"""Reads and writes of experiments, rounds and results. Completed results are immutable:
a round leaves `pending`/`running` once, and configuration results are written once."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Text, case, cast, delete, func, literal, select, type_coerce, update
from sqlalchemy.orm import Session, selectinload

from tracetax.db.models import (
    Calibration,
    Check,
    ConfigurationResult,
    Experiment,
    LedgerReading,
    NulFreeString,
    Round,
    Tuning,
    utcnow,
)

OPEN_ROUND_STATES = ("pending", "running")
FINAL_EXPERIMENT_STATES = ("completed", "failed", "cancelled", "interrupted")
# Experiments and tunings in these states are never deleted: something still works on them.
ACTIVE_STATES = ("queued", "running")


class ImmutableResultError(RuntimeError):
    """An attempt to rewrite a finished round or stored results."""


def now() -> datetime:
    return datetime.now(UTC)


def create_experiment(
    session: Session, spec: dict[str, Any], service: str, name: str | None, provenance: dict[str, Any] | None = None
) -> Experiment:
    experiment = Experiment(
        id=str(uuid.uuid4()), name=name, status="queued", service=service, spec=spec, provenance=provenance
    )
    session.add(experiment)
    session.commit()
    return experiment


def get_experiment(session: Session, experiment_id: str) -> Experiment | None:
    return session.scalar(
        select(Experiment)
        .where(Experiment.id == experiment_id)
        .options(selectinload(Experiment.rounds), selectinload(Experiment.results))
    )


def list_experiments(session: Session, service: str | None = None, limit: int = 100) -> Sequence[Experiment]:
    query = select(Experiment).order_by(Experiment.created_at.desc()).limit(limit)
    if service:
        query = query.where(Experiment.service == service)
    return session.scalars(query.options(selectinload(Experiment.results))).all()


def ledger_readings(session: Session, experiment_id: str) -> Sequence[LedgerReading]:
    """The span ledger of each round of the experiment, as last read from the backends, in the
    rounds' order. (Without an ORDER BY, rows come in whatever order the database finds them:
    insertion order on SQLite here, but PostgreSQL reuses the space that replaced readings
    leave behind.)"""
    query = (
        select(LedgerReading)
        .join(Round, Round.run_id == LedgerReading.run_id)
        .where(LedgerReading.experiment_id == experiment_id)
        .order_by(Round.round_index, Round.order_index)
    )
    return session.scalars(query).all()


def replace_ledger_readings(session: Session, experiment_id: str, readings: Sequence[LedgerReading]) -> None:
    """Replace an experiment's ledger readings in one short transaction. Callers read the
    backends first: a write held open across their answers locked SQLite for every writer."""
    session.rollback()  # end any read transaction left open before writing
    session.execute(delete(LedgerReading).where(LedgerReading.experiment_id == experiment_id))
    session.add_all(readings)
    session.commit()


def create_check(
    session: Session,
    experiment_id: str,
    budget: dict[str, Any],
    strict: bool,
    *,
    configuration: str | None = None,
    baseline_configuration: str | None = None,
    against_history: dict[str, Any] | None = None,
) -> Check:
    check = Check(
        id=str(uuid.uuid4()),
        experiment_id=experiment_id,
        budget=budget,
        strict=strict,
        configuration=configuration,
        baseline_configuration=baseline_configuration,
        against_history=against_history,
    )
    session.add(check)
    session.commit()
    return check


def check_of_experiment(session: Session, experiment_id: str) -> Check | None:
    """The check an experiment answers, if it is a check's."""
    return session.scalars(select(Check).where(Check.experiment_id == experiment_id)).first()


def get_check(session: Session, check_id: str) -> Check | None:
    return session.get(Check, check_id)


def list_checks(session: Session, limit: int = 50) -> Sequence[Check]:
    """The most recent checks first."""
    return session.scalars(select(Check).order_by(Check.created_at.desc()).limit(limit)).all()


def create_calibration(session: Session, experiment_id: str, service: str, signature: dict[str, Any]) -> Calibration:
    calibration = Calibration(id=str(uuid.uuid4()), experiment_id=experiment_id, service=service, signature=signature)
    session.add(calibration)
    session.commit()
    return calibration


def get_calibration(session: Session, calibration_id: str) -> Calibration | None:
    return session.get(Calibration, calibration_id)


def list_calibrations(session: Session, limit: int = 50) -> Sequence[Calibration]:
    """The most recent calibrations first."""
    return session.scalars(select(Calibration).order_by(Calibration.created_at.desc()).limit(limit)).all()


def latest_completed_calibration(session: Session, signature: dict[str, Any]) -> Calibration | None:
    """The newest calibration with this signature whose experiment completed."""
    query = (
        select(Calibration)
        .join(Experiment, Experiment.id == Calibration.experiment_id)
        .where(Experiment.status == "completed")
        .order_by(Calibration.created_at.desc())
    )
    return next((c for c in session.scalars(query) if c.signature == signature), None)


def queued_ids(session: Session) -> list[str]:
    return list(
        session.scalars(select(Experiment.id).where(Experiment.status == "queued").order_by(Experiment.created_at))
    )


def waiting_count(session: Session) -> int:
    """What holds a place in the queue: the experiments waiting, and the tunings waiting for
    their first rung (a tuning's place passes to that rung when it is queued, see
    tracetax.app.tunings)."""
    experiments = select(func.count()).select_from(Experiment).where(Experiment.status == "queued")
    tunings = select(func.count()).select_from(Tuning).where(Tuning.status == "queued")
    return (session.scalar(experiments) or 0) + (session.scalar(tunings) or 0)


def set_status(session: Session, experiment: Experiment, status: str, error: str | None = None) -> None:
    if experiment.status in FINAL_EXPERIMENT_STATES:
        raise ImmutableResultError(f"experiment {experiment.id} is already {experiment.status}")
    experiment.status = status
    if status == "running":
        experiment.started_at = now()
    if status in FINAL_EXPERIMENT_STATES:
        experiment.finished_at = now()
    if error:
        experiment.error = error
    session.commit()


def create_rounds(session: Session, experiment: Experiment, slots: Sequence[tuple[int, int, str]]) -> list[Round]:
    rounds = [
        Round(
            experiment_id=experiment.id,
            round_index=round_index,
            order_index=order_index,
            configuration=configuration,
            run_id=str(uuid.uuid4()),
            status="pending",
        )
        for round_index, order_index, configuration in slots
    ]
    session.add_all(rounds)
    session.commit()
    return rounds


def update_round(session: Session, round_: Round, **values: Any) -> None:
    """Write a round's fields; refused once the round has left pending/running."""
    if round_.status not in OPEN_ROUND_STATES:
        raise ImmutableResultError(f"round {round_.run_id} is {round_.status}: its results are final")
    for key, value in values.items():
        setattr(round_, key, value)
    if values.get("status") == "running":
        round_.started_at = now()
    if values.get("status") not in (None, *OPEN_ROUND_STATES):
        round_.finished_at = now()
    session.commit()


def save_results(session: Session, experiment: Experiment, aggregates: Mapping[str, Mapping[str, Any]]) -> None:
    if experiment.results:
        raise ImmutableResultError(f"experiment {experiment.id} already has results")
    session.add_all(
        ConfigurationResult(experiment_id=experiment.id, configuration=name, aggregates=dict(values))
        for name, values in aggregates.items()
    )
    session.commit()
    session.refresh(experiment)


def mark_interrupted(session: Session) -> list[str]:
    """At start-up: a run that was going when the process died is interrupted, never dropped.
    Returns the ids so marked."""
    running = session.scalars(select(Experiment).where(Experiment.status == "running")).all()
    for experiment in running:
        experiment.status = "interrupted"
        experiment.finished_at = now()
        experiment.error = "the backend stopped while this experiment was running"
        for round_ in experiment.rounds:
            if round_.status in OPEN_ROUND_STATES:
                round_.status = "interrupted"
                round_.finished_at = now()
    session.commit()
    return [experiment.id for experiment in running]


def create_tuning(session: Session, spec: dict[str, Any], name: str | None) -> Tuning:
    tuning = Tuning(id=str(uuid.uuid4()), name=name, status="queued", spec=spec, experiment_ids=[])
    session.add(tuning)
    session.commit()
    return tuning


def get_tuning(session: Session, tuning_id: str) -> Tuning | None:
    return session.get(Tuning, tuning_id)


def list_tunings(session: Session, limit: int = 50) -> Sequence[Tuning]:
    """The most recent tuning runs first."""
    return session.scalars(select(Tuning).order_by(Tuning.created_at.desc()).limit(limit)).all()


def update_tuning(session: Session, tuning: Tuning, **changes: Any) -> None:
    """Status, progress, experiments, report or error; a final status stamps finished_at."""
    for name, value in changes.items():
        setattr(tuning, name, value)
    if changes.get("status") in FINAL_EXPERIMENT_STATES:
        tuning.finished_at = utcnow()
    session.commit()


def interrupted_tunings(session: Session) -> Sequence[Tuning]:
    """Runs a stopped backend left queued or running (their thread is gone)."""
    return session.scalars(select(Tuning).where(Tuning.status.in_(("queued", "running")))).all()


# -- deletion and retention ---------------------------------------------------------------------


def experiment_status(session: Session, experiment_id: str) -> str | None:
    """The experiment's status alone (None: no such experiment), without loading its rounds."""
    return session.scalar(select(Experiment.status).where(Experiment.id == experiment_id))


def tunings_of(session: Session, experiment_id: str) -> list[Tuning]:
    """The tuning runs that ran this experiment (one, or none)."""
    return [tuning for tuning in session.scalars(select(Tuning)) if experiment_id in tuning.experiment_ids]


def delete_experiments(session: Session, experiment_ids: Sequence[str]) -> None:
    """Delete the experiments with everything stored for them: rounds (samples, histograms,
    folded stacks), results, ledger readings, and the checks and calibrations they answer.
    Tuning runs that list one forget it. Explicit deletes, not the foreign keys' cascades: a
    database whose constraints were made without ON DELETE CASCADE is cleaned the same."""
    if not experiment_ids:
        return
    ids = list(experiment_ids)
    for tuning in session.scalars(select(Tuning)):
        kept = [i for i in tuning.experiment_ids if i not in ids]
        if kept != tuning.experiment_ids:
            tuning.experiment_ids = kept
    for model in (LedgerReading, Check, Calibration, ConfigurationResult, Round):
        session.execute(delete(model).where(model.experiment_id.in_(ids)))
    session.execute(delete(Experiment).where(Experiment.id.in_(ids)))
    session.commit()


def delete_tuning(session: Session, tuning: Tuning) -> None:
    """Delete the tuning run and every experiment it ran."""
    experiment_ids = list(tuning.experiment_ids)
    session.delete(tuning)
    session.flush()
    delete_experiments(session, experiment_ids)
    session.commit()


def experiment_states(session: Session) -> dict[str, tuple[str, datetime]]:
    """Every experiment's status and when it ended (when it was created, if it has not)."""
    query = select(Experiment.id, Experiment.status, func.coalesce(Experiment.finished_at, Experiment.created_at))
    return {id_: (status, ended) for id_, status, ended in session.execute(query)}


# What a row costs beyond its values' text (keys, indexes, page slack): a rough figure.
ROW_OVERHEAD_BYTES = 200


def _stored_length(column: Any) -> ColumnElement[int]:
    """About the bytes a value takes: the length of its text (JSON as serialized)."""
    return func.coalesce(func.length(cast(column, Text)), 0)


def stored_bytes(session: Session) -> dict[str, int]:
    """Per experiment, about the bytes of its stored rows: what deleting it frees in the
    database (its rounds' samples, histograms and stacks, results, ledger readings)."""
    sizes: dict[str, int] = {}
    columns = {
        Experiment: (Experiment.id, (Experiment.spec, Experiment.environment, Experiment.error)),
        Round: (
            Round.experiment_id,
            (
                Round.samples,
                Round.histogram,
                Round.folded_stacks,
                Round.stack_profile,
                Round.figures,
                Round.resources,
                Round.service_log_tail,
                Round.error,
            ),
        ),
        ConfigurationResult: (ConfigurationResult.experiment_id, (ConfigurationResult.aggregates,)),
        LedgerReading: (LedgerReading.experiment_id, (LedgerReading.ledger, LedgerReading.sample_trace_ids)),
    }
    for key, values in columns.values():
        total = sum((_stored_length(value) for value in values), start=literal(ROW_OVERHEAD_BYTES))
        for experiment_id, size in session.execute(select(key, func.sum(total)).group_by(key)):
            sizes[experiment_id] = sizes.get(experiment_id, 0) + int(size or 0)
    return sizes


def list_all_tunings(session: Session) -> Sequence[Tuning]:
    return session.scalars(select(Tuning)).all()


# -- history: checks by service, configuration and branch ---------------------------------------


def _compared_as_stored(text: ColumnElement[str]) -> ColumnElement[str]:
    """`text` compared as the NUL-free columns compare (NulFreeString): a value bound against
    it has its U+0000 replaced. Needed where the text comes out of JSON, whose extraction
    bypasses the columns' type, so that a NUL would reach PostgreSQL, which refuses it."""
    return type_coerce(text, NulFreeString())


def _history_service() -> ColumnElement[str]:
    """The service a check's history is kept under: a demo's language or the pipeline lab's
    `collector` (the experiment's `service` label), a user's own command by its service_name
    (every command service is labelled `command`). history_service() is the same in Python."""
    command_name = Experiment.spec[("service", "service_name")].as_string()
    return _compared_as_stored(case((Experiment.service == "command", command_name), else_=Experiment.service))


def history_service(experiment: Experiment) -> str:
    """The service a check's history is kept under (see _history_service)."""
    if experiment.service == "command":
        return str((experiment.spec.get("service") or {}).get("service_name") or experiment.service)
    return experiment.service


def history_checks(
    session: Session,
    service: str,
    configuration: str | None,
    branch: str | None,
    limit: int,
    machine: str | None = None,
    before: datetime | None = None,
) -> list[tuple[Check, Experiment]]:
    """The newest `limit` checks of the service whose experiment completed, oldest first, with
    their experiments: of one candidate configuration (None: every one), of one branch and
    machine fingerprint (None: any), created before `before` (None: any time)."""
    query = (
        select(Check, Experiment)
        .join(Experiment, Experiment.id == Check.experiment_id)
        .where(Experiment.status == "completed", _history_service() == service)
        .order_by(Check.created_at.desc(), Check.id.desc())
        .limit(limit)
    )
    if configuration is not None:
        query = query.where(Check.configuration == configuration)
    if branch is not None:
        query = query.where(_compared_as_stored(Experiment.provenance["branch"].as_string()) == branch)
    if machine is not None:
        fingerprint = Experiment.environment[("machine", "fingerprint")].as_string()
        query = query.where(_compared_as_stored(fingerprint) == machine)
    if before is not None:
        query = query.where(Check.created_at < before)
    rows = [(check, experiment) for check, experiment in session.execute(query)]
    return rows[::-1]


def history_configurations(session: Session, service: str) -> list[str]:
    """The candidate configurations the service's checks measured, by name."""
    query = (
        select(Check.configuration)
        .join(Experiment, Experiment.id == Check.experiment_id)
        .where(_history_service() == service, Check.configuration.is_not(None))
        .distinct()
    )
    return sorted(name for name in session.scalars(query) if name is not None)


def save_check_overheads(session: Session, check_id: str, overheads: dict[str, Any]) -> dict[str, Any] | None:
    """Store a finished check's overhead snapshot, once, and return the one stored: a snapshot
    already stored (by another request that read the check first) is kept as it is."""
    session.execute(update(Check).where(Check.id == check_id, Check.overheads.is_(None)).values(overheads=overheads))
    session.commit()
    stored: dict[str, Any] | None = session.scalar(select(Check.overheads).where(Check.id == check_id))
    return stored
