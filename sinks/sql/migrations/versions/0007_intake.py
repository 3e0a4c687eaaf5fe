"""The intake: turns accepted by `POST /v1/retain` (and by `beliefstream publish` into a running
`dev`), kept until the write path finishes their job, so a crash of the embedded broker, whose log
is in memory only, loses none of them (re-published at start; see `launch/reaper.py`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

ID = sa.String(256)
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "intake",
        sa.Column("job_id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("turn_id", ID, nullable=False),
        sa.Column("record_key", sa.String(600), nullable=False),
        sa.Column("value", sa.LargeBinary, nullable=False),
        sa.Column("accepted_at", TS, nullable=False),
        sa.Column("published_at", TS, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
    )
    op.create_index("ix_intake_order", "intake", ["accepted_at", "job_id"])
    op.create_index("ix_intake_user", "intake", ["tenant_id", "user_id"])


def downgrade() -> None:
    op.drop_index("ix_intake_user", table_name="intake")
    op.drop_index("ix_intake_order", table_name="intake")
    op.drop_table("intake")
