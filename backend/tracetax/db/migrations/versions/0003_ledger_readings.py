"""ledger_readings: the span ledger of each round, re-collectable

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 13:56:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ledger_readings",
        sa.Column("run_id", sa.String(length=36), nullable=False),
        sa.Column("experiment_id", sa.String(length=36), nullable=False),
        sa.Column("ledger", sa.JSON(), nullable=False),
        sa.Column("sample_trace_ids", sa.JSON(), nullable=False),
        sa.Column("collected_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["experiment_id"], ["experiments.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["run_id"], ["rounds.run_id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("run_id"),
    )
    with op.batch_alter_table("ledger_readings") as batch_op:
        batch_op.create_index("ix_ledger_readings_experiment_id", ["experiment_id"], unique=False)


def downgrade() -> None:
    op.drop_table("ledger_readings")
