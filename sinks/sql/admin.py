"""`AdminStore`: what a person or a platform asks of the belief state besides recall.

Edits (a new version superseding the old, with its events), the tenant's users with their counts,
one user's overview, the values of one attribute over time, and the audit of reads. It shares the `SqlMemoryStore`'s engine (one pool, one
SQLite lock), like `MaintenanceStore`, and keeps these statements out of the write path's store.
Every statement is scoped by tenant in the query.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from beliefs import reconcile
from beliefs.records import EventKind, Memory, MemoryEvent, RecallAudit
from sinks.admin import UserCounts, UserOverview
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import admin_queries, governance, queries
from sinks.sql.convert import memory_changes
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.errors import InvalidCursorError, InvalidRequestError, MemoryNotCurrentError
from sinks.sql.queries import MAX_PAGE
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import memories


def _user_cursor(user_id: str) -> str:
    return base64.urlsafe_b64encode(user_id.encode()).decode()


def _after_user(cursor: str) -> str:
    try:
        return base64.b64decode(cursor.encode(), altchars=b"-_", validate=True).decode()
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidCursorError("cursor is not a next_cursor of this listing") from exc


class AdminStore:
    """`sinks.admin.Administration` (edits, the user list, attribute history) over an async engine
    (usually a `SqlMemoryStore`'s)."""

    def __init__(self, engine: AsyncEngine, events_topic: str = "beliefstream.memory.events") -> None:
        self._engine = engine
        self.events_topic = events_topic

    @classmethod
    def of(cls, store: SqlMemoryStore) -> AdminStore:
        return cls(store._engine, store.events_topic)

    async def edit_memory(
        self, tenant_id: str, memory_id: str, new: Memory, embedding: Sequence[float] | None, at: datetime
    ) -> tuple[Memory, Memory] | None:
        """Store `new` as the current version of `memory_id`, which it supersedes; (old as closed, new).

        None when the memory is not this tenant's. A retried edit (the old version is already
        superseded by `new.id`) answers the stored pair and writes nothing. `MemoryNotCurrentError`
        when the memory is no longer current (superseded by something else, revoked, expired).
        """
        if new.tenant_id != tenant_id:
            raise InvalidRequestError("the new version belongs to another tenant")
        async with unavailable_on_outage("edit_memory"), write_transaction(self._engine) as conn:
            found = await queries.memories_where(conn, memories.c.tenant_id == tenant_id, memories.c.id == memory_id)
            if not found:
                return None
            old = found[0]
            if old.superseded_by == new.id:
                stored = await queries.memories_where(conn, memories.c.tenant_id == tenant_id, memories.c.id == new.id)
                if stored:
                    return old, stored[0]
            if not old.is_current:
                raise MemoryNotCurrentError(
                    f"memory {memory_id} is {old.state.value}, not the current belief; "
                    + (f"edit its current version {old.superseded_by}" if old.superseded_by else "it cannot be edited")
                )
            closed = reconcile.superseded(old, new)
            await queries.insert_memories(conn, [(new, embedding)])
            await queries.update_memories(conn, [dict(memory_changes(closed), id=closed.id)])
            events = [
                MemoryEvent.about(EventKind.SUPERSEDED, closed, at),
                MemoryEvent.about(EventKind.EDITED, new, at),
            ]
            await queries.insert_outbox(conn, [governance.event_row(self.events_topic, e, at) for e in events])
        return closed, new

    async def list_users(
        self, tenant_id: str, limit: int = 100, cursor: str | None = None, search: str | None = None
    ) -> tuple[list[UserCounts], str | None]:
        """One page of the tenant's users (by user id) with their memories counted by state; with
        `search`, those whose id contains it, case-insensitive (`%` and `_` match themselves)."""
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        limit = min(limit, MAX_PAGE)
        criteria = [memories.c.tenant_id == tenant_id]
        if search:
            criteria.append(memories.c.user_id.icontains(search, autoescape=True))
        if cursor is not None:
            criteria.append(memories.c.user_id > _after_user(cursor))
        page = (
            sa.select(memories.c.user_id).where(*criteria).distinct().order_by(memories.c.user_id).limit(limit + 1)
        )
        async with unavailable_on_outage("list_users"), self._engine.connect() as conn:
            user_ids = list((await conn.scalars(page)).all())
            more = len(user_ids) > limit
            user_ids = user_ids[:limit]
            counted = (
                sa.select(
                    memories.c.user_id, memories.c.state, sa.func.count(), sa.func.max(memories.c.created_at)
                )
                .where(memories.c.tenant_id == tenant_id, memories.c.user_id.in_(user_ids))
                .group_by(memories.c.user_id, memories.c.state)
            )
            rows = (await conn.execute(counted)).all() if user_ids else []
        counts: dict[str, dict[str, int]] = {user: {} for user in user_ids}
        newest: dict[str, datetime] = {}
        for user_id, state, count, last in rows:
            counts[user_id][state] = count
            if last is not None and (user_id not in newest or last > newest[user_id]):
                newest[user_id] = last
        users = [UserCounts(user, counts[user], newest.get(user)) for user in user_ids]
        return users, (_user_cursor(user_ids[-1]) if more else None)

    async def attribute_history(
        self, tenant_id: str, user_id: str, attribute: str, entity: str | None = None, reach: Reach = EVERY_AGENT
    ) -> list[Memory]:
        """Every version of the user's `attribute` (of `entity`, or of any) within `reach`, oldest first:
        the values it held, what superseded what, and which is current."""
        criteria = [
            memories.c.tenant_id == tenant_id,
            memories.c.user_id == user_id,
            memories.c.attribute == attribute,
            *queries.within_reach(memories, reach),
        ]
        if entity is not None:
            criteria.append(memories.c.entity == entity)
        order = (memories.c.valid_from, memories.c.created_at, memories.c.id)
        async with unavailable_on_outage("attribute_history"), self._engine.connect() as conn:
            return await queries.memories_where(conn, *criteria, order=order)

    async def user_overview(self, tenant_id: str, user_id: str, reach: Reach) -> UserOverview:
        """The counts of one user's state that `reach` sees (all zero for a user with none)."""
        async with unavailable_on_outage("user_overview"), self._engine.connect() as conn:
            return await admin_queries.overview(conn, tenant_id, user_id, reach)

    async def list_reads(
        self, tenant_id: str, user_id: str, reach: Reach, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[RecallAudit], str | None]:
        """One page of the user's recall audit, newest first (reads by agents out of `reach` left out)."""
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        async with unavailable_on_outage("list_reads"), self._engine.connect() as conn:
            return await admin_queries.reads_page(conn, tenant_id, user_id, reach, min(limit, MAX_PAGE), cursor)
