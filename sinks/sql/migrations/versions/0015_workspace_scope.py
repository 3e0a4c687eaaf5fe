"""Workspace scope: `memories.workspace_id` and `episodes.workspace_id`.

A turn that names a workspace gives beliefs and an episode seen only by reads in that workspace;
rows written before this revision, and turns naming none, belong to no workspace (null) and are
seen by every read of their user. Recall and the listings filter on it in the query.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

ID = sa.String(256)


def upgrade() -> None:
    op.add_column("memories", sa.Column("workspace_id", ID))
    op.add_column("episodes", sa.Column("workspace_id", ID))


def downgrade() -> None:
    with op.batch_alter_table("episodes") as batch:
        batch.drop_column("workspace_id")
    with op.batch_alter_table("memories") as batch:
        batch.drop_column("workspace_id")
