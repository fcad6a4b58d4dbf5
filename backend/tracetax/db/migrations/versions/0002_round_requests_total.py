"""rounds.requests_total: every request a round's service answered

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 13:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.add_column(sa.Column("requests_total", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch_op:
        batch_op.drop_column("requests_total")
