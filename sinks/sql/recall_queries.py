"""The statements of recall, one round trip each; scope and currency are in every WHERE clause.

Keyword search differs per backend: SQLite matches the FTS5 table of migration 0002, narrowed to
the user by the row's scope token inside the index; PostgreSQL matches the `search_tsv` column.
Query terms reach either engine only as quoted words, never as query syntax.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from sinks.recall import Currency, KeywordHit, OpenContest, RecallScope
from sinks.sql.convert import row_memory
from sinks.sql.queries import chunked, dialect_insert
from sinks.sql.tables import PINNED_PREDICATE, contested_slots, memories, recall_audit
from streams.records import Memory, MemoryState, RecallAudit, Trust, Visibility

#: A query term is a run of letters and digits; anything else never reaches the search engine.
_WORD = re.compile(r"[^\W_]+")

#: Most terms one keyword query carries.
MAX_TERMS = 32

_FIELDS = tuple(Memory.model_fields)


def search_terms(terms: Sequence[str]) -> list[str]:
    """The distinct words of `terms`, casefolded, in order, at most `MAX_TERMS`."""
    words = (w for term in terms for w in _WORD.findall(term.casefold()))
    return list(dict.fromkeys(words))[:MAX_TERMS]


def fts_scope_token(tenant_id: str, user_id: str) -> str:
    """The scope token the FTS5 triggers index for a row (SQLite `hex()` of the UTF-8 text)."""
    return f"s{tenant_id.encode().hex().upper()}x{user_id.encode().hex().upper()}q"


def in_scope(table: Any, with_agent: bool) -> list[sa.ColumnElement[bool]]:
    """Tenant, user, and agent-private memory only for the scope's own agent (`:tenant :user :agent`)."""
    public = table.c.visibility != Visibility.AGENT.value
    visible = sa.or_(public, table.c.agent_id == sa.bindparam("agent")) if with_agent else public
    return [table.c.tenant_id == sa.bindparam("tenant"), table.c.user_id == sa.bindparam("user"), visible]


def is_current(table: Any, state: MemoryState = MemoryState.ACTIVE) -> list[sa.ColumnElement[bool]]:
    """In `state` (active), open, unrevoked, unexpired at `:now`, `:floor` confident, not untrusted."""
    now = sa.bindparam("now", type_=memories.c.expires_at.type)
    return [
        table.c.state == state.value,
        table.c.valid_until.is_(None),
        table.c.revoked_at.is_(None),
        sa.or_(table.c.expires_at.is_(None), table.c.expires_at > now),
        table.c.confidence >= sa.bindparam("floor", type_=sa.Double),
        table.c.trust != Trust.UNTRUSTED.value,
    ]


def scope_params(scope: RecallScope, currency: Currency) -> dict[str, Any]:
    params: dict[str, Any] = {"tenant": scope.tenant_id, "user": scope.user_id}
    params |= {"now": currency.now, "floor": currency.confidence_floor}
    if scope.agent_id is not None:
        params["agent"] = scope.agent_id
    if scope.topics:
        params["topics"] = list(scope.topics)
    return params


def _filtered(table: Any, with_agent: bool, with_topics: bool = False) -> list[sa.ColumnElement[bool]]:
    topics = [table.c.topic.in_(sa.bindparam("topics", expanding=True))] if with_topics else []
    return [*in_scope(table, with_agent), *is_current(table), *topics]


async def keyword_candidates(
    conn: AsyncConnection, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
) -> list[KeywordHit]:
    plan = keyword_plan(conn.dialect.name, scope, currency, terms, limit)
    return keyword_hits(await conn.execute(*plan)) if plan is not None else []


def keyword_plan(
    dialect: str, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
) -> tuple[Any, dict[str, Any]] | None:
    """The keyword statement and its parameters, None when nothing can match."""
    words = search_terms(terms)
    if not words or limit < 1:
        return None
    params = scope_params(scope, currency) | {"limit": limit}
    shape = (scope.agent_id is not None, bool(scope.topics))
    if dialect == "postgresql":
        stmt = _tsvector_statement(*shape)
        params["tsquery"] = " | ".join(words)
    else:
        stmt = _fts5_statement(*shape)
        quoted = " OR ".join(f'"{w}"' for w in words)  # words hold no quotes (letters and digits only)
        params["match"] = f'scope:"{fts_scope_token(scope.tenant_id, scope.user_id)}" AND ({quoted})'
    return stmt, params


def keyword_hits(rows: Iterable[Any]) -> list[KeywordHit]:
    return [KeywordHit(id=row.id, score=float(row.score)) for row in rows]


@lru_cache(maxsize=8)
def _fts5_statement(with_agent: bool, with_topics: bool) -> sa.Select:
    """FTS5: `:match` narrows to the user inside the index; bm25 is lower-is-better, so negated."""
    score = (-sa.func.bm25(sa.literal_column("memories_fts"))).label("score")
    return (
        sa.select(memories.c.id, score)
        .select_from(sa.table("memories_fts"))
        .join(memories, sa.literal_column("memories.rowid") == sa.literal_column("memories_fts.rowid"))
        .where(sa.text("memories_fts MATCH :match"), *_filtered(memories, with_agent, with_topics))
        .order_by(sa.desc("score"), memories.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


@lru_cache(maxsize=8)
def _tsvector_statement(with_agent: bool, with_topics: bool) -> sa.Select:
    """PostgreSQL: `search_tsv @@ to_tsquery(:tsquery)` (words joined by `|`), ranked by `ts_rank_cd`."""
    query = sa.func.to_tsquery(sa.literal_column("'english'::regconfig"), sa.bindparam("tsquery"))
    tsv = sa.literal_column("memories.search_tsv")
    score = sa.func.ts_rank_cd(tsv, query).label("score")
    return (
        sa.select(memories.c.id, score)
        .where(tsv.op("@@")(query), *_filtered(memories, with_agent, with_topics))
        .order_by(sa.desc("score"), memories.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


async def hydrate(
    conn: AsyncConnection,
    scope: RecallScope,
    currency: Currency,
    ids: Sequence[str],
    slot_attributes: Sequence[str],
) -> list[Memory]:
    """Rows by id, UNION ALL the current rows sharing a slot with one of them; both fully filtered."""
    plan = hydrate_plan(scope, currency, ids, slot_attributes)
    return hydrated(await conn.execute(*plan)) if plan is not None else []


def hydrate_plan(
    scope: RecallScope, currency: Currency, ids: Sequence[str], slot_attributes: Sequence[str]
) -> tuple[Any, dict[str, Any]] | None:
    if not ids:
        return None
    params = scope_params(scope, currency) | {"ids": list(ids)}
    if slot_attributes:
        params["attributes"] = list(slot_attributes)
    return _hydrate_statement(scope.agent_id is not None, bool(slot_attributes)), params


def hydrated(result: Any) -> list[Memory]:
    """Distinct memories of a hydrate result (a row can be both an id hit and a slot-mate)."""
    found: dict[str, Memory] = {}
    for row in result.mappings():
        if row["id"] not in found:
            found[row["id"]] = row_memory(row)
    return list(found.values())


@lru_cache(maxsize=8)
def _hydrate_statement(with_agent: bool, with_mates: bool) -> Any:
    wanted = memories.alias("m")
    ids = sa.bindparam("ids", expanding=True)
    by_id = sa.select(*(wanted.c[f] for f in _FIELDS)).where(
        wanted.c.id.in_(ids), *_filtered(wanted, with_agent)
    )
    if not with_mates:
        return by_id
    seed, mate = memories.alias("c"), memories.alias("s")
    same_slot = sa.and_(
        mate.c.tenant_id == seed.c.tenant_id,
        mate.c.user_id == seed.c.user_id,
        mate.c.entity == seed.c.entity,
        mate.c.attribute == seed.c.attribute,
    )
    mates = (
        sa.select(*(mate.c[f] for f in _FIELDS))
        .select_from(seed.join(mate, same_slot))
        .where(
            seed.c.id.in_(ids),
            seed.c.attribute.in_(sa.bindparam("attributes", expanding=True)),
            *_filtered(seed, with_agent),
            *_filtered(mate, with_agent),
        )
    )
    return sa.union_all(by_id, mates)


async def pinned_memories(
    conn: AsyncConnection, scope: RecallScope, currency: Currency, limit: int
) -> list[Memory]:
    """Profile facts and constraints; the literal predicate lets SQLite use the partial index."""
    return memories_of(await conn.execute(*pinned_plan(scope, currency, limit)))


def pinned_plan(scope: RecallScope, currency: Currency, limit: int) -> tuple[Any, dict[str, Any]]:
    params = scope_params(scope, currency) | {"limit": limit}
    params.pop("topics", None)  # topics narrow the similarity race only
    return _pinned_statement(scope.agent_id is not None), params


def memories_of(result: Any) -> list[Memory]:
    return [row_memory(row) for row in result.mappings()]


@lru_cache(maxsize=4)
def _pinned_statement(with_agent: bool) -> sa.Select:
    return (
        sa.select(*(memories.c[f] for f in _FIELDS))
        .where(sa.text(PINNED_PREDICATE), *_filtered(memories, with_agent))
        .order_by(memories.c.importance.desc(), memories.c.confidence.desc(), memories.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


def open_contests_plan(scope: RecallScope, currency: Currency, limit: int) -> tuple[Any, dict[str, Any]]:
    params = scope_params(scope, currency) | {"limit": limit}
    params.pop("topics", None)  # a contested slot is reported whatever the topic
    return _open_contests_statement(scope.agent_id is not None), params


def open_contests_of(result: Any) -> list[OpenContest]:
    """Rows (slot id + memory, slot by slot) grouped into one `OpenContest` per slot, in order."""
    grouped: dict[str, list[Any]] = {}
    for row in result.mappings():
        grouped.setdefault(row["contested_id"], []).append(row)
    return [
        OpenContest(
            contested_id=contested_id,
            entity=rows[0]["entity"],
            attribute=rows[0]["attribute"],
            memories=tuple(row_memory(row) for row in rows),
        )
        for contested_id, rows in grouped.items()
    ]


@lru_cache(maxsize=4)
def _open_contests_statement(with_agent: bool) -> sa.Select:
    """The oldest `:limit` open slots of the user joined to their contested memories in scope."""
    slots = (
        sa.select(
            contested_slots.c.id,
            contested_slots.c.entity,
            contested_slots.c.attribute,
            contested_slots.c.opened_at,
        )
        .where(
            contested_slots.c.tenant_id == sa.bindparam("tenant"),
            contested_slots.c.user_id == sa.bindparam("user"),
            contested_slots.c.status == "open",
        )
        .order_by(contested_slots.c.opened_at, contested_slots.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
        .subquery("slot")
    )
    same_pair = sa.and_(memories.c.entity == slots.c.entity, memories.c.attribute == slots.c.attribute)
    return (
        sa.select(slots.c.id.label("contested_id"), *(memories.c[f] for f in _FIELDS))
        .select_from(slots.join(memories, same_pair))
        .where(*in_scope(memories, with_agent), *is_current(memories, MemoryState.CONTESTED))
        .order_by(slots.c.opened_at, slots.c.id, memories.c.created_at, memories.c.id)
    )


async def record_access(conn: AsyncConnection, counts: Mapping[str, int], at: datetime) -> None:
    """One UPDATE per distinct count (nearly always one), chunked by id."""
    by_count: dict[int, list[str]] = {}
    for memory_id, n in counts.items():
        if n > 0:
            by_count.setdefault(n, []).append(memory_id)
    for n, ids in by_count.items():
        for part in chunked(sorted(ids)):
            await conn.execute(
                sa.update(memories)
                .where(memories.c.id.in_(part))
                .values(access_count=memories.c.access_count + n, last_accessed=at)
            )


async def insert_audit(conn: AsyncConnection, records: Sequence[RecallAudit]) -> None:
    if records:
        stmt = dialect_insert(conn, recall_audit).on_conflict_do_nothing(index_elements=[recall_audit.c.id])
        await conn.execute(stmt, [record.model_dump(mode="python") for record in records])
