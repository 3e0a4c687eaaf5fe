"""Embeddings move out of `memories` into `memory_embeddings` (memory_id → float32 bytes).

Why: a 384-dimension embedding is 1.5 KB, most of a row, and only the vector sync and consolidation
read it. Recall reads a few rows of one user, scattered over the table: with the embedding inline
each of them sat on its own page and a large file outgrew the page cache; without it the table is
about a third of that size (`docs/benchmarks.md`, "Recall latency and throughput"; its history in git).

SQLite drops the column in place (3.35+), which keeps every rowid, so the contentless FTS5 index
keyed by rowid stays valid. The space is reused by later rows (run VACUUM to return it to the disk).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

ID = sa.String(256)


def upgrade() -> None:
    op.create_table(
        "memory_embeddings",
        sa.Column("memory_id", ID, primary_key=True),
        sa.Column("embedding", sa.LargeBinary, nullable=False),
    )
    op.execute(
        "INSERT INTO memory_embeddings (memory_id, embedding) "
        "SELECT id, embedding FROM memories WHERE embedding IS NOT NULL"
    )
    op.execute("ALTER TABLE memories DROP COLUMN embedding")


def downgrade() -> None:
    op.add_column("memories", sa.Column("embedding", sa.LargeBinary))
    op.execute(
        "UPDATE memories SET embedding = "
        "(SELECT e.embedding FROM memory_embeddings e WHERE e.memory_id = memories.id)"
    )
    op.drop_table("memory_embeddings")
