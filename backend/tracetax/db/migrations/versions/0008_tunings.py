"""tunings: tuning runs (their spec, experiments, progress and report)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 16:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tunings",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("experiment_ids", sa.JSON(), nullable=False),
        sa.Column("progress", sa.Text(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tunings") as batch_op:
        batch_op.create_index("ix_tunings_status", ["status"], unique=False)
        batch_op.create_index("ix_tunings_created_at", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_table("tunings")
