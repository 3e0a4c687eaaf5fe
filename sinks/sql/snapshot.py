"""`SqlExportSnapshot`: the reads of one export, all in one transaction (`engine.read_snapshot`).

An export reads a user's memories, contradiction loops and episodes in many statements; a write
committed between two of them (a belief superseded after its page was read, a new episode) would
otherwise leave a file that mixes two states. Here every statement sees the state of the first, on
SQLite and PostgreSQL alike, while the rows are still read a page at a time.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.contested import ContestedSlot
from beliefs.episodes import Episode
from beliefs.records import Memory
from sinks.reach import Reach
from sinks.sql import episode_queries, queries
from sinks.sql.contested_queries import row_slot
from sinks.sql.engine import unavailable_on_outage
from sinks.sql.tables import contested_slots, episodes, memories


class SqlExportSnapshot:
    """The `sinks.portability.ExportReads` over one open read transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def owners(self, tenant_id: str | None = None, user_id: str | None = None) -> list[tuple[str, str]]:
        async with unavailable_on_outage("export owners"):
            return await owners(self._conn, tenant_id, user_id)

    async def memory_page(
        self, tenant_id: str, user_id: str, cursor: str | None, limit: int
    ) -> tuple[list[Memory], str | None]:
        async with unavailable_on_outage("export memories"):
            return await queries.list_page(self._conn, tenant_id, user_id, None, limit, cursor)

    async def episode_page(
        self, tenant_id: str, user_id: str, cursor: str | None, limit: int
    ) -> tuple[list[Episode], str | None]:
        async with unavailable_on_outage("export episodes"):
            return await episode_queries.list_page(self._conn, tenant_id, user_id, None, limit, cursor)

    async def contested_of(self, tenant_id: str, user_id: str, reach: Reach) -> list[ContestedSlot]:
        """Every contradiction loop of the user (open or resolved) within `reach`, oldest first."""
        stmt = (
            sa.select(contested_slots)
            .where(
                contested_slots.c.tenant_id == tenant_id,
                contested_slots.c.user_id == user_id,
                *queries.within_reach(contested_slots, reach),
            )
            .order_by(contested_slots.c.opened_at, contested_slots.c.id)
        )
        async with unavailable_on_outage("export contested"):
            return [row_slot(row) for row in (await self._conn.execute(stmt)).mappings()]


async def owners(conn: AsyncConnection, tenant_id: str | None, user_id: str | None = None) -> list[tuple[str, str]]:
    """Every (tenant, user) with a memory or an episode, in order; of one tenant or user if given."""
    pairs: set[tuple[str, str]] = set()
    for table in (memories, episodes):
        stmt = sa.select(table.c.tenant_id, table.c.user_id).distinct()
        if tenant_id is not None:
            stmt = stmt.where(table.c.tenant_id == tenant_id)
        if user_id is not None:
            stmt = stmt.where(table.c.user_id == user_id)
        pairs |= {(row.tenant_id, row.user_id) for row in await conn.execute(stmt)}
    return sorted(pairs)
