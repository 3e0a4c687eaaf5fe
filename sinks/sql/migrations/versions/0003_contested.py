"""Contested slots: entity/attribute pairs in a contradiction loop, awaiting a person's decision.

Revision ID: 0003
Revises: 0002
Create Date: 2026-03-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

ID = sa.String(256)
NAME = sa.String(256)
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "contested_slots",
        sa.Column("id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("entity", NAME, nullable=False),
        sa.Column("attribute", NAME, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("value_history", sa.JSON, nullable=False),
        sa.Column("opened_at", TS, nullable=False),
        sa.Column("resolved_at", TS),
        sa.Column("resolution", sa.JSON),
    )
    op.create_index(
        "ix_contested_slots_pair", "contested_slots", ["tenant_id", "user_id", "entity", "attribute"]
    )
    op.create_index("ix_contested_slots_listing", "contested_slots", ["tenant_id", "user_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_contested_slots_listing", table_name="contested_slots")
    op.drop_index("ix_contested_slots_pair", table_name="contested_slots")
    op.drop_table("contested_slots")
