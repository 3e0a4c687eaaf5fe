"""Initial schema: memories (with the active-row partial indexes), jobs, outbox.

Revision ID: 0001
Revises:
Create Date: 2026-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = sa.String(256)
ENUM = sa.String(32)
TS = sa.DateTime(timezone=True)
ACTIVE = sa.text("valid_until IS NULL")
HAS_SUCCESSOR = sa.text("superseded_by IS NOT NULL")


def upgrade() -> None:
    op.create_table(
        "memories",
        sa.Column("id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("agent_id", ID),
        sa.Column("visibility", ENUM, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("type", ENUM, nullable=False),
        sa.Column("topic", sa.String(64), nullable=False),
        sa.Column("importance", sa.Double, nullable=False),
        sa.Column("confidence", sa.Double, nullable=False),
        sa.Column("entity", sa.String(256)),
        sa.Column("attribute", sa.String(256)),
        sa.Column("value", sa.Text),
        sa.Column("context", sa.String(256)),
        sa.Column("recall_semantics", ENUM, nullable=False),
        sa.Column("trigger", sa.JSON),
        sa.Column("profile", sa.Boolean, nullable=False),
        sa.Column("source_role", ENUM, nullable=False),
        sa.Column("source_session", ID),
        sa.Column("source_turn_ids", sa.JSON, nullable=False),
        sa.Column("evidence", sa.Text, nullable=False),
        sa.Column("trust", ENUM, nullable=False),
        sa.Column("state", ENUM, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("valid_from", TS, nullable=False),
        sa.Column("valid_until", TS),
        sa.Column("superseded_by", ID),
        sa.Column("expires_at", TS),
        sa.Column("revoked_at", TS),
        sa.Column("last_confirmed", TS),
        sa.Column("last_accessed", TS),
        sa.Column("access_count", sa.Integer, nullable=False),
        sa.Column("decay_score", sa.Double),
        sa.Column("half_life_days", sa.Double),
        sa.Column("embedding", sa.LargeBinary),
        sa.Column("vector_dirty", sa.Boolean, nullable=False),
        sa.Column("vector_version", sa.Integer, nullable=False),
        sa.Column("text_norm_hash", sa.String(64), nullable=False),
    )
    op.create_index(
        "ix_memories_active_slot",
        "memories",
        ["tenant_id", "user_id", "entity", "attribute", "context"],
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index("ix_memories_listing", "memories", ["tenant_id", "user_id", "state", "created_at", "id"])
    op.create_index(
        "ix_memories_active_text",
        "memories",
        ["tenant_id", "user_id", "text_norm_hash"],
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index(
        "ix_memories_vector_dirty",
        "memories",
        ["created_at", "id"],
        sqlite_where=sa.text("vector_dirty = 1"),
        postgresql_where=sa.text("vector_dirty"),
    )
    op.create_index(
        "ix_memories_superseded_by",
        "memories",
        ["tenant_id", "superseded_by"],
        sqlite_where=HAS_SUCCESSOR,
        postgresql_where=HAS_SUCCESSOR,
    )
    op.create_table(
        "jobs",
        sa.Column("job_id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("turn_id", ID, nullable=False),
        sa.Column("state", ENUM, nullable=False),
        sa.Column("memory_ids", sa.JSON, nullable=False),
        sa.Column("reason", sa.Text),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "outbox",
        sa.Column(
            "seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True
        ),
        sa.Column("topic", sa.String(255), nullable=False),
        sa.Column("key", sa.String(600), nullable=False),
        sa.Column("value", sa.LargeBinary, nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("outbox")
    op.drop_table("jobs")
    for name in (
        "ix_memories_superseded_by",
        "ix_memories_vector_dirty",
        "ix_memories_active_text",
        "ix_memories_listing",
        "ix_memories_active_slot",
    ):
        op.drop_index(name, table_name="memories")
    op.drop_table("memories")
