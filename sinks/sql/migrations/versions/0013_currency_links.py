"""Currency links: an episode a later statement made stale, and beliefs it may have.

`episodes.superseded_by` / `possibly_superseded_by` name the later episode and `superseded_at` when it
was said; `memories.possibly_superseded_by` / `possibly_superseded_at` mark a belief the rules could
not decide about (a firm supersession uses `superseded_by` as before). Rows written before this
revision are current: every new column is null (`beliefs.supersession`).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

ID = sa.String(256)
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("episodes", sa.Column("superseded_by", ID))
    op.add_column("episodes", sa.Column("possibly_superseded_by", ID))
    op.add_column("episodes", sa.Column("superseded_at", TS))
    op.add_column("memories", sa.Column("possibly_superseded_by", ID))
    op.add_column("memories", sa.Column("possibly_superseded_at", TS))


def downgrade() -> None:
    with op.batch_alter_table("episodes") as batch:
        batch.drop_column("superseded_at")
        batch.drop_column("possibly_superseded_by")
        batch.drop_column("superseded_by")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("possibly_superseded_at")
        batch.drop_column("possibly_superseded_by")
