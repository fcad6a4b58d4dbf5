"""Tables: an experiment has rounds (one per round x configuration, raw data) and, once it
has finished, one result row per configuration (aggregates computed from the rounds)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, DateTime, Dialect, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp that reads back in UTC, time-zone aware, whatever the database. Every instant
    here is UTC, so loaded values say so once, here, instead of at every comparison or API field.

    SQLite stores no time zone: it keeps a value's wall-clock digits and drops its offset, and
    reads back naive values. PostgreSQL stores the instant (timestamptz) and reads it back in
    the session's TimeZone, the server's own by default, which is often not UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        # The UTC digits, so that SQLite's offset-less copy still names the same instant.
        return value.astimezone(UTC) if value is not None and value.tzinfo is not None else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _without_nul(value: str | None) -> str | None:
    return value.replace("\x00", "\ufffd") if value is not None else None


class NulFreeString(TypeDecorator[str]):
    """A string column that never sends U+0000. PostgreSQL's text types cannot hold it (the
    driver refuses the whole statement) while SQLite stores it, and it does reach these
    columns: from the API (a name, an id in a path) and from services' own output (log
    tails, errors). It is stored, and compared, as U+FFFD, the character that stands for one
    that cannot be represented, the same on every database; an id looked up with a NUL in it
    matches nothing."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return _without_nul(value)


class NulFreeText(TypeDecorator[str]):
    """Text's counterpart of NulFreeString."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return _without_nul(value)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class Experiment(Base):
    __tablename__ = "experiments"

    id: Mapped[str] = mapped_column(NulFreeString(36), primary_key=True)
    name: Mapped[str | None] = mapped_column(NulFreeString(120))
    # queued | running | completed | failed | cancelled | interrupted
    status: Mapped[str] = mapped_column(NulFreeString(16), index=True)
    service: Mapped[str] = mapped_column(NulFreeString(120), index=True)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    error: Mapped[str | None] = mapped_column(NulFreeText)
    # Host facts recorded when the run starts: cores, CPU placement, tool versions, the
    # machine's fingerprint (`machine`), what each configuration ran (`configurations`).
    environment: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Where it came from (tracetax.spec.provenance.Provenance: repository, branch, commit,
    # pull request, CI run); kept beside the spec, not in it. None when not given.
    provenance: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    rounds: Mapped[list[Round]] = relationship(
        back_populates="experiment", order_by="(Round.round_index, Round.order_index)", cascade="all, delete-orphan"
    )
    # In the order they were saved (the spec's), whatever order the database returns rows in.
    results: Mapped[list[ConfigurationResult]] = relationship(
        back_populates="experiment", order_by="ConfigurationResult.id", cascade="all, delete-orphan"
    )


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (UniqueConstraint("experiment_id", "round_index", "configuration"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    round_index: Mapped[int] = mapped_column(Integer)
    order_index: Mapped[int] = mapped_column(Integer)
    configuration: Mapped[str] = mapped_column(NulFreeString(40))
    run_id: Mapped[str] = mapped_column(NulFreeString(36), unique=True)
    # pending | running | completed | failed | cancelled | interrupted
    status: Mapped[str] = mapped_column(NulFreeString(16))
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    error: Mapped[str | None] = mapped_column(NulFreeText)
    service_log_tail: Mapped[str | None] = mapped_column(NulFreeText)
    exit_code: Mapped[int | None] = mapped_column(Integer)
    placement: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Open-model phase: the whole latency distribution (HdrHistogram encoding, µs).
    histogram: Mapped[str | None] = mapped_column(NulFreeText)
    # What the round's phases measured, as its subject's typed figures (tracetax.engine.figures:
    # a service's open and closed-loop phases and requests, a pipeline's window, ledger and
    # ramp); None for a round that never ran.
    figures: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Resource samples every 250 ms during the open phase (service and load generator).
    samples: Mapped[list[Any] | None] = mapped_column(JSON)
    resources: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # Stack samples of the measured phase: {sampler, samples, seconds} or {sampler, error}, and
    # the folded stacks themselves (tracetax.profiling.folded), the flame graph's input.
    stack_profile: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    folded_stacks: Mapped[str | None] = mapped_column(NulFreeText)
    # How the service ended after SIGTERM: exit code, whether it flushed, what that means.
    shutdown: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    experiment: Mapped[Experiment] = relationship(back_populates="rounds")


class ConfigurationResult(Base):
    __tablename__ = "configuration_results"
    __table_args__ = (UniqueConstraint("experiment_id", "configuration"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    configuration: Mapped[str] = mapped_column(NulFreeString(40))
    aggregates: Mapped[dict[str, Any]] = mapped_column(JSON)
    computed_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    experiment: Mapped[Experiment] = relationship(back_populates="results")


class LedgerReading(Base):
    """The span ledger of one round as last read from the backends. Unlike results, a reading
    can be taken again (a backend that was down during collection may answer later)."""

    __tablename__ = "ledger_readings"

    run_id: Mapped[str] = mapped_column(ForeignKey("rounds.run_id", ondelete="CASCADE"), primary_key=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    ledger: Mapped[dict[str, Any]] = mapped_column(JSON)
    sample_trace_ids: Mapped[list[Any]] = mapped_column(JSON)
    collected_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)


class Check(Base):
    """A CI overhead check: an experiment of a baseline and a candidate, and a budget."""

    __tablename__ = "checks"

    id: Mapped[str] = mapped_column(NulFreeString(36), primary_key=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    budget: Mapped[dict[str, Any]] = mapped_column(JSON)
    strict: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)
    # The candidate's and the baseline's own names (`batch-default`), before the check's
    # experiment renames them `candidate` and `baseline`: a history is a configuration's.
    configuration: Mapped[str | None] = mapped_column(NulFreeString(120))
    baseline_configuration: Mapped[str | None] = mapped_column(NulFreeString(120))
    # The gate against the branch's history, when asked (tracetax.spec.provenance.HistoryGate).
    against_history: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # The paired overheads with their intervals, once the experiment has completed (the
    # history's points: docs/ci-checks.md); None until then.
    overheads: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class Calibration(Base):
    """An A/A experiment run by `tracetax calibrate`: its noise floor is what this machine can
    resolve for a service at a load; checks refuse budgets tighter than that."""

    __tablename__ = "calibrations"

    id: Mapped[str] = mapped_column(NulFreeString(36), primary_key=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    service: Mapped[str] = mapped_column(NulFreeString(120), index=True)
    # What a check must match to use this calibration: service, configuration, load.
    signature: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)


class Tuning(Base):
    """A tuning run (`tracetax tune`, POST /api/v1/tunings): its spec, the experiments it ran
    (each an ordinary experiment), what it says while it runs, and its report once finished."""

    __tablename__ = "tunings"

    id: Mapped[str] = mapped_column(NulFreeString(36), primary_key=True)
    name: Mapped[str | None] = mapped_column(NulFreeString(120))
    status: Mapped[str] = mapped_column(NulFreeString(16), index=True)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    experiment_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    progress: Mapped[str | None] = mapped_column(NulFreeText)
    report: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(NulFreeText)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
