"""Migration 0010 on a database with a stored experiment and check (SQLite and PostgreSQL, by
the `databases` fixture): the new columns come in empty (a check stored before kept no
configuration names, so it stays out of histories), the app's models read the rows, and the
downgrade drops the columns and keeps the rows."""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import command

from tracetax.db import repository as repo
from tracetax.db.session import alembic_config, make_engine, migrate, session_factory

SPEC = {"subject": "service", "configurations": [{"name": "baseline", "baseline": True}, {"name": "candidate"}]}
BUDGET = {"p99_overhead_pct": 10}
CHECK_COLUMNS = {"configuration", "baseline_configuration", "against_history", "overheads"}

experiments = sa.table(
    "experiments",
    sa.column("id", sa.String),
    sa.column("status", sa.String),
    sa.column("service", sa.String),
    sa.column("spec", sa.JSON),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
checks = sa.table(
    "checks",
    sa.column("id", sa.String),
    sa.column("experiment_id", sa.String),
    sa.column("budget", sa.JSON),
    sa.column("strict", sa.Boolean),
    sa.column("created_at", sa.DateTime(timezone=True)),
)


def store_before_0010(url: str) -> None:
    command.upgrade(alembic_config(url), "0009")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            now = datetime.now(UTC)
            connection.execute(
                sa.insert(experiments).values(id="e1", status="completed", service="go", spec=SPEC, created_at=now)
            )
            connection.execute(
                sa.insert(checks).values(id="c1", experiment_id="e1", budget=BUDGET, strict=False, created_at=now)
            )
    finally:
        engine.dispose()


def columns(url: str, table: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {column["name"] for column in sa.inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def test_a_check_stored_before_0010_has_no_provenance_or_names(empty_database_url: str) -> None:
    store_before_0010(empty_database_url)
    migrate(empty_database_url)

    engine = make_engine(empty_database_url)
    try:
        with session_factory(engine)() as session:
            check = repo.get_check(session, "c1")
            experiment = repo.get_experiment(session, "e1")
            assert check is not None and experiment is not None
            assert check.budget == BUDGET
            assert (check.configuration, check.baseline_configuration) == (None, None)
            assert (check.against_history, check.overheads) == (None, None)
            assert experiment.provenance is None
            assert experiment.spec == SPEC
    finally:
        engine.dispose()


def test_0010_stores_what_a_check_now_keeps(empty_database_url: str) -> None:
    migrate(empty_database_url)
    engine = make_engine(empty_database_url)
    provenance = {"branch": "main", "commit": "9fceb02", "ci_system": "github-actions"}
    gate = {"branch": "main", "points": 10, "max_growth_pct": 5.0}
    try:
        with session_factory(engine)() as session:
            experiment = repo.create_experiment(session, SPEC, "go", "check", provenance)
            stored = repo.create_check(
                session,
                experiment.id,
                BUDGET,
                False,
                configuration="batch-default",
                baseline_configuration="none",
                against_history=gate,
            )
        with session_factory(engine)() as session:
            check = repo.get_check(session, stored.id)
            reread = repo.get_experiment(session, experiment.id)
            assert check is not None and reread is not None
            assert (check.configuration, check.baseline_configuration) == ("batch-default", "none")
            assert check.against_history == gate
            assert reread.provenance == provenance
    finally:
        engine.dispose()


def test_0010_goes_down_keeping_the_rows(empty_database_url: str) -> None:
    store_before_0010(empty_database_url)
    migrate(empty_database_url)
    command.downgrade(alembic_config(empty_database_url), "0009")

    assert not CHECK_COLUMNS & columns(empty_database_url, "checks")
    assert "provenance" not in columns(empty_database_url, "experiments")
    engine = make_engine(empty_database_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(sa.select(checks.c.id, checks.c.budget)).all() == [("c1", BUDGET)]
    finally:
        engine.dispose()
    migrate(empty_database_url)  # and up again
    assert columns(empty_database_url, "checks") >= CHECK_COLUMNS
