"""Episodes: every turn kept as said, keyword-indexed and embedded like memories.

`episodes` holds the record of `beliefs.records.Episode` plus the vector outbox flags
(`vector_dirty`, `vector_version`) memories have; `episode_embeddings` its float32 embedding.
Keyword search copies migration 0002: SQLite gets a contentless FTS5 table `episodes_fts` keyed by
the row's rowid, with the per-user scope token and triggers; PostgreSQL a stored generated
`search_tsv` column with a GIN index. `jobs.episode_id` names the episode a retained turn became.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

ID = sa.String(256)
ENUM = sa.String(32)
TS = sa.DateTime(timezone=True)

#: The FTS5 scope token of a row, as in 0002 (one unicode61 token, unchanged by porter).
_SCOPE = "'s' || hex({row}.tenant_id) || 'x' || hex({row}.user_id) || 'q'"

_SQLITE_UP = [
    "CREATE VIRTUAL TABLE episodes_fts USING fts5(text, scope, content='', tokenize='porter unicode61')",
    "CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN "
    f"INSERT INTO episodes_fts (rowid, text, scope) VALUES (new.rowid, new.text, {_SCOPE.format(row='new')}); "
    "END",
    "CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes BEGIN "
    "INSERT INTO episodes_fts (episodes_fts, rowid, text, scope) "
    f"VALUES ('delete', old.rowid, old.text, {_SCOPE.format(row='old')}); "
    "END",
    "CREATE TRIGGER episodes_fts_update AFTER UPDATE OF text, tenant_id, user_id ON episodes BEGIN "
    "INSERT INTO episodes_fts (episodes_fts, rowid, text, scope) "
    f"VALUES ('delete', old.rowid, old.text, {_SCOPE.format(row='old')}); "
    f"INSERT INTO episodes_fts (rowid, text, scope) VALUES (new.rowid, new.text, {_SCOPE.format(row='new')}); "
    "END",
]
_SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS episodes_fts_update",
    "DROP TRIGGER IF EXISTS episodes_fts_delete",
    "DROP TRIGGER IF EXISTS episodes_fts_insert",
    "DROP TABLE IF EXISTS episodes_fts",
]
_POSTGRES_UP = [
    "ALTER TABLE episodes ADD COLUMN search_tsv tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED",
    "CREATE INDEX ix_episodes_search_tsv ON episodes USING gin (search_tsv)",
]
_POSTGRES_DOWN = [
    "DROP INDEX IF EXISTS ix_episodes_search_tsv",
    "ALTER TABLE episodes DROP COLUMN IF EXISTS search_tsv",
]


def upgrade() -> None:
    op.create_table(
        "episodes",
        sa.Column("id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("agent_id", ID),
        sa.Column("visibility", ENUM, nullable=False),
        sa.Column("session_id", ID),
        sa.Column("turn_id", ID, nullable=False),
        sa.Column("role", ENUM, nullable=False),
        sa.Column("speaker", sa.String(256)),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("said_at", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("trust", ENUM, nullable=False),
        sa.Column("memory_ids", sa.JSON, nullable=False),
        sa.Column("state", ENUM, nullable=False),
        sa.Column("expires_at", TS),
        sa.Column("revoked_at", TS),
        sa.Column("vector_dirty", sa.Boolean, nullable=False),
        sa.Column("vector_version", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_episodes_session", "episodes", ["tenant_id", "user_id", "session_id", "said_at", "turn_id"]
    )
    op.create_index("ix_episodes_listing", "episodes", ["tenant_id", "user_id", "said_at", "id"])
    op.create_index(
        "ix_episodes_vector_dirty",
        "episodes",
        ["created_at", "id"],
        sqlite_where=sa.text("vector_dirty = 1"),
        postgresql_where=sa.text("vector_dirty"),
    )
    has_expiry = sa.text("expires_at IS NOT NULL")
    op.create_index(
        "ix_episodes_expires", "episodes", ["expires_at"], sqlite_where=has_expiry, postgresql_where=has_expiry
    )
    op.create_table(
        "episode_embeddings",
        sa.Column("episode_id", ID, primary_key=True),
        sa.Column("embedding", sa.LargeBinary, nullable=False),
    )
    op.add_column("jobs", sa.Column("episode_id", ID))
    for statement in _SQLITE_UP if op.get_bind().dialect.name == "sqlite" else _POSTGRES_UP:
        op.execute(statement)


def downgrade() -> None:
    for statement in _SQLITE_DOWN if op.get_bind().dialect.name == "sqlite" else _POSTGRES_DOWN:
        op.execute(statement)
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("episode_id")
    op.drop_table("episode_embeddings")
    op.drop_index("ix_episodes_expires", table_name="episodes")
    op.drop_index("ix_episodes_vector_dirty", table_name="episodes")
    op.drop_index("ix_episodes_listing", table_name="episodes")
    op.drop_index("ix_episodes_session", table_name="episodes")
    op.drop_table("episodes")
