"""The SQL schema, portable between SQLite and PostgreSQL. Migrations under `migrations/` create it.

`memories` holds every field of the memory record (contract §2) plus what the sinks need:
`vector_dirty` (the Qdrant point must be rewritten) with `vector_version` (so a sync that raced a
newer change does not clear its flag) and `vector_dirty_at` (since when), and `text_norm_hash`
(exact-duplicate lookup). `vector_tombstones` holds the points of deleted rows the index still owes. A memory's
embedding (float32 little-endian) is in `memory_embeddings`, read only to write its vector point and
to consolidate: in `memories` it made each row fill most of a page, so recall's reads of a few rows
per user touched a file about three times larger (`docs/benchmarks.md`, "Recall latency and throughput"; its history in git).
`jobs` answers `GET /v1/jobs/{id}`; `outbox` holds memory events written in the same transaction
as the change they describe. `episodes` keeps each turn as said (migration 0005), with the same
outbox flags as memories and its embedding in `episode_embeddings`. The column types are in
`column_types`; the joins of a row with its embedding in `embedding_joins`.
"""

from __future__ import annotations

import sqlalchemy as sa

from sinks.sql.column_types import ENUM, ID, NAME, UtcDateTime

metadata = sa.MetaData()

memories = sa.Table(
    "memories",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_id", ID, nullable=False),
    sa.Column("agent_id", ID),
    sa.Column("visibility", ENUM, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("type", ENUM, nullable=False),
    sa.Column("topic", sa.String(64), nullable=False),
    sa.Column("importance", sa.Double, nullable=False),
    sa.Column("confidence", sa.Double, nullable=False),
    sa.Column("entity", NAME),
    sa.Column("attribute", NAME),
    sa.Column("value", sa.Text),
    sa.Column("context", NAME),
    sa.Column("polarity", ENUM, nullable=False, server_default="positive"),
    sa.Column("sensitivity", ENUM),
    sa.Column("recall_semantics", ENUM, nullable=False),
    sa.Column("trigger", sa.JSON),
    sa.Column("profile", sa.Boolean, nullable=False),
    sa.Column("source_role", ENUM, nullable=False),
    sa.Column("source_session", ID),
    sa.Column("source_turn_ids", sa.JSON, nullable=False),
    sa.Column("evidence", sa.Text, nullable=False),
    sa.Column("trust", ENUM, nullable=False),
    sa.Column("state", ENUM, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("valid_from", UtcDateTime, nullable=False),
    sa.Column("valid_until", UtcDateTime),
    sa.Column("superseded_by", ID),
    sa.Column("expires_at", UtcDateTime),
    sa.Column("revoked_at", UtcDateTime),
    sa.Column("last_confirmed", UtcDateTime),
    sa.Column("last_accessed", UtcDateTime),
    sa.Column("access_count", sa.Integer, nullable=False),
    sa.Column("decay_score", sa.Double),
    sa.Column("half_life_days", sa.Double),
    sa.Column("vector_dirty", sa.Boolean, nullable=False),
    sa.Column("vector_version", sa.Integer, nullable=False),
    sa.Column("text_norm_hash", sa.String(64), nullable=False),
    sa.Column("vector_dirty_at", UtcDateTime),  # since when the point is owed (migration 0011)
    sa.Column("possibly_superseded_by", ID),  # migration 0013: a later statement may have made it stale
    sa.Column("possibly_superseded_at", UtcDateTime),
    sa.Column("workspace_id", ID),  # migration 0015: seen only by reads in this workspace
)

_ACTIVE = sa.text("valid_until IS NULL")
_DIRTY_SQLITE = sa.text("vector_dirty = 1")
_DIRTY_PG = sa.text("vector_dirty")
_HAS_SUCCESSOR = sa.text("superseded_by IS NOT NULL")

sa.Index(
    "ix_memories_active_slot",
    memories.c.tenant_id,
    memories.c.user_id,
    memories.c.entity,
    memories.c.attribute,
    memories.c.context,
    sqlite_where=_ACTIVE,
    postgresql_where=_ACTIVE,
)
sa.Index(
    "ix_memories_listing",
    memories.c.tenant_id,
    memories.c.user_id,
    memories.c.state,
    memories.c.created_at,
    memories.c.id,
)
sa.Index(
    "ix_memories_active_text",
    memories.c.tenant_id,
    memories.c.user_id,
    memories.c.text_norm_hash,
    sqlite_where=_ACTIVE,
    postgresql_where=_ACTIVE,
)
sa.Index(
    "ix_memories_vector_dirty",
    memories.c.created_at,
    memories.c.id,
    sqlite_where=_DIRTY_SQLITE,
    postgresql_where=_DIRTY_PG,
)
sa.Index(
    "ix_memories_superseded_by",
    memories.c.tenant_id,
    memories.c.superseded_by,
    sqlite_where=_HAS_SUCCESSOR,
    postgresql_where=_HAS_SUCCESSOR,
)

memory_embeddings = sa.Table(
    "memory_embeddings",
    metadata,
    sa.Column("memory_id", ID, primary_key=True),
    sa.Column("embedding", sa.LargeBinary, nullable=False),
)

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("job_id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_id", ID, nullable=False),
    sa.Column("turn_id", ID, nullable=False),
    sa.Column("state", ENUM, nullable=False),
    sa.Column("memory_ids", sa.JSON, nullable=False),
    sa.Column("reason", sa.Text),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.Column("episode_id", ID),  # migration 0005
    sa.Column("agent_id", ID),  # migration 0009: the agent of the turn
    sa.Column("visibility", ENUM),  # 0009: `agent` = that agent's private turn; null or `user` = shared
)

outbox = sa.Table(
    "outbox",
    metadata,
    sa.Column(
        "seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    sa.Column("topic", sa.String(255), nullable=False),
    sa.Column("key", sa.String(600), nullable=False),
    sa.Column("value", sa.LargeBinary, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

# -- recall (migration 0002) ------------------------------------------------------------------------

#: Rows recall always considers (profile facts, constraints); literal so SQLite matches the partial index.
PINNED_PREDICATE = "valid_until IS NULL AND (profile OR recall_semantics = 'constraint')"

sa.Index(
    "ix_memories_recall_pinned",
    memories.c.tenant_id,
    memories.c.user_id,
    memories.c.state,
    sqlite_where=sa.text(PINNED_PREDICATE),
    postgresql_where=sa.text(PINNED_PREDICATE),
)

recall_audit = sa.Table(
    "recall_audit",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_id", ID, nullable=False),
    sa.Column("agent_id", ID),
    sa.Column("key_id", sa.String(64)),  # a fingerprint of the API key, never the key
    sa.Column("at", UtcDateTime, nullable=False),
    sa.Column("query_digest", sa.String(64), nullable=False),  # sha256 of the query, never its text
    sa.Column("memory_ids", sa.JSON, nullable=False),
    sa.Column("episode_ids", sa.JSON, nullable=False, server_default="[]"),  # migration 0012
    # migration 0016: each item returned with its score and reason, and what was withheld and why
    sa.Column("returned", sa.JSON, nullable=False, server_default="[]"),
    sa.Column("withheld", sa.JSON, nullable=False, server_default="[]"),
)
sa.Index("ix_recall_audit_user", recall_audit.c.tenant_id, recall_audit.c.user_id, recall_audit.c.at)

# -- contradiction loops (migration 0003) -------------------------------------------------------------

#: A pair (entity, attribute) in a contradiction loop; `id` is `beliefs.loops.contested_id` of the pair.
contested_slots = sa.Table(
    "contested_slots",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_id", ID, nullable=False),
    sa.Column("entity", NAME, nullable=False),
    sa.Column("attribute", NAME, nullable=False),
    sa.Column("status", ENUM, nullable=False),  # open | resolved
    sa.Column("value_history", sa.JSON, nullable=False),  # [{value, context, memory_id, at}]
    sa.Column("opened_at", UtcDateTime, nullable=False),
    sa.Column("resolved_at", UtcDateTime),
    sa.Column("resolution", sa.JSON),
    sa.Column("agent_id", ID),  # migration 0009: the agent whose private beliefs loop; null = shared
)
sa.Index(
    "ix_contested_slots_pair",
    contested_slots.c.tenant_id,
    contested_slots.c.user_id,
    contested_slots.c.entity,
    contested_slots.c.attribute,
)
sa.Index("ix_contested_slots_listing", contested_slots.c.tenant_id, contested_slots.c.user_id, contested_slots.c.status)

# -- episodes (migration 0005) --------------------------------------------------------------------

#: One turn kept as said (`beliefs.records.Episode`); keyword-indexed like memories (`episodes_fts`,
#: `search_tsv`), its embedding in `episode_embeddings`, its point written through the same outbox flags.
episodes = sa.Table(
    "episodes",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_id", ID, nullable=False),
    sa.Column("agent_id", ID),
    sa.Column("visibility", ENUM, nullable=False),
    sa.Column("session_id", ID),
    sa.Column("turn_id", ID, nullable=False),
    sa.Column("role", ENUM, nullable=False),
    sa.Column("speaker", NAME),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("said_at", UtcDateTime, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("trust", ENUM, nullable=False),
    sa.Column("memory_ids", sa.JSON, nullable=False),
    sa.Column("state", ENUM, nullable=False),
    sa.Column("expires_at", UtcDateTime),
    sa.Column("revoked_at", UtcDateTime),
    sa.Column("vector_dirty", sa.Boolean, nullable=False),
    sa.Column("vector_version", sa.Integer, nullable=False),
    sa.Column("vector_dirty_at", UtcDateTime),  # since when the point is owed (migration 0011)
    sa.Column("superseded_by", ID),  # migration 0013: the later statement that made this one stale
    sa.Column("possibly_superseded_by", ID),  # ... or may have, when the rules could not decide
    sa.Column("superseded_at", UtcDateTime),  # when that later statement was said
    sa.Column("workspace_id", ID),  # migration 0015: as memories.workspace_id
)
_HAS_EXPIRY = sa.text("expires_at IS NOT NULL")
sa.Index(
    "ix_episodes_session",
    episodes.c.tenant_id,
    episodes.c.user_id,
    episodes.c.session_id,
    episodes.c.said_at,
    episodes.c.turn_id,
)
sa.Index("ix_episodes_listing", episodes.c.tenant_id, episodes.c.user_id, episodes.c.said_at, episodes.c.id)
sa.Index(
    "ix_episodes_vector_dirty",
    episodes.c.created_at,
    episodes.c.id,
    sqlite_where=_DIRTY_SQLITE,
    postgresql_where=_DIRTY_PG,
)
sa.Index("ix_episodes_expires", episodes.c.expires_at, sqlite_where=_HAS_EXPIRY, postgresql_where=_HAS_EXPIRY)

episode_embeddings = sa.Table(
    "episode_embeddings",
    metadata,
    sa.Column("episode_id", ID, primary_key=True),
    sa.Column("embedding", sa.LargeBinary, nullable=False),
)

# -- erasure (migration 0009) -----------------------------------------------------------------------

#: What an erasure leaves: counts per kind of row removed, when, by which key; the user only as a digest.
erasure_receipts = sa.Table(
    "erasure_receipts",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_digest", sa.String(64), nullable=False),
    sa.Column("key_id", sa.String(64)),
    sa.Column("erased_at", UtcDateTime, nullable=False),
    sa.Column("counts", sa.JSON, nullable=False),
)
sa.Index("ix_erasure_receipts_user", erasure_receipts.c.tenant_id, erasure_receipts.c.user_digest)

#: Keyword-search objects that exist on one backend only and are not in this metadata.
UNMANAGED = frozenset(
    {
        "memories_fts",  # SQLite FTS5 and its shadow tables
        "memories_fts_data",
        "memories_fts_idx",
        "memories_fts_docsize",
        "memories_fts_config",
        "episodes_fts",
        "episodes_fts_data",
        "episodes_fts_idx",
        "episodes_fts_docsize",
        "episodes_fts_config",
        "search_tsv",  # PostgreSQL generated columns
        "ix_memories_search_tsv",
        "ix_episodes_search_tsv",
    }
)


def include_name(name: str | None, type_: str, parent_names: dict) -> bool:
    """Alembic's `include_name`: schema comparison leaves the backend-specific search objects alone."""
    return name not in UNMANAGED

# -- the intake (migration 0007) ----------------------------------------------------------------------

#: Accepted turns not yet processed: a row leaves in the transaction that finishes its job.
#: `published_at` is the last time it went to the broker; `attempts` counts the reaper's re-publications.
intake = sa.Table(
    "intake",
    metadata,
    sa.Column("job_id", ID, primary_key=True),
    sa.Column("tenant_id", ID, nullable=False),
    sa.Column("user_id", ID, nullable=False),
    sa.Column("turn_id", ID, nullable=False),
    sa.Column("record_key", sa.String(600), nullable=False),
    sa.Column("value", sa.LargeBinary, nullable=False),
    sa.Column("accepted_at", UtcDateTime, nullable=False),
    sa.Column("published_at", UtcDateTime, nullable=False),
    sa.Column("attempts", sa.Integer, nullable=False),
)
sa.Index("ix_intake_order", intake.c.accepted_at, intake.c.job_id)
sa.Index("ix_intake_user", intake.c.tenant_id, intake.c.user_id)
# -- webhooks (migration 0010) -----------------------------------------------------------------------

webhook_deliveries = sa.Table(
    "webhook_deliveries",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("url", sa.String(2000), nullable=False),
    sa.Column("event_key", sa.String(600), nullable=False),  # tenant:user, as on the events topic
    sa.Column("body", sa.LargeBinary, nullable=False),  # the event's JSON, exactly as published
    sa.Column("state", sa.String(16), nullable=False),  # pending, delivered, failed
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("next_attempt_at", UtcDateTime, nullable=False),
    sa.Column("last_error", sa.String(500)),
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("delivered_at", UtcDateTime),
    sa.Index("ix_webhook_deliveries_due", "state", "next_attempt_at"),
)

# -- the vector outbox's deletions (migration 0011) ---------------------------------------------------

#: A point whose row is gone (erasure, episode retention), written in the deleting transaction;
#: the projector deletes the point, then the tombstone.
vector_tombstones = sa.Table(
    "vector_tombstones",
    metadata,
    sa.Column("seq", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=True),
    sa.Column("point_id", ID, nullable=False),
    sa.Column("created_at", UtcDateTime, nullable=False),
)

# -- Message Batches jobs of Claude extraction (migration 0014) ---------------------------------------

#: One Message Batches job (a backfill or re-extraction): its state and, per request, what reading
#: its result needs (the turns' ids and times, the beliefs offered by handle), so a restarted
#: process resumes it. No turn text is kept here: the turns are read again from the episodes.
extraction_batches = sa.Table(
    "extraction_batches",
    metadata,
    sa.Column("id", ID, primary_key=True),  # the API's batch id
    sa.Column("tenant_id", ID),  # the tenant re-extracted, null for several
    sa.Column("state", sa.String(16), nullable=False),  # submitted, ended, collected, failed
    sa.Column("requests", sa.JSON, nullable=False),  # custom_id -> {turn_ids, turn_times, offered}
    sa.Column("counts", sa.JSON),  # the API's request counts once ended
    sa.Column("created_at", UtcDateTime, nullable=False),
    sa.Column("updated_at", UtcDateTime, nullable=False),
    sa.Index("ix_extraction_batches_state", "state"),
)
