"""rounds.figures: each subject's figures of a round in one typed JSON column

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26 12:00:00

Until now a round kept its figures in four columns named for a service under HTTP load
(`open_phase`, `requests_total`, `max_throughput_rps`, `closed_phase`), and a Collector
pipeline's round overloaded them: its measured window and span ledger in `open_phase`, the
spans it sent in `requests_total`, its ramp in `closed_phase` and the ramp's sustainable span
rate in `max_throughput_rps`. Each subject now has typed figures (tracetax.engine.figures)
stored in `figures`; this migration copies every stored round into it and drops the four.

None of the four is kept: all of them mean something else for each subject (requests answered
or spans sent; a service's maximum throughput or a pipeline's sustainable span rate), and
`max_throughput_rps` of a pipeline only repeats its ramp's `max_sustainable_spans_per_s`, which
its figures keep once. A round whose four columns are all empty never ran: its figures stay
NULL. A round's subject is its experiment's spec's `subject` ("service" when absent: specs
before pipelines). The copy is row by row in Python, the same on SQLite and PostgreSQL (JSON is
read and written through SQLAlchemy's JSON type, which both serialize alike); the downgrade
copies the figures back into the four columns.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# The tables as this migration reads and writes them (not the application's models, which move on).
experiments = sa.table("experiments", sa.column("id", sa.String), sa.column("spec", sa.JSON))
rounds = sa.table(
    "rounds",
    sa.column("id", sa.Integer),
    sa.column("experiment_id", sa.String),
    sa.column("open_phase", sa.JSON),
    sa.column("requests_total", sa.Integer),
    sa.column("max_throughput_rps", sa.Float),
    sa.column("closed_phase", sa.JSON),
    sa.column("figures", sa.JSON),
)

OLD_COLUMNS = ("open_phase", "requests_total", "max_throughput_rps", "closed_phase")


def _subjects(connection: sa.Connection) -> dict[str, str]:
    """Each experiment's subject, by id."""
    return {
        experiment_id: (spec or {}).get("subject", "service")
        for experiment_id, spec in connection.execute(sa.select(experiments.c.id, experiments.c.spec))
    }


def _figures(subject: str, old: dict[str, Any]) -> dict[str, Any] | None:
    """A round's four columns as its subject's figures: the keys that were not NULL."""
    if all(old[name] is None for name in OLD_COLUMNS):
        return None
    if subject == "collector":
        named = {"spans_total": old["requests_total"], "measured": old["open_phase"], "ramp": old["closed_phase"]}
    else:
        named = {key: old[key] for key in OLD_COLUMNS}
    return {key: value for key, value in named.items() if value is not None}


def _columns(subject: str, figures: dict[str, Any] | None) -> dict[str, Any]:
    """The figures back in the four columns (the downgrade)."""
    if figures is None:
        return dict.fromkeys(OLD_COLUMNS)
    if subject == "collector":
        ramp = figures.get("ramp")
        return {
            "open_phase": figures.get("measured"),
            "requests_total": figures.get("spans_total", 0),
            "max_throughput_rps": ramp.get("max_sustainable_spans_per_s") if ramp is not None else None,
            "closed_phase": ramp,
        }
    return {
        **dict.fromkeys(OLD_COLUMNS),
        "requests_total": 0,
        **{k: figures.get(k) for k in OLD_COLUMNS if k in figures},
    }


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.add_column(sa.Column("figures", sa.JSON(), nullable=True))
    connection = op.get_bind()
    subjects = _subjects(connection)
    query = sa.select(rounds.c.id, rounds.c.experiment_id, *(rounds.c[name] for name in OLD_COLUMNS))
    for row in connection.execute(query).mappings().all():
        figures = _figures(subjects.get(row["experiment_id"], "service"), dict(row))
        if figures is not None:
            connection.execute(sa.update(rounds).where(rounds.c.id == row["id"]).values(figures=figures))
    with op.batch_alter_table("rounds") as batch_op:
        for name in OLD_COLUMNS:
            batch_op.drop_column(name)


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.add_column(sa.Column("open_phase", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("requests_total", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("max_throughput_rps", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("closed_phase", sa.JSON(), nullable=True))
    connection = op.get_bind()
    subjects = _subjects(connection)
    query = sa.select(rounds.c.id, rounds.c.experiment_id, rounds.c.figures).where(rounds.c.figures.is_not(None))
    for row in connection.execute(query).mappings().all():
        values = _columns(subjects.get(row["experiment_id"], "service"), row["figures"])
        connection.execute(sa.update(rounds).where(rounds.c.id == row["id"]).values(**values))
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.drop_column("figures")
