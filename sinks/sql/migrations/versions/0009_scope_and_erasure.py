"""Scope on writes and provable erasure: whose private state a job or a contested pair is, and
the receipts erasure leaves behind.

`jobs.agent_id` / `jobs.visibility` say whether a retained turn was an agent's private turn (its
job is then that agent's alone); `contested_slots.agent_id` names the agent whose private beliefs
a contradiction loop is about (null: the user's shared beliefs). `erasure_receipts` is all that an
erasure keeps: what kinds of rows were removed and how many, when, by which key, and a digest of
the user id (never the id itself).

Revision ID: 0009
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0007"
branch_labels = None
depends_on = None

ID = sa.String(256)
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("agent_id", ID))
        batch.add_column(sa.Column("visibility", sa.String(32)))
    with op.batch_alter_table("contested_slots") as batch:
        batch.add_column(sa.Column("agent_id", ID))
    op.create_table(
        "erasure_receipts",
        sa.Column("id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_digest", sa.String(64), nullable=False),
        sa.Column("key_id", sa.String(64)),
        sa.Column("erased_at", TS, nullable=False),
        sa.Column("counts", sa.JSON, nullable=False),
    )
    op.create_index("ix_erasure_receipts_user", "erasure_receipts", ["tenant_id", "user_digest"])


def downgrade() -> None:
    op.drop_index("ix_erasure_receipts_user", table_name="erasure_receipts")
    op.drop_table("erasure_receipts")
    with op.batch_alter_table("contested_slots") as batch:
        batch.drop_column("agent_id")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("visibility")
        batch.drop_column("agent_id")
