"""Message Batches jobs of Claude extraction: their state, and what reading each request's result
needs, so a backfill or re-extraction resumes after a restart (`llm.message_batches`).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

ID = sa.String(256)
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "extraction_batches",
        sa.Column("id", ID, primary_key=True),
        sa.Column("tenant_id", ID),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("requests", sa.JSON, nullable=False),
        sa.Column("counts", sa.JSON),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_index("ix_extraction_batches_state", "extraction_batches", ["state"])


def downgrade() -> None:
    op.drop_index("ix_extraction_batches_state", table_name="extraction_batches")
    op.drop_table("extraction_batches")
