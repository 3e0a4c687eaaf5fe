"""The vector outbox complete: since when a row's point is owed, and tombstones for deleted rows.

`vector_dirty_at` on memories and episodes dates the oldest owed point (the projector's lag);
`vector_tombstones` keeps the points of erased or expired rows until the projector deletes them.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    for table in ("memories", "episodes"):
        # plain ADD COLUMN on both databases: SQLite keeps every rowid (the FTS5 index is keyed by it)
        op.add_column(table, sa.Column("vector_dirty_at", TS))
        owed = sa.table(table, sa.column("vector_dirty", sa.Boolean), sa.column("vector_dirty_at", TS), sa.column("created_at", TS))
        op.execute(owed.update().where(owed.c.vector_dirty == sa.true()).values(vector_dirty_at=owed.c.created_at))
    op.create_table(
        "vector_tombstones",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("point_id", sa.String(256), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("vector_tombstones")
    for table in ("memories", "episodes"):
        op.execute(f"ALTER TABLE {table} DROP COLUMN vector_dirty_at")
