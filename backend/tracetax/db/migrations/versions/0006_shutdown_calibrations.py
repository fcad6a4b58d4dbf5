"""rounds.shutdown (how the service ended after SIGTERM) and calibrations (A/A noise floors)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 17:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.add_column(sa.Column("shutdown", sa.JSON(), nullable=True))
    op.create_table(
        "calibrations",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("experiment_id", sa.String(36), sa.ForeignKey("experiments.id", ondelete="CASCADE"), index=True),
        sa.Column("service", sa.String(120), index=True),
        sa.Column("signature", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("calibrations")
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.drop_column("shutdown")
