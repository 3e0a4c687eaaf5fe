"""Memories carry their claim's polarity and a sensitivity mark.

`polarity` (`positive` | `negative`): a retraction ("I no longer live in Berlin") is a negative
claim on the slot value, so reconcile can close the belief and recall can tell "likes jazz" from
"doesn't like jazz" apart. Existing rows are positive. `sensitivity` (null, or one of `health`,
`religion`, `sexuality`, `politics`, `finances`, `location`) is set at write time; recall returns
such a memory only in its domain or when the caller asks.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

ENUM = sa.String(32)


def upgrade() -> None:
    # plain ADD COLUMN on both databases: SQLite keeps every rowid (the FTS5 index is keyed by it)
    op.add_column("memories", sa.Column("polarity", ENUM, nullable=False, server_default="positive"))
    op.add_column("memories", sa.Column("sensitivity", ENUM))


def downgrade() -> None:
    op.execute("ALTER TABLE memories DROP COLUMN sensitivity")
    op.execute("ALTER TABLE memories DROP COLUMN polarity")
