"""calibrations.experiment_id and calibrations.service NOT NULL, as the models declare

0006 created both nullable; every row written has both. Found by comparing the migrated schema
with the models on SQLite and PostgreSQL (tests/db/test_migrations.py).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 14:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Batch: SQLite cannot alter a column's nullability in place, so the table is copied
    # there; PostgreSQL gets a plain ALTER COLUMN ... SET NOT NULL.
    with op.batch_alter_table("calibrations") as batch_op:
        batch_op.alter_column("experiment_id", existing_type=sa.String(36), nullable=False)
        batch_op.alter_column("service", existing_type=sa.String(120), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("calibrations") as batch_op:
        batch_op.alter_column("service", existing_type=sa.String(120), nullable=True)
        batch_op.alter_column("experiment_id", existing_type=sa.String(36), nullable=True)
