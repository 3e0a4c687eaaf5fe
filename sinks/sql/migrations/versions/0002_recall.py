"""Recall: keyword search over memory text, the pinned-memory index, and the recall audit table.

Keyword search is backend-specific and lives outside the SQLAlchemy metadata (see
`tables.UNMANAGED`):

- SQLite: a contentless FTS5 table `memories_fts` (porter stemming) whose rowid is the memory
  row's rowid, kept in step by triggers, so every writer (write path, direct insert, erasure)
  maintains it without knowing it exists. Each row also indexes a `scope` token derived from
  (tenant, user), so a MATCH is narrowed to one user's rows inside the index, not after it.
- PostgreSQL: a stored generated `search_tsv` column (english) with a GIN index.

Revision ID: 0002
Revises: 0001
Create Date: 2026-02-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ID = sa.String(256)
TS = sa.DateTime(timezone=True)
PINNED = sa.text("valid_until IS NULL AND (profile OR recall_semantics = 'constraint')")

#: The FTS5 scope token of a row: one unicode61 token (hex digits), unchanged by porter (ends in q).
_SCOPE = "'s' || hex({row}.tenant_id) || 'x' || hex({row}.user_id) || 'q'"

_SQLITE_UP = [
    "CREATE VIRTUAL TABLE memories_fts USING fts5("
    "text, scope, content='', tokenize='porter unicode61')",
    f"INSERT INTO memories_fts (rowid, text, scope) SELECT rowid, text, {_SCOPE.format(row='memories')} "
    "FROM memories",
    "CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN "
    f"INSERT INTO memories_fts (rowid, text, scope) VALUES (new.rowid, new.text, {_SCOPE.format(row='new')}); "
    "END",
    "CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN "
    "INSERT INTO memories_fts (memories_fts, rowid, text, scope) "
    f"VALUES ('delete', old.rowid, old.text, {_SCOPE.format(row='old')}); "
    "END",
    "CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, tenant_id, user_id ON memories BEGIN "
    "INSERT INTO memories_fts (memories_fts, rowid, text, scope) "
    f"VALUES ('delete', old.rowid, old.text, {_SCOPE.format(row='old')}); "
    f"INSERT INTO memories_fts (rowid, text, scope) VALUES (new.rowid, new.text, {_SCOPE.format(row='new')}); "
    "END",
]
_SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS memories_fts_update",
    "DROP TRIGGER IF EXISTS memories_fts_delete",
    "DROP TRIGGER IF EXISTS memories_fts_insert",
    "DROP TABLE IF EXISTS memories_fts",
]
_POSTGRES_UP = [
    "ALTER TABLE memories ADD COLUMN search_tsv tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED",
    "CREATE INDEX ix_memories_search_tsv ON memories USING gin (search_tsv)",
]
_POSTGRES_DOWN = [
    "DROP INDEX IF EXISTS ix_memories_search_tsv",
    "ALTER TABLE memories DROP COLUMN IF EXISTS search_tsv",
]


def upgrade() -> None:
    op.create_index(
        "ix_memories_recall_pinned",
        "memories",
        ["tenant_id", "user_id", "state"],
        sqlite_where=PINNED,
        postgresql_where=PINNED,
    )
    op.create_table(
        "recall_audit",
        sa.Column("id", ID, primary_key=True),
        sa.Column("tenant_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("agent_id", ID),
        sa.Column("key_id", sa.String(64)),
        sa.Column("at", TS, nullable=False),
        sa.Column("query_digest", sa.String(64), nullable=False),
        sa.Column("memory_ids", sa.JSON, nullable=False),
    )
    op.create_index("ix_recall_audit_user", "recall_audit", ["tenant_id", "user_id", "at"])
    for statement in _SQLITE_UP if op.get_bind().dialect.name == "sqlite" else _POSTGRES_UP:
        op.execute(statement)


def downgrade() -> None:
    for statement in _SQLITE_DOWN if op.get_bind().dialect.name == "sqlite" else _POSTGRES_DOWN:
        op.execute(statement)
    op.drop_index("ix_recall_audit_user", table_name="recall_audit")
    op.drop_table("recall_audit")
    op.drop_index("ix_memories_recall_pinned", table_name="memories")
