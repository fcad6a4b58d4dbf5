"""history: provenance on experiments; a check's configurations, history gate and overheads

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26 17:40:00

A check is remembered by where it came from, so that its overheads make a history per commit
(issue 24, docs/ci-checks.md):

- `experiments.provenance`: the repository, branch, commit, pull request and CI run a check or
  an experiment came from (tracetax.spec.provenance.Provenance). Kept beside the spec, not in
  it, so the same spec run from two commits is still the same spec.
- `checks.configuration` and `checks.baseline_configuration`: the candidate's and the
  baseline's own names (`batch-default`), which the check's experiment renames `candidate` and
  `baseline`; a history is a configuration's.
- `checks.against_history`: the gate asked for against the branch's history (a HistoryGate).
- `checks.overheads`: the check's paired overheads with their intervals once its experiment has
  completed, the points a history is drawn from.

All nullable: checks stored before this revision have none of them (their configurations'
names were not kept), and are left out of histories. The downgrade drops the columns.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

CHECK_COLUMNS = ("configuration", "baseline_configuration", "against_history", "overheads")


def upgrade() -> None:
    with op.batch_alter_table("experiments") as batch_op:
        batch_op.add_column(sa.Column("provenance", sa.JSON(), nullable=True))
    with op.batch_alter_table("checks") as batch_op:
        batch_op.add_column(sa.Column("configuration", sa.String(length=120), nullable=True))
        batch_op.add_column(sa.Column("baseline_configuration", sa.String(length=120), nullable=True))
        batch_op.add_column(sa.Column("against_history", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("overheads", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("checks") as batch_op:
        for name in CHECK_COLUMNS:
            batch_op.drop_column(name)
    with op.batch_alter_table("experiments") as batch_op:
        batch_op.drop_column("provenance")
