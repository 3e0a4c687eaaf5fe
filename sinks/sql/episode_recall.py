"""Recall's statements over episodes, one round trip each; scope and currency in every WHERE clause.

Keyword search ranks the user's own episodes by BM25 exactly as memories are ranked
(`recall_queries.per_user_bm25`): SQLite matches the FTS5 table `episodes_fts` of migration 0005,
narrowed to the user by the scope token inside the index; PostgreSQL matches `search_tsv`.
Neighbours are the episodes around a hit in its session, in (said_at, turn_id) order.

A turn is also found by the words of the turns just before or after it (`spread_to_neighbours`):
in a conversation the answer to a question seldom repeats its words, so the best keyword hits lend
a share of their score to the turns around them, which join the candidates or rise among them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sqlalchemy as sa

from beliefs.episodes import Episode, EpisodeState
from beliefs.records import Trust
from sinks.recall import Currency, KeywordHit, RecallScope
from sinks.sql.convert import EPISODE_FIELDS, episode_of
from sinks.sql.recall_queries import (
    fts_scope_token,
    in_scope,
    per_user_bm25,
    per_word_statement,
    search_terms,
)
from sinks.sql.tables import episodes

#: Shares of a keyword hit's BM25 score lent to the turns around it in its session, by distance
#: (the next turn each side, then the one after); tuned on LoCoMo conversations 0-1 (docs/benchmarks.md).
NEIGHBOUR_SHARES: tuple[float, ...] = (0.7, 0.5)
#: Best keyword hits that lend (one adjacency statement, two parts per hit).
SPREAD_SEEDS = 16

_SEED = len(EPISODE_FIELDS)  # a neighbour row's column naming its seed, after the episode's fields


def is_current(table: Any, include_untrusted: bool) -> list[sa.ColumnElement[bool]]:
    """Active, unrevoked, unexpired at `:now`, and not untrusted unless asked for."""
    now = sa.bindparam("now", type_=episodes.c.expires_at.type)
    current = [
        table.c.state == EpisodeState.ACTIVE.value,
        table.c.revoked_at.is_(None),
        sa.or_(table.c.expires_at.is_(None), table.c.expires_at > now),
    ]
    if not include_untrusted:
        current.append(table.c.trust != Trust.UNTRUSTED.value)
    return current


def _filtered(
    table: Any, with_agent: bool, include_untrusted: bool, by_index: bool = True
) -> list[sa.ColumnElement[bool]]:
    return [*in_scope(table, with_agent, by_index), *is_current(table, include_untrusted)]


def scope_params(scope: RecallScope, currency: Currency) -> dict[str, Any]:
    params: dict[str, Any] = {
        "tenant": scope.tenant_id, "user": scope.user_id, "workspace": scope.workspace_id, "now": currency.now,
    }  # fmt: skip
    if scope.agent_id is not None:
        params["agent"] = scope.agent_id
    return params


def _shape(scope: RecallScope, currency: Currency) -> tuple[bool, bool]:
    return scope.agent_id is not None, currency.include_untrusted


# -- keyword candidates ----------------------------------------------------------------------------


def keyword_plan(
    dialect: str, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
) -> tuple[Any, dict[str, Any]] | None:
    """The episode keyword statement and its parameters, None when nothing can match: its rows are
    those of `per_user_bm25`, then the adjacency rows of `adjacent_plan` around every hit when the
    hits are few enough to all be spread seeds (`keyword_and_adjacent` splits them)."""
    words = search_terms(terms)
    if not words or limit < 1:
        return None
    params = scope_params(scope, currency) | {"window": len(NEIGHBOUR_SHARES), "seeds_max": _seeds(limit)}
    if dialect == "postgresql":
        params |= {f"word{index}": word for index, word in enumerate(words)}
        return _tsvector_statement(len(words), *_shape(scope, currency)), params
    token = f'scope:"{fts_scope_token(scope.tenant_id, scope.user_id)}"'
    params["scope_match"] = token
    for index, word in enumerate(words):  # words hold letters and digits only
        params[f"word{index}"] = f'{token} AND "{word}"'
    return _fts5_statement(len(words), *_shape(scope, currency)), params


@lru_cache(maxsize=64)
def _fts5_statement(words: int, with_agent: bool, include_untrusted: bool) -> sa.CompoundSelect:
    fts = sa.table("episodes_fts", sa.column("rowid"))

    def holds_word(index: int) -> sa.ColumnElement[bool]:
        matching = sa.select(fts.c.rowid).where(sa.text(f"episodes_fts MATCH :word{index}"))
        return sa.literal_column("episodes.rowid").in_(matching)

    count = sa.select(sa.func.count()).select_from(fts).where(sa.text("episodes_fts MATCH :scope_match"))
    filters = _filtered(episodes, with_agent, include_untrusted, by_index=False)  # as memories' statement
    keyword = per_word_statement(words, holds_word, count, filters, episodes, with_rowid=True)
    return _with_adjacent(keyword, with_agent, include_untrusted, by_rowid=True)


@lru_cache(maxsize=64)
def _tsvector_statement(words: int, with_agent: bool, include_untrusted: bool) -> sa.CompoundSelect:
    tsv = sa.literal_column("episodes.search_tsv")
    english = sa.literal_column("'english'::regconfig")

    def holds_word(index: int) -> sa.ColumnElement[bool]:
        return tsv.op("@@")(sa.func.to_tsquery(english, sa.bindparam(f"word{index}")))

    count = sa.select(sa.func.count()).where(
        episodes.c.tenant_id == sa.bindparam("tenant"), episodes.c.user_id == sa.bindparam("user")
    )
    filters = _filtered(episodes, with_agent, include_untrusted)
    keyword = per_word_statement(words, holds_word, count, filters, episodes)
    return _with_adjacent(keyword, with_agent, include_untrusted, by_rowid=False)


def _seeds(limit: int) -> int:
    """How many of `limit` keyword hits lend to the turns around them."""
    return min(SPREAD_SEEDS, limit)


def _with_adjacent(
    keyword: sa.CompoundSelect, with_agent: bool, include_untrusted: bool, by_rowid: bool
) -> sa.CompoundSelect:
    """The keyword rows (id, term, chars; the adjacency columns null), then the adjacency rows of
    `_neighbours_statement(ids_only=True)` (term and chars null) around each hit, when there are at
    most `:seeds_max` of them: every hit is then a seed, and one statement does the keyword search
    and the spread's read. With more hits, which lend depends on the ranking: none come.
    `by_rowid` (SQLite): the keyword rows carry their rowid, by which the seeds are read."""
    hits = keyword.cte("hits")
    typed_null = [sa.type_coerce(sa.null(), episodes.c[f].type).label(f) for f in ("said_at", "turn_id")]
    rows = sa.select(
        hits.c.id,
        hits.c.term,
        hits.c.chars,
        *typed_null,
        sa.type_coerce(sa.null(), episodes.c.id.type).label("seed"),
        sa.type_coerce(sa.null(), sa.Integer).label("side"),
    )
    hit_ids = sa.select(hits.c.rid if by_rowid else hits.c.id).where(hits.c.term >= 0)
    few = sa.select(sa.func.count(sa.distinct(hits.c.id))).where(hits.c.term >= 0).scalar_subquery()
    few_enough = few <= sa.bindparam("seeds_max", type_=sa.Integer)
    term_null = sa.type_coerce(sa.null(), sa.Integer)
    seeds = _Seeds.of(hit_ids, with_agent, include_untrusted, once=by_rowid, rowids=by_rowid, also=[few_enough])
    around = []
    for part in _around(seeds, with_agent, include_untrusted, ids_only=True, by_rowid=by_rowid):
        neighbour, *rest = part.selected_columns  # its id, then said_at, turn_id, seed, side
        nulls = (term_null.label("term"), term_null.label("chars"))
        around.append(part.with_only_columns(neighbour, *nulls, *rest))
    return sa.union_all(rows, *around)


def keyword_and_adjacent(limit: int):
    """What turns the episode keyword rows into (the hits, best first; the adjacency of `adjacent_of`
    around them, or None when the statement carried none for there being too many hits)."""

    def convert(rows: Iterable[Sequence[Any]]) -> tuple[list[KeywordHit], dict[str, dict[str, int]] | None]:
        keyword, adjacency = [], []
        for row in rows:
            if row[6] is None:  # no side: a keyword row (id, term, chars)
                keyword.append((row[0], row[1], row[2]))
            else:  # (id, said_at, turn_id, seed, side)
                adjacency.append((row[0], row[3], row[4], row[5], row[6]))
        hits = per_user_bm25(keyword, limit)
        distinct = len({row[0] for row in keyword if row[1] >= 0})
        return hits, adjacent_of(adjacency) if distinct <= _seeds(limit) else None

    return convert


def adjacent_plan(
    dialect: str, scope: RecallScope, currency: Currency, ids: Sequence[str], window: int
) -> tuple[Any, dict[str, Any]] | None:
    """The current episodes up to `window` before and after each of `ids` in its session, as
    (seed, id, said_at, turn_id, side) rows, for `spread_to_neighbours`."""
    if not ids or window < 1:
        return None
    params = scope_params(scope, currency) | {"window": window, "seeds": list(dict.fromkeys(ids))}
    statement = _neighbours_statement(*_shape(scope, currency), ids_only=True, by_rowid=dialect == "sqlite")
    return statement, params


def adjacent_of(rows: Iterable[Sequence[Any]]) -> dict[str, dict[str, int]]:
    """Adjacency rows (id, said_at, turn_id, seed, side) as {seed id: {neighbour id: its distance in turns}}."""
    sides: dict[tuple[str, int], list[tuple[Any, str, str]]] = {}
    for episode_id, said_at, turn_id, seed, side in rows:
        sides.setdefault((seed, side), []).append((said_at, turn_id, episode_id))
    around: dict[str, dict[str, int]] = {}
    for (seed, side), turns in sides.items():
        turns.sort(key=lambda t: (t[0], t[1]), reverse=side < 0)  # nearest first
        around.setdefault(seed, {}).update({t[2]: d for d, t in enumerate(turns, start=1)})
    return around


def spread_to_neighbours(
    hits: Sequence[KeywordHit], adjacent: Mapping[str, Mapping[str, int]], shares: Sequence[float], limit: int
) -> list[KeywordHit]:
    """Each hit's score plus the most any seed of `adjacent` lends it: the seed's score times the
    share of their distance (`shares[0]` next to it, `shares[1]` one further...); a turn that held
    no query word joins with what it is lent alone. Best first, at most `limit`."""
    score = {hit.id: hit.score for hit in hits}
    lent: dict[str, float] = {}
    for seed, neighbours in adjacent.items():
        for neighbour, distance in neighbours.items():
            if distance <= len(shares):
                lent[neighbour] = max(lent.get(neighbour, 0.0), shares[distance - 1] * score.get(seed, 0.0))
    for episode_id, extra in lent.items():
        score[episode_id] = score.get(episode_id, 0.0) + extra
    spread = [KeywordHit(id=episode_id, score=value) for episode_id, value in score.items() if value > 0]
    spread.sort(key=lambda hit: (-hit.score, hit.id))
    return spread[:limit]


# -- hydration ------------------------------------------------------------------------------------


def hydrate_plan(scope: RecallScope, currency: Currency, ids: Sequence[str]) -> tuple[Any, dict[str, Any]] | None:
    if not ids:
        return None
    params = scope_params(scope, currency) | {"ids": list(dict.fromkeys(ids))}
    return _hydrate_statement(*_shape(scope, currency)), params


def hydrated_in_order(ids: Sequence[str]):
    """What turns hydrate rows into episodes in the order of `ids`."""

    def convert(rows: Iterable[Sequence[Any]]) -> list[Episode]:
        found = {row[0]: row for row in rows}  # by id
        return [episode_of(found[i]) for i in dict.fromkeys(ids) if i in found]

    return convert


@lru_cache(maxsize=8)
def _hydrate_statement(with_agent: bool, include_untrusted: bool) -> sa.Select:
    return sa.select(*(episodes.c[f] for f in EPISODE_FIELDS)).where(
        episodes.c.id.in_(sa.bindparam("ids", expanding=True)), *_filtered(episodes, with_agent, include_untrusted)
    )


# -- neighbours -----------------------------------------------------------------------------------


def neighbours_plan(
    dialect: str, scope: RecallScope, currency: Currency, ids: Sequence[str], window: int
) -> tuple[Any, dict[str, Any]] | None:
    """The seeds and up to `window` episodes each side, one statement whatever their number."""
    if not ids:
        return None
    if window < 0:
        raise ValueError(f"window must be >= 0, got {window}")
    params = scope_params(scope, currency) | {"window": window, "seeds": list(dict.fromkeys(ids))}
    return _neighbours_statement(*_shape(scope, currency), by_rowid=dialect == "sqlite"), params


def neighbours_of(ids: Sequence[str]):
    """What turns neighbour rows into {seed id: its neighbours in order}; absent seeds are out of scope."""

    def convert(rows: Iterable[Sequence[Any]]) -> dict[str, list[Episode]]:
        seeds: set[str] = set()
        around: dict[str, dict[str, Episode]] = {}
        for row in rows:  # the episode's fields, then its seed
            seed = row[_SEED]
            if row[0] == seed:
                seeds.add(seed)
            else:
                around.setdefault(seed, {})[row[0]] = episode_of(row)
        return {
            seed: sorted(around.get(seed, {}).values(), key=lambda e: (e.said_at, e.turn_id))
            for seed in dict.fromkeys(ids)
            if seed in seeds
        }

    return convert


@lru_cache(maxsize=8)
def _neighbours_statement(
    with_agent: bool, include_untrusted: bool, ids_only: bool = False, by_rowid: bool = False
) -> sa.CompoundSelect:
    """The seeds (`:seeds`, each in scope and current: its id alone), then per seed the `:window`
    episodes before it and the `:window` after it in its session, in (said_at, turn_id) order;
    rows name their seed. `ids_only`: only each neighbour's id, said_at, turn_id and side (-1
    before, 1 after), no seed row.

    One shape whatever the number of seeds (an expanding IN, and per side a correlated subquery
    with its own LIMIT, a range seek on `ix_episodes_session`): a statement per seed count cost
    more to build and compile than to run, on the event loop (`docs/benchmarks.md`, recall at 1M
    with episodes).
    """
    seeds = _Seeds.of(sa.bindparam("seeds", expanding=True), with_agent, include_untrusted, once=by_rowid)
    parts = _around(seeds, with_agent, include_untrusted, ids_only, by_rowid)
    if not ids_only:
        seed = seeds.table
        # a seed's own row only says it is current: its id, the other fields null
        blank = (sa.type_coerce(sa.null(), episodes.c[f].type).label(f) for f in EPISODE_FIELDS[1:])
        parts.insert(0, sa.select(seed.c.id, *blank, seed.c.id.label("seed")).where(*seeds.chosen))
    return sa.union_all(*parts)


@dataclass(frozen=True)
class _Seeds:
    """Where `_around` finds its seeds: `table` (an alias of `episodes`, or a CTE of the seeds'
    id, scope, session and place in it) and what `chosen` of its rows are seeds (none: every row)."""

    table: Any
    chosen: tuple[sa.ColumnElement[bool], ...]

    @classmethod
    def of(
        cls,
        keys: Any,
        with_agent: bool,
        include_untrusted: bool,
        *,
        once: bool,
        rowids: bool = False,
        also: Sequence[sa.ColumnElement[bool]] = (),
    ) -> _Seeds:
        """The current episodes in scope among `keys` (a bound IN list or a subquery: of ids, or of
        rowids when `rowids`); `also`: further conditions, such as a scalar test of the statement.
        `once` (SQLite): read once into a CTE, to which each part of the statement joins, instead of
        once per part (`docs/benchmarks.md`, recall at 1M)."""
        seed = episodes.alias("s")
        key = _key(seed, rowids)
        chosen = (key.in_(keys), *_filtered(seed, with_agent, include_untrusted, by_index=not rowids), *also)
        if not once:
            return cls(seed, chosen)
        found = sa.select(*(seed.c[f] for f in _SEED_PLACE)).where(*chosen).cte("seed").prefix_with("MATERIALIZED")
        return cls(found, ())


#: The seed's columns `_around` reads: its id, its scope and session, its place in the session.
_SEED_PLACE = ("id", "tenant_id", "user_id", "session_id", "said_at", "turn_id")


def _around(
    seeds: _Seeds, with_agent: bool, include_untrusted: bool, ids_only: bool, by_rowid: bool
) -> list[sa.Select]:
    """`_neighbours_statement`'s two parts of the `:window` episodes before and after each of
    `seeds`. `by_rowid` (SQLite): the subquery names the neighbours by rowid, which
    `ix_episodes_session` holds, so that reading each one is a seek of the table alone, not of the
    id index first."""
    window = sa.bindparam("window", type_=sa.Integer)
    seed = seeds.table
    fields = ("id", "said_at", "turn_id") if ids_only else EPISODE_FIELDS
    parts: list[sa.Select] = []
    for earlier in (True, False):
        near, other = episodes.alias("n"), episodes.alias("m")
        key, seed_key = sa.tuple_(other.c.said_at, other.c.turn_id), sa.tuple_(seed.c.said_at, seed.c.turn_id)
        order = sa.desc if earlier else sa.asc
        around = (
            sa.select(_key(other, by_rowid))
            .where(
                other.c.tenant_id == seed.c.tenant_id,
                other.c.user_id == seed.c.user_id,
                other.c.session_id.is_not_distinct_from(seed.c.session_id),
                key < seed_key if earlier else key > seed_key,
                *_filtered(other, with_agent, include_untrusted),
            )
            .order_by(order(other.c.said_at), order(other.c.turn_id))
            .limit(window)
            .correlate(seed)
        )
        side = [sa.literal(-1 if earlier else 1, sa.Integer).label("side")] if ids_only else []
        parts.append(
            sa.select(*(near.c[f] for f in fields), seed.c.id.label("seed"), *side)
            .select_from(seed.join(near, _key(near, by_rowid).in_(around)))
            .where(*seeds.chosen)
        )
    return parts


def _key(table: Any, by_rowid: bool) -> Any:
    """What names a row of `table` (an alias of `episodes`): its SQLite rowid, or its id."""
    return sa.literal_column(f"{table.name}.rowid", sa.Integer) if by_rowid else table.c.id
