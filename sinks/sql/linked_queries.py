"""Recall's linked candidates (`RecallStore.linked_candidates`), alone or with the pinned rows in one statement.

Every recall reads the user's pinned memories (profile facts and constraints, `recall_queries.
pinned_plan`) and, when its query names an entity or a date, the ids of the memories linked to them
(`linked_plan`). On a SQLite file both run on the event loop (`reader`), where each
statement costs more in binding, the cursor and the loop's turn than in SQLite's own work: the two
are one `UNION ALL` here, each part as it would run alone (its filters, order and limit) and
numbered in its own order, so that the rows come back as the two statements give them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import sqlalchemy as sa

from beliefs.records import Memory
from sinks.recall import Currency, QueryLinks, RecallScope
from sinks.sql.convert import memory_of
from sinks.sql.recall_queries import MEMORY_FIELDS, PINNED_ORDER, current_in_scope, scope_params
from sinks.sql.tables import PINNED_PREDICATE, memories

#: The part of the union a row belongs to (its first column).
PINNED, LINKED = 0, 1
#: The order of the linked ids: most important, newest first.
LINKED_ORDER = (memories.c.importance.desc(), memories.c.valid_from.desc(), memories.c.id)


def linked_plan(
    scope: RecallScope, currency: Currency, links: QueryLinks, limit: int
) -> tuple[Any, dict[str, Any]] | None:
    """Current memories in scope whose entity is one of `links.entities` (casefolded) or whose
    `valid_from` falls in `links.window` (start, end exclusive); most important, newest first. None
    when the query names neither."""
    if not links:
        return None
    params = scope_params(scope, currency) | {"limit": limit}
    if links.entities:
        params["entities"] = sorted({e.casefold() for e in links.entities})
    if links.window is not None:
        params |= {"since": links.window[0], "until": links.window[1]}
    shape = (scope.agent_id is not None, bool(scope.topics), bool(links.entities), links.window is not None)
    return _linked_statement(*shape), params


def linked_to(by_entity: bool, by_time: bool) -> sa.ColumnElement[bool]:
    """A memory linked to the query: its entity in `:entities`, or its `valid_from` in [`:since`, `:until`)."""
    linked: list[sa.ColumnElement[bool]] = []
    if by_entity:
        linked.append(sa.func.lower(memories.c.entity).in_(sa.bindparam("entities", expanding=True)))
    if by_time:
        at = memories.c.valid_from.type
        since, until = sa.bindparam("since", type_=at), sa.bindparam("until", type_=at)
        linked.append(sa.and_(memories.c.valid_from >= since, memories.c.valid_from < until))
    return sa.or_(*linked)


@lru_cache(maxsize=16)
def _linked_statement(with_agent: bool, with_topics: bool, by_entity: bool, by_time: bool) -> sa.Select:
    return (
        sa.select(memories.c.id)
        .where(linked_to(by_entity, by_time), *current_in_scope(memories, with_agent, with_topics))
        .order_by(*LINKED_ORDER)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )


def pinned_linked_plan(
    scope: RecallScope, currency: Currency, pinned_limit: int, links: QueryLinks, linked_limit: int
) -> tuple[Any, dict[str, Any]] | None:
    """The statement and parameters reading both; None when the query names nothing to link."""
    linked = linked_plan(scope, currency, links, linked_limit)
    if linked is None:
        return None
    params = linked[1] | {"pinned_limit": pinned_limit, "linked_limit": linked_limit}
    shape = (scope.agent_id is not None, bool(scope.topics), bool(links.entities), links.window is not None)
    return _statement(*shape), params


def pinned_and_linked(rows: Iterable[Sequence[Any]]) -> tuple[list[Memory], list[str]]:
    """The pinned memories and the linked ids, each in its statement's order."""
    pinned: list[Memory] = []
    linked: list[str] = []
    for row in rows:
        if row[0] == PINNED:
            pinned.append(memory_of(row[2:]))
        else:
            linked.append(row[2])
    return pinned, linked


@lru_cache(maxsize=16)
def _statement(with_agent: bool, with_topics: bool, by_entity: bool, by_time: bool) -> sa.CompoundSelect:
    pinned = (
        sa.select(
            sa.literal_column(str(PINNED)).label("part"),
            sa.func.row_number().over(order_by=PINNED_ORDER).label("rank"),
            *(memories.c[f] for f in MEMORY_FIELDS),
        )
        .where(sa.text(PINNED_PREDICATE), *current_in_scope(memories, with_agent))
        .order_by(*PINNED_ORDER)
        .limit(sa.bindparam("pinned_limit", type_=sa.Integer))
        .subquery("pinned")
    )
    linked = (
        sa.select(
            sa.literal_column(str(LINKED)).label("part"),
            sa.func.row_number().over(order_by=LINKED_ORDER).label("rank"),
            memories.c.id,
            *(sa.null() for _ in MEMORY_FIELDS[1:]),
        )
        .where(linked_to(by_entity, by_time), *current_in_scope(memories, with_agent, with_topics))
        .order_by(*LINKED_ORDER)
        .limit(sa.bindparam("linked_limit", type_=sa.Integer))
        .subquery("linked")
    )
    return sa.union_all(sa.select(pinned), sa.select(linked)).order_by(sa.literal_column("part"), sa.literal_column("rank"))

