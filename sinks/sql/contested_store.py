"""The contradiction-loop side of `SqlMemoryStore`: list, read and resolve contested slots.

A mixin over the store's engine, escalations topic and `_apply`, so that a resolution writes its
meta-memories, closes the contested ones and records its escalation event in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from beliefs import loops
from beliefs.contested import ContestedSlot
from beliefs.records import utcnow
from beliefs.write_plan import WritePlan
from sinks.base import WriteResult
from sinks.reach import EVERY_AGENT, Reach
from sinks.sql import contested_queries, queries
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.errors import ContestedResolvedError, InvalidRequestError


class ContestedStoreMixin:
    """`list_contested`, `get_contested` and `resolve_contested` of the SQL store."""

    # -- contradiction loops (sinks.sql.contested_queries) -------------------------------------------

    async def list_contested(
        self,
        tenant_id: str,
        user_id: str | None = None,
        status: str | None = "open",
        limit: int = 100,
        reach: Reach = EVERY_AGENT,
    ) -> list[ContestedSlot]:
        """Slots of the tenant within `reach`: shared ones, and agents' private ones it sees."""
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        async with unavailable_on_outage("list_contested"), self._engine.connect() as conn:
            return await contested_queries.list_slots(
                conn, tenant_id, user_id, status, min(limit, queries.MAX_PAGE), reach
            )

    async def get_contested(
        self, tenant_id: str, contested_id: str, reach: Reach = EVERY_AGENT
    ) -> ContestedSlot | None:
        async with unavailable_on_outage("get_contested"), self._engine.connect() as conn:
            return await contested_queries.get_slot(conn, tenant_id, contested_id, reach)

    async def resolve_contested(
        self,
        tenant_id: str,
        contested_id: str,
        *,
        value: str | None = None,
        by_context: Mapping[str, str] | None = None,
        default: str | None = None,
        at: datetime | None = None,
        resolved_by: str = "api",
        embeddings: Mapping[str, Sequence[float]] | None = None,
        reach: Reach = EVERY_AGENT,
    ) -> tuple[ContestedSlot, WriteResult] | None:
        """Decide an open slot: meta-memories per context (and the default) replace its contested memories.

        None when the slot is not this tenant's or not within `reach`; `ContestedResolvedError` when
        it is already decided. A shared slot closes shared memories and writes shared meta-memories;
        an agent's private slot, that agent's private ones.
        `embeddings` maps a meta-memory's text to its vector (see `beliefs.loops.resolution_text`).
        """
        try:
            choices = loops.resolution_choices(value, dict(by_context) if by_context is not None else None, default)
        except ValueError as exc:
            raise InvalidRequestError(str(exc)) from exc
        at = at or utcnow()
        async with unavailable_on_outage("resolve_contested"), write_transaction(self._engine) as conn:
            slot = await contested_queries.get_slot(conn, tenant_id, contested_id, reach)
            if slot is None:
                return None
            if not slot.is_open:
                raise ContestedResolvedError(f"contested slot {contested_id} is already resolved")
            closing = await contested_queries.slot_memories(conn, slot)
            resolved, metas, closed, events = contested_queries.plan_resolution(
                slot, closing, choices, at, resolved_by, embeddings or {}
            )
            plan = WritePlan(
                inserts={m.id: (m, e) for m, e in metas}, updates={m.id: m for m in closed}, events=events
            )
            await self._apply(conn, plan)
            await contested_queries.upsert_slots(conn, [resolved])
            await queries.insert_outbox(
                conn,
                [
                    contested_queries.escalation_row(
                        self.escalations_topic, contested_queries.resolved_event(resolved), utcnow()
                    )
                ],
            )
        return resolved, WriteResult(inserted=[m for m, _ in metas], changed=closed, events=events)
