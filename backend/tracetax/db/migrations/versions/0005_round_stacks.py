"""rounds.stack_profile and rounds.folded_stacks: the service's stacks in the measured phase

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 15:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.add_column(sa.Column("stack_profile", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("folded_stacks", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.drop_column("folded_stacks")
        batch_op.drop_column("stack_profile")
