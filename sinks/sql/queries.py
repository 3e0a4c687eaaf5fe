"""The statements of the SQL store, each batched: a handful of round trips per write, not per memory."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.records import JobState, Memory, MemoryState, MemoryType, Visibility
from beliefs.write_plan import KnownJob, SlotKey, TextKey
from sinks.contracts import ANY_CONTEXT, EVERY_MEMORY, ConversationContext, MemoryListing
from sinks.manage import Users
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import projection
from sinks.sql.convert import (
    MUTABLE_FIELDS,
    decode_cursor,
    embedding_row,
    encode_cursor,
    memory_row,
    row_memory,
)
from sinks.sql.embedding_joins import has_embedding, memories_with_embeddings
from sinks.sql.tables import jobs, memories, memory_embeddings, outbox

#: Largest page a listing (memories, contested slots, users) returns.
MAX_PAGE = 1000

T = TypeVar("T")
R = TypeVar("R")

#: Rows per IN list or VALUES batch: far below every driver's bound-parameter limit.
CHUNK = 250

#: Keys per candidate lookup statement (a power of two; each key is 3 or 4 bound parameters).
TERMS = 128

_SLOT_COLUMNS = ("tenant_id", "user_id", "entity", "attribute")
_TEXT_COLUMNS = ("tenant_id", "user_id", "text_norm_hash")

#: The columns of a memory record (everything but the sink's bookkeeping).
MEMORY_COLUMNS = [memories.c[name] for name in Memory.model_fields]


def chunked(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]




def of_users(table: sa.Table, users: Users | None) -> list[sa.ColumnElement[bool]]:
    """Criteria keeping the rows of `table` that belong to one of `users` (none when `users` is None)."""
    if users is None:
        return []
    by_tenant: dict[str, list[str]] = {}
    for tenant_id, user_id in users:
        by_tenant.setdefault(tenant_id, []).append(user_id)
    # one `tenant = ? AND user IN (...)` per tenant: each an index search (a row-value IN list is a scan on SQLite)
    return [sa.or_(sa.false(), *(sa.and_(table.c.tenant_id == t, table.c.user_id.in_(u)) for t, u in by_tenant.items()))]


def within_reach(table: sa.Table, reach: Reach) -> list[sa.ColumnElement[bool]]:
    """Criteria keeping the rows of `table` that `reach` sees: shared ones and its agent's private ones.

    A table with a `visibility` column (memories, jobs) is private where it says `agent`; one
    without (contested slots) is private where `agent_id` is set.
    """
    if reach.every_agent:
        return []
    if "visibility" in table.c:
        shared = sa.or_(table.c.visibility.is_(None), table.c.visibility != Visibility.AGENT.value)
    else:
        shared = table.c.agent_id.is_(None)
    if reach.agent_id is None:
        return [shared]
    return [sa.or_(shared, table.c.agent_id == reach.agent_id)]


def within_context(
    table: sa.Table, context: ConversationContext, session: sa.ColumnElement
) -> list[sa.ColumnElement[bool]]:
    """Criteria keeping the rows of `table` in the caller's workspace (its own and those of none)
    and said in its session (`session`: the table's session column), as far as `context` names them."""
    criteria: list[sa.ColumnElement[bool]] = []
    if context.workspace_id is not None:
        criteria.append(sa.or_(table.c.workspace_id.is_(None), table.c.workspace_id == context.workspace_id))
    if context.session_id is not None:
        criteria.append(session == context.session_id)
    return criteria


def dialect_insert(conn: AsyncConnection, table: sa.Table):
    """The backend's INSERT, which knows ON CONFLICT (both SQLite and PostgreSQL have it)."""
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)


async def load_jobs(conn: AsyncConnection, keys: Sequence[tuple[str, str]]) -> dict[str, KnownJob]:
    """The jobs among `keys` (tenant_id, job_id) that already have a row."""
    found: dict[str, KnownJob] = {}
    for part in chunked(keys):
        stmt = sa.select(jobs.c.job_id, jobs.c.tenant_id, jobs.c.state, jobs.c.created_at).where(
            jobs.c.job_id.in_([job_id for _, job_id in part]),
            jobs.c.tenant_id.in_({tenant for tenant, _ in part}),
        )
        wanted = set(part)
        for row in (await conn.execute(stmt)).mappings():
            if (row["tenant_id"], row["job_id"]) in wanted:
                found[row["job_id"]] = KnownJob(JobState(row["state"]), row["created_at"])
    return found


async def existing_memory_ids(conn: AsyncConnection, keys: Sequence[tuple[str, str]]) -> set[str]:
    """Those of `keys` (tenant_id, memory_id) already stored."""
    found: set[str] = set()
    for part in chunked(keys):
        stmt = sa.select(memories.c.id, memories.c.tenant_id).where(
            memories.c.id.in_([memory_id for _, memory_id in part]),
            memories.c.tenant_id.in_({tenant for tenant, _ in part}),
        )
        wanted = set(part)
        found |= {row.id for row in await conn.execute(stmt) if (row.tenant_id, row.id) in wanted}
    return found


async def load_active(
    conn: AsyncConnection, slots: Sequence[SlotKey], texts: Sequence[TextKey]
) -> list[Memory]:
    """Active rows sharing one of `slots` or `texts`: the candidates reconcile decides against.

    Row-value IN lists would make SQLite scan every active row, so SQLite gets an OR of exact-key
    terms, each a seek of a partial index (every condition inside the term: given outside the OR,
    SQLite scans the tenant instead). PostgreSQL plans a long OR slowly, so it joins the keys
    unnested from arrays. Statements are built once per shape and reused: building a large
    expression costs more than running it.
    """
    found: dict[str, Memory] = {}
    postgres = conn.dialect.name == "postgresql"
    for columns, keys in ((_SLOT_COLUMNS, slots), (_TEXT_COLUMNS, texts)):
        for part in chunked(keys, CHUNK if postgres else TERMS):
            stmt, params = _unnest_lookup(columns, part) if postgres else _or_lookup(columns, part)
            for row in (await conn.execute(stmt, params)).mappings():
                if row["id"] not in found:
                    found[row["id"]] = row_memory(row)
    return list(found.values())


def _or_lookup(columns: tuple[str, ...], keys: Sequence[tuple[str, ...]]) -> tuple[sa.Select, dict[str, Any]]:
    """SQLite: an OR of exact-key terms, padded to a power of two so that few shapes are compiled."""
    size = min(1 << (len(keys) - 1).bit_length(), TERMS)
    padded = [*keys, *[keys[-1]] * (size - len(keys))]  # repeating a key changes nothing
    params = {f"k{i}_{j}": value for i, key in enumerate(padded) for j, value in enumerate(key)}
    return _or_statement(columns, size), params


@lru_cache(maxsize=32)
def _or_statement(columns: tuple[str, ...], size: int) -> sa.Select:
    terms = [
        sa.and_(
            memories.c.valid_until.is_(None),
            *(memories.c[name] == sa.bindparam(f"k{i}_{j}") for j, name in enumerate(columns)),
        )
        for i in range(size)
    ]
    return sa.select(*MEMORY_COLUMNS).where(sa.or_(*terms))


def _unnest_lookup(
    columns: tuple[str, ...], keys: Sequence[tuple[str, ...]]
) -> tuple[sa.Select, dict[str, Any]]:
    """PostgreSQL: join against the keys as arrays; one statement shape, cheap to plan at any size."""
    return _unnest_statement(columns), {f"k{j}": [key[j] for key in keys] for j in range(len(columns))}


@lru_cache(maxsize=4)
def _unnest_statement(columns: tuple[str, ...]) -> sa.Select:
    arrays = [sa.bindparam(f"k{j}", type_=postgresql.ARRAY(sa.String)) for j in range(len(columns))]
    keys = sa.func.unnest(*arrays).table_valued(*columns).render_derived(name="keys")
    match = sa.and_(*(memories.c[name] == keys.c[name] for name in columns))
    return (
        sa.select(*MEMORY_COLUMNS)
        .select_from(memories.join(keys, match))
        .where(memories.c.valid_until.is_(None))
    )


def select_with_embeddings(*extra: sa.ColumnElement[Any]) -> sa.Select:
    """The memory columns, each row's embedding (None without one) and `extra` columns."""
    return sa.select(*MEMORY_COLUMNS, memory_embeddings.c.embedding, *extra).select_from(memories_with_embeddings)


async def insert_memories(conn: AsyncConnection, items: Iterable[tuple[Memory, Sequence[float] | None]]) -> None:
    """Insert new memories (an id already stored is left alone) with their embeddings, if any."""
    pairs = list(items)
    if not pairs:
        return
    stmt = dialect_insert(conn, memories).on_conflict_do_nothing(index_elements=[memories.c.id])
    await conn.execute(stmt, [memory_row(memory, embedding) for memory, embedding in pairs])
    vectors = [embedding_row(memory.id, embedding) for memory, embedding in pairs if embedding is not None]
    if vectors:
        keyed = dialect_insert(conn, memory_embeddings).on_conflict_do_nothing(
            index_elements=[memory_embeddings.c.memory_id]
        )
        await conn.execute(keyed, vectors)


async def update_memories(conn: AsyncConnection, changes: Sequence[dict[str, Any]]) -> None:
    """Rewrite the mutable columns by id; the vector point must follow (its payload changed)."""
    if not changes:
        return
    stmt = (
        sa.update(memories)
        .where(memories.c.id == sa.bindparam("b_id"))
        .values(
            {
                **{name: sa.bindparam(f"b_{name}", type_=memories.c[name].type) for name in MUTABLE_FIELDS},
                **projection.owed(memories, has_embedding()),
            }
        )
    )
    await conn.execute(stmt, [{f"b_{name}": value for name, value in row.items()} for row in changes])


async def insert_outbox(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        await conn.execute(sa.insert(outbox), list(rows))


async def upsert_jobs(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert job rows, or finish queued ones; a finished job is never rewritten."""
    if not rows:
        return
    stmt = dialect_insert(conn, jobs)
    stmt = stmt.on_conflict_do_update(
        index_elements=[jobs.c.job_id],
        set_={name: stmt.excluded[name] for name in ("state", "memory_ids", "reason", "episode_id", "updated_at")},
        where=jobs.c.state == JobState.QUEUED.value,
    )
    await conn.execute(stmt, list(rows))


async def insert_jobs_if_absent(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        stmt = dialect_insert(conn, jobs).on_conflict_do_nothing(index_elements=[jobs.c.job_id])
        await conn.execute(stmt, list(rows))


async def memories_where(conn: AsyncConnection, *criteria: Any, order: Iterable[Any] = ()) -> list[Memory]:
    stmt = sa.select(*MEMORY_COLUMNS).where(*criteria).order_by(*order)
    return [row_memory(row) for row in (await conn.execute(stmt)).mappings()]


async def keyset_page(
    conn: AsyncConnection,
    stmt: sa.Select,
    keys: tuple[sa.ColumnElement[datetime], sa.ColumnElement[str]],
    limit: int,
    cursor: str | None,
    build: Callable[[Mapping[str, Any]], R],
    key_of: Callable[[R], tuple[datetime, str]],
    descending: bool = False,
) -> tuple[list[R], str | None]:
    """One page of `stmt` in (`keys`) order after `cursor`, and the cursor of the next (None on the last);
    `descending`: newest first (a cursor continues in the order that handed it out)."""
    at, id_ = keys
    if cursor is not None:
        after, after_id = decode_cursor(cursor)
        if descending:
            stmt = stmt.where(sa.or_(at < after, sa.and_(at == after, id_ < after_id)))
        else:
            stmt = stmt.where(sa.or_(at > after, sa.and_(at == after, id_ > after_id)))
    order = (at.desc(), id_.desc()) if descending else (at, id_)
    page = [build(row) for row in (await conn.execute(stmt.order_by(*order).limit(limit + 1))).mappings()]
    if len(page) <= limit:
        return page, None
    page = page[:limit]
    return page, encode_cursor(*key_of(page[-1]))


async def list_page(
    conn: AsyncConnection,
    tenant_id: str,
    user_id: str,
    state: MemoryState | None,
    limit: int,
    cursor: str | None,
    narrowing: MemoryListing = EVERY_MEMORY,
    reach: Reach = EVERY_AGENT,
    context: ConversationContext = ANY_CONTEXT,
) -> tuple[list[Memory], str | None]:
    """One page of a user's memories within `reach` in (created_at, id) order (newest first if asked)
    and the cursor of the next."""
    stmt = sa.select(*MEMORY_COLUMNS).where(
        memories.c.tenant_id == tenant_id,
        memories.c.user_id == user_id,
        *within_reach(memories, reach),
        *within_context(memories, context, memories.c.source_session),
    )
    if state is not None:
        stmt = stmt.where(memories.c.state == MemoryState(state).value)
    if narrowing.type is not None:
        stmt = stmt.where(memories.c.type == MemoryType(narrowing.type).value)
    if narrowing.topic is not None:
        stmt = stmt.where(memories.c.topic == narrowing.topic)
    keys = (memories.c.created_at, memories.c.id)
    return await keyset_page(
        conn, stmt, keys, limit, cursor, row_memory, lambda m: (m.created_at, m.id), narrowing.newest_first
    )
