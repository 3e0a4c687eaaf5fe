"""The recall audit keeps what was returned with scores and reasons: `recall_audit.returned`, `.withheld`.

`returned` lists each belief and quote a recall returned, in order, with its score and recall
reason; `withheld` each candidate left out and why. Rows written before this revision have both
empty (only their ids were kept).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("recall_audit", sa.Column("returned", sa.JSON, nullable=False, server_default="[]"))
    op.add_column("recall_audit", sa.Column("withheld", sa.JSON, nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("recall_audit") as batch:
        batch.drop_column("withheld")
        batch.drop_column("returned")
