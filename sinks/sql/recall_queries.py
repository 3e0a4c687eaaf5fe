"""The statements of recall, one round trip each; scope and currency are in every WHERE clause.

Keyword search differs per backend: SQLite matches the FTS5 table of migration 0002, narrowed to
the user by the row's scope token inside the index; PostgreSQL matches the `search_tsv` column.
Query terms reach either engine only as quoted words, never as query syntax.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.expression import UnaryExpression
from sqlalchemy.sql.operators import custom_op

from beliefs.records import Memory, MemoryState, RecallAudit, Trust, Visibility
from sinks.recall import Currency, KeywordHit, OpenContest, RecallScope
from sinks.sql.convert import memory_of
from sinks.sql.queries import chunked, dialect_insert
from sinks.sql.tables import PINNED_PREDICATE, contested_slots, memories, recall_audit

#: A query term is a run of letters and digits; anything else never reaches the search engine.
_WORD = re.compile(r"[^\W_]+")

#: Most terms one keyword query carries.
MAX_TERMS = 32

#: The memory columns recall reads, in `Memory`'s field order (what `memory_of` builds from).
MEMORY_FIELDS = tuple(Memory.model_fields)


def search_terms(terms: Sequence[str]) -> list[str]:
    """The distinct words of `terms`, casefolded, in order, at most `MAX_TERMS`."""
    words = (w for term in terms for w in _WORD.findall(term.casefold()))
    return list(dict.fromkeys(words))[:MAX_TERMS]


def fts_scope_token(tenant_id: str, user_id: str) -> str:
    """The scope token the FTS5 triggers index for a row (SQLite `hex()` of the UTF-8 text)."""
    return f"s{tenant_id.encode().hex().upper()}x{user_id.encode().hex().upper()}q"


def in_scope(table: Any, with_agent: bool, by_index: bool = True) -> list[sa.ColumnElement[bool]]:
    """Tenant, user, agent-private memory only for the scope's own agent, and workspace rows only
    for reads in that workspace (`:tenant :user :agent :workspace`; `:workspace` null: rows of no
    workspace only, since `= NULL` matches nothing).

    Not `by_index` (SQLite): the tenant's equality is written `+tenant_id`, which SQLite never
    reads through an index, so a statement finds its rows some other way (e.g. by rowid)."""
    public = table.c.visibility != Visibility.AGENT.value
    visible = sa.or_(public, table.c.agent_id == sa.bindparam("agent")) if with_agent else public
    tenant = table.c.tenant_id if by_index else UnaryExpression(table.c.tenant_id, operator=custom_op("+"))
    workspace = sa.or_(
        table.c.workspace_id.is_(None), table.c.workspace_id == sa.bindparam("workspace", type_=sa.String)
    )
    return [tenant == sa.bindparam("tenant"), table.c.user_id == sa.bindparam("user"), visible, workspace]


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
    params: dict[str, Any] = {"tenant": scope.tenant_id, "user": scope.user_id, "workspace": scope.workspace_id}
    params |= {"now": currency.now, "floor": currency.confidence_floor}
    if scope.agent_id is not None:
        params["agent"] = scope.agent_id
    if scope.topics:
        params["topics"] = list(scope.topics)
    return params


def current_in_scope(
    table: Any, with_agent: bool, with_topics: bool = False, by_index: bool = True
) -> list[sa.ColumnElement[bool]]:
    """`in_scope` and `is_current`, and in one of `:topics` when `with_topics`."""
    topics = [table.c.topic.in_(sa.bindparam("topics", expanding=True))] if with_topics else []
    return [*in_scope(table, with_agent, by_index), *is_current(table), *topics]


def keyword_plan(
    dialect: str, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
) -> tuple[Any, dict[str, Any]] | None:
    """The keyword statement and its parameters, None when nothing can match."""
    words = search_terms(terms)
    if not words or limit < 1:
        return None
    params = scope_params(scope, currency)
    shape = (len(words), scope.agent_id is not None, bool(scope.topics))
    if dialect == "postgresql":
        params |= {f"word{index}": word for index, word in enumerate(words)}
        return _tsvector_statement(*shape), params
    token = f'scope:"{fts_scope_token(scope.tenant_id, scope.user_id)}"'
    params["scope_match"] = token
    for index, word in enumerate(words):  # words hold no quotes (letters and digits only)
        params[f"word{index}"] = f'{token} AND "{word}"'
    return _fts5_statement(*shape), params


def keyword_converter(limit: int) -> Callable[[Iterable[Sequence[Any]]], list[KeywordHit]]:
    """What turns the keyword statement's rows (either backend) into at most `limit` hits, best first."""
    return lambda rows: per_user_bm25(rows, limit)


#: BM25's term-saturation and length-normalisation constants (the usual ones, as FTS5's bm25()).
BM25_K1 = 1.2
BM25_B = 0.75
#: Rows one word's part of the keyword statement returns at most; a term in more of the
#: user's current memories than this is common for that user anyway (its weight is near zero).
TERM_ROWS_MAX = 500


def per_user_bm25(rows: Iterable[Sequence[Any]], limit: int) -> list[KeywordHit]:
    """Rank the keyword statement's rows by BM25 over the user's own memories, best first.

    Rows are (id, term, chars): one per memory and query term it contains, plus one (term -1)
    whose `chars` is the user's number of indexed memories. Term frequency is taken as 1 (memories
    are a sentence or two) and length is in characters, normalised by the matched memories' mean.
    """
    memories_of_user = 0
    terms_of: dict[str, list[int]] = {}
    chars_of: dict[str, int] = {}
    holding: dict[int, int] = {}  # term -> how many of the user's current memories hold it
    for row_id, term, chars in rows:
        if term < 0:
            memories_of_user = chars
            continue
        terms_of.setdefault(row_id, []).append(term)
        chars_of[row_id] = chars or 0
        holding[term] = holding.get(term, 0) + 1
    if not terms_of:
        return []
    total = max(memories_of_user, max(holding.values()))
    weight = {term: math.log(1 + (total - n + 0.5) / (n + 0.5)) for term, n in holding.items()}
    mean_chars = max(sum(chars_of.values()) / len(chars_of), 1.0)
    scored = []
    for memory_id, found in terms_of.items():
        norm = 1 - BM25_B + BM25_B * chars_of[memory_id] / mean_chars
        saturation = (BM25_K1 + 1) / (1 + BM25_K1 * norm)
        scored.append(KeywordHit(id=memory_id, score=sum(weight[term] for term in found) * saturation))
    scored.sort(key=lambda hit: (-hit.score, hit.id))
    return scored[:limit]


@lru_cache(maxsize=64)
def _fts5_statement(words: int, with_agent: bool, with_topics: bool) -> sa.CompoundSelect:
    """FTS5, one part per query word (`:word<i>`: the user's scope token AND the word), plus the
    user's count of indexed memories (`:scope_match`); `per_user_bm25` ranks the rows. Each part
    reads the memories the index matched, by rowid: SQLite would rather read all the user's
    memories through an index of the table and test each against the match, more rows to read
    the more memories the user has.

    Not FTS5's own bm25(): it counts each phrase's documents over the whole index on every query,
    so its cost grows with every tenant's memories (`docs/benchmarks.md`, "Recall latency and throughput"; its history in git), while
    these statistics are the user's own.
    """
    fts = sa.table("memories_fts", sa.column("rowid"))

    def holds_word(index: int) -> sa.ColumnElement[bool]:
        # IN, not a join: with a join the planner may run the MATCH once per row of the user
        matching = sa.select(fts.c.rowid).where(sa.text(f"memories_fts MATCH :word{index}"))
        return sa.literal_column("memories.rowid").in_(matching)

    count = sa.select(sa.func.count()).select_from(fts).where(sa.text("memories_fts MATCH :scope_match"))
    filters = current_in_scope(memories, with_agent, with_topics, by_index=False)  # by the matched rowids
    return per_word_statement(words, holds_word, count, filters)


@lru_cache(maxsize=64)
def _tsvector_statement(words: int, with_agent: bool, with_topics: bool) -> sa.CompoundSelect:
    """PostgreSQL, in the shape of `_fts5_statement`: one part per word (`search_tsv @@` the
    English tsquery of `:word<i>`), plus the user's count of memories; `per_user_bm25` ranks."""
    tsv = sa.literal_column("memories.search_tsv")
    english = sa.literal_column("'english'::regconfig")

    def holds_word(index: int) -> sa.ColumnElement[bool]:
        return tsv.op("@@")(sa.func.to_tsquery(english, sa.bindparam(f"word{index}")))

    count = sa.select(sa.func.count()).where(
        memories.c.tenant_id == sa.bindparam("tenant"), memories.c.user_id == sa.bindparam("user")
    )
    return per_word_statement(words, holds_word, count, current_in_scope(memories, with_agent, with_topics))


def per_word_statement(
    words: int,
    holds_word: Callable[[int], sa.ColumnElement[bool]],
    count: sa.Select,
    filters: list[sa.ColumnElement[bool]],
    table: sa.Table = memories,
    with_rowid: bool = False,
) -> sa.CompoundSelect:
    """The rows `per_user_bm25` reads: (id, term, chars) per current row of `table` holding word
    `term`, at most `TERM_ROWS_MAX` per word, after one row ("", -1, the user's count of rows).
    `with_rowid` (SQLite): a fourth column, the row's rowid (null in the count's row)."""
    rowid = [sa.literal_column(f"{table.name}.rowid", sa.Integer).label("rid")] if with_rowid else []
    parts = [
        sa.select(
            table.c.id,
            sa.literal(index, sa.Integer).label("term"),
            sa.func.length(table.c.text).label("chars"),
            *rowid,
        )
        .where(holds_word(index), *filters)
        .limit(TERM_ROWS_MAX)
        .subquery(f"term{index}")
        for index in range(words)
    ]
    total = sa.select(
        sa.literal("", sa.String).label("id"),
        sa.literal(-1, sa.Integer).label("term"),
        count.scalar_subquery().label("chars"),
        *([sa.null().label("rid")] if with_rowid else []),
    )
    return sa.union_all(total, *(sa.select(part) for part in parts))


def pinned_plan(scope: RecallScope, currency: Currency, limit: int) -> tuple[Any, dict[str, Any]]:
    """Profile facts and constraints; the literal predicate lets SQLite use the partial index."""
    params = scope_params(scope, currency) | {"limit": limit}
    params.pop("topics", None)  # topics narrow the similarity race only
    return _pinned_statement(scope.agent_id is not None), params


def memories_of(rows: Iterable[Sequence[Any]]) -> list[Memory]:
    """Rows of the memory fields in order, as memories."""
    return [memory_of(row) for row in rows]


#: The order of the pinned rows: most important, most confident first.
PINNED_ORDER = (memories.c.importance.desc(), memories.c.confidence.desc(), memories.c.id)


@lru_cache(maxsize=4)
def _pinned_statement(with_agent: bool) -> sa.Select:
    return (
        sa.select(*(memories.c[f] for f in MEMORY_FIELDS))
        .where(sa.text(PINNED_PREDICATE), *current_in_scope(memories, with_agent))
        .order_by(*PINNED_ORDER)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


def safety_plan(
    scope: RecallScope, currency: Currency, attributes: Sequence[str], limit: int
) -> tuple[Any, dict[str, Any]] | None:
    """Current memories of the safety attributes (allergy, medical need, ...), most important first."""
    if not attributes:
        return None
    params = scope_params(scope, currency) | {"limit": limit, "attributes": list(attributes)}
    params.pop("topics", None)  # a safety fact applies whatever the topic
    return _safety_statement(scope.agent_id is not None), params


@lru_cache(maxsize=4)
def _safety_statement(with_agent: bool) -> sa.Select:
    return (
        sa.select(*(memories.c[f] for f in MEMORY_FIELDS))
        .where(
            memories.c.attribute.in_(sa.bindparam("attributes", expanding=True)),
            *current_in_scope(memories, with_agent),
        )
        .order_by(memories.c.importance.desc(), memories.c.confidence.desc(), memories.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


def ids_of(rows: Iterable[Sequence[Any]]) -> list[str]:
    """The first column of each row."""
    return [row[0] for row in rows]


def open_contests_plan(scope: RecallScope, currency: Currency, limit: int) -> tuple[Any, dict[str, Any]]:
    params = scope_params(scope, currency) | {"limit": limit}
    params.pop("topics", None)  # a contested slot is reported whatever the topic
    return _open_contests_statement(scope.agent_id is not None), params


def open_contests_of(rows: Iterable[Sequence[Any]]) -> list[OpenContest]:
    """Rows (slot id + memory, slot by slot) grouped into one `OpenContest` per slot, in order."""
    grouped: dict[str, list[Sequence[Any]]] = {}
    for row in rows:
        grouped.setdefault(row[0], []).append(row[1:])
    entity, attribute = MEMORY_FIELDS.index("entity"), MEMORY_FIELDS.index("attribute")
    return [
        OpenContest(
            contested_id=contested_id,
            entity=members[0][entity],
            attribute=members[0][attribute],
            memories=tuple(memory_of(member) for member in members),
        )
        for contested_id, members in grouped.items()
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
            contested_slots.c.agent_id,
        )
        .where(
            contested_slots.c.tenant_id == sa.bindparam("tenant"),
            contested_slots.c.user_id == sa.bindparam("user"),
            contested_slots.c.status == "open",
            sa.or_(contested_slots.c.agent_id.is_(None), contested_slots.c.agent_id == sa.bindparam("agent"))
            if with_agent
            else contested_slots.c.agent_id.is_(None),
        )
        .order_by(contested_slots.c.opened_at, contested_slots.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
        .subquery("slot")
    )
    private = memories.c.visibility == Visibility.AGENT.value
    same_scope = sa.or_(
        sa.and_(slots.c.agent_id.is_(None), ~private), sa.and_(private, memories.c.agent_id == slots.c.agent_id)
    )
    same_pair = sa.and_(
        memories.c.entity == slots.c.entity, memories.c.attribute == slots.c.attribute, same_scope
    )
    return (
        sa.select(slots.c.id.label("contested_id"), *(memories.c[f] for f in MEMORY_FIELDS))
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
