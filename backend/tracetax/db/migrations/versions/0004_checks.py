"""checks: CI overhead checks (an experiment and a budget)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 13:52:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "checks",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("experiment_id", sa.String(length=36), nullable=False),
        sa.Column("budget", sa.JSON(), nullable=False),
        sa.Column("strict", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["experiment_id"], ["experiments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("checks") as batch_op:
        batch_op.create_index("ix_checks_experiment_id", ["experiment_id"], unique=False)
        batch_op.create_index("ix_checks_created_at", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_table("checks")
