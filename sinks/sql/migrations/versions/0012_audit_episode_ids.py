"""The recall audit names the quoted episodes too: `recall_audit.episode_ids`.

Rows written before this revision read as an empty list: they quoted none that were recorded.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("recall_audit", sa.Column("episode_ids", sa.JSON, nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("recall_audit") as batch:
        batch.drop_column("episode_ids")
