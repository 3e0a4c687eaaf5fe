"""Hydration: the memories of recall's candidate ids, with the current slot-mates of those whose
attribute is single-valued (so that select sees their contradictions whole); scope and currency
filter ids and mates alike (`recall_queries`). One statement whatever the number of ids.

On SQLite the ids' rows are found once (a materialized CTE of their rowids and slots): the rows are
then read whole by rowid, and the slot-mates joined to them, instead of finding the ids a second
time as the mates' seeds. PostgreSQL runs the plain UNION ALL of the two searches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import sqlalchemy as sa

from beliefs.records import Memory
from sinks.recall import Currency, RecallScope
from sinks.sql.convert import memory_of
from sinks.sql.recall_queries import MEMORY_FIELDS, current_in_scope, scope_params
from sinks.sql.tables import memories


def hydrate_plan(
    dialect: str, scope: RecallScope, currency: Currency, ids: Sequence[str], slot_attributes: Sequence[str]
) -> tuple[Any, dict[str, Any]] | None:
    """Rows by id, UNION ALL the current rows sharing a slot with one of them; both fully filtered."""
    if not ids:
        return None
    params = scope_params(scope, currency) | {"ids": list(ids)}
    if slot_attributes:
        params["attributes"] = list(slot_attributes)
    by_rowid = dialect == "sqlite"
    return _hydrate_statement(scope.agent_id is not None, bool(slot_attributes), by_rowid), params


def hydrated(rows: Iterable[Sequence[Any]]) -> list[Memory]:
    """Distinct memories of the hydrate rows (a slot-mate of two ids comes once per id)."""
    found: dict[str, Memory] = {}
    for row in rows:
        if row[0] not in found:  # the id
            found[row[0]] = memory_of(row)
    return list(found.values())


@lru_cache(maxsize=8)
def _hydrate_statement(with_agent: bool, with_mates: bool, by_rowid: bool = False) -> Any:
    wanted = memories.alias("m")
    ids = sa.bindparam("ids", expanding=True)
    by_id = sa.select(*(wanted.c[f] for f in MEMORY_FIELDS)).where(
        wanted.c.id.in_(ids), *current_in_scope(wanted, with_agent)
    )
    if not with_mates:
        return by_id
    if by_rowid:
        return _hydrate_by_rowid(with_agent, ids)
    seed, mate = memories.alias("c"), memories.alias("s")
    mates = (
        sa.select(*(mate.c[f] for f in MEMORY_FIELDS))
        .select_from(seed.join(mate, _same_slot(mate, seed)))
        .where(
            seed.c.id.in_(ids),
            seed.c.attribute.in_(sa.bindparam("attributes", expanding=True)),
            mate.c.id.not_in(ids),  # an id hit comes from `by_id` already (each seed is its own mate)
            *current_in_scope(seed, with_agent),
            *current_in_scope(mate, with_agent),
        )
    )
    return sa.union_all(by_id, mates)


def _hydrate_by_rowid(with_agent: bool, ids: Any) -> sa.CompoundSelect:
    """SQLite's `_hydrate_statement` with slot-mates: the ids' current rows are found once (a
    materialized CTE of their rowids and slots), then read whole by rowid, and their slots' other
    current rows joined to them. Finding them a second time, as the seeds of the slot-mates, cost
    more than reading them again by rowid (`docs/benchmarks.md`, recall at 1M)."""
    found = memories.alias("c")
    hits = (
        sa.select(
            sa.literal_column("c.rowid", sa.Integer).label("r"),
            found.c.tenant_id,
            found.c.user_id,
            found.c.entity,
            found.c.attribute,
        )
        .where(found.c.id.in_(ids), *current_in_scope(found, with_agent))
        .cte("hit")
        .prefix_with("MATERIALIZED")
    )
    row, mate = memories.alias("m"), memories.alias("s")
    by_id = sa.select(*(row.c[f] for f in MEMORY_FIELDS)).select_from(
        hits.join(row, sa.literal_column("m.rowid", sa.Integer) == hits.c.r)
    )
    mates = (
        sa.select(*(mate.c[f] for f in MEMORY_FIELDS))
        .select_from(hits.join(mate, _same_slot(mate, hits)))
        .where(
            hits.c.attribute.in_(sa.bindparam("attributes", expanding=True)),
            sa.literal_column("s.rowid", sa.Integer) != hits.c.r,  # the seed itself, known from the index alone
            mate.c.id.not_in(ids),
            *current_in_scope(mate, with_agent),
        )
    )
    return sa.union_all(by_id, mates)


def _same_slot(mate: Any, seed: Any) -> sa.ColumnElement[bool]:
    """`mate` (an alias of `memories`) holds a value of `seed`'s slot: same user, entity and attribute."""
    return sa.and_(
        mate.c.tenant_id == seed.c.tenant_id,
        mate.c.user_id == seed.c.user_id,
        mate.c.entity == seed.c.entity,
        mate.c.attribute == seed.c.attribute,
    )
