"""The MCP tools' behaviour, over the same code paths as the HTTP routes, with no MCP SDK in sight.

Every tool takes the caller's `Principal` (resolved from the API key by `sidecar.mcp_server`, and
admitted there by the tool's entry in `sidecar.access.TOOLS`, the same as its route's), so scope is
decided exactly as over HTTP: `store_memory` is `/v1/retain` (job enqueued, turn published, job id
back at once), `recall_memories` is `/v1/recall`, `forget` is the revoke route and
`consolidate_memories` is `/v1/consolidate` (`manage`). `recalled` and `forgotten` shape
the answers, for these tools and for `sidecar.mcp_proxy`'s, which get the same records over HTTP.
"""

from __future__ import annotations

from typing import Any

from beliefs.records import Memory
from sidecar.auth import Principal
from sidecar.consolidation import Consolidation
from sidecar.errors import Unavailable
from sidecar.publisher import TurnPublisher
from sidecar.recall.models import ActionIn, RecallRequest, RecallResult
from sidecar.recall.service import RecallService
from sidecar.routes.retain import queued_jobs, scoped_turn
from sidecar.routes.revoke import revoke_memory
from sidecar.schemas import TurnIn
from sinks.contracts import ServingStore
from sinks.vector_outbox import Projection

JsonObject = dict[str, Any]


def recalled(result: RecallResult) -> JsonObject:
    """`recall_memories`' answer: the recall result without its empty (None) fields."""
    return result.model_dump(mode="json", exclude_none=True)


def forgotten(memory: Memory) -> JsonObject:
    """`forget`'s answer: which memory, now in which state, since when."""
    revoked_at = memory.revoked_at.isoformat() if memory.revoked_at is not None else None
    return {"id": memory.id, "state": memory.state.value, "revoked_at": revoked_at}


class McpTools:
    """The four tools; a dependency left None makes its tool answer `unavailable`."""

    def __init__(
        self,
        store: ServingStore,
        publisher: TurnPublisher,
        max_turn_bytes: int,
        recall: RecallService | None = None,
        consolidator: Consolidation | None = None,
        projector: Projection | None = None,
    ) -> None:
        self._store = store
        self._publisher = publisher
        self._max_turn_bytes = max_turn_bytes
        self._recall = recall
        self._consolidator = consolidator
        self._projector = projector  # revocations nudge it; None: the index's owner projects

    async def store_memory(
        self,
        principal: Principal,
        user_id: str,
        text: str,
        role: str = "user",
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> JsonObject:
        """Queue one turn for extraction; the job id comes back before any extraction happens."""
        turn_in = TurnIn(user_id=user_id, text=text, role=role, agent_id=agent_id, session_id=session_id)
        turn = scoped_turn(principal, turn_in, "turn", self._max_turn_bytes)
        [job] = queued_jobs([turn])
        await self._store.enqueue_jobs([job], [turn])  # before publishing: the job is readable, the turn durable
        await self._publisher.publish([turn])
        return {"job_id": job.job_id}

    async def recall_memories(
        self,
        principal: Principal,
        user_id: str,
        query: str,
        budget_tokens: int = 800,
        limit: int = 20,
        action: JsonObject | None = None,
        live_intent: dict[str, str] | None = None,
        topic: str | None = None,
        **options: Any,
    ) -> JsonObject:
        """`options`: RecallRequest's optional fields (`since`, `until`, `types`, `topics`, `format`,
        `include_sensitive`, `episodes`, `include_untrusted_evidence`, `preset`)."""
        if self._recall is None:
            raise Unavailable("recall is not configured on this server")
        request = RecallRequest(
            user_id=user_id,
            query=query,
            budget_tokens=budget_tokens,
            limit=limit,
            action=ActionIn.model_validate(action) if action is not None else None,
            live_intent=live_intent or {},
            topic=topic,
            **options,
        )
        return recalled(await self._recall.recall(principal, request))

    async def consolidate_memories(
        self,
        principal: Principal,
        topic: str,
        similarity_threshold: float = 0.85,
        dry_run: bool = False,
        user_id: str | None = None,
    ) -> JsonObject:
        if self._consolidator is None:
            raise Unavailable("consolidation is not configured on this server")
        diff = await self._consolidator(
            principal.tenant_id,
            topic,
            user_id=user_id,
            threshold=similarity_threshold,
            dry_run=dry_run,
            reach=principal.reach,
        )
        return diff.model_dump(mode="json")

    async def forget(self, principal: Principal, memory_id: str) -> JsonObject:
        """Revoke one memory: it is never recalled again (SQL only; the projector follows)."""
        return forgotten(await revoke_memory(self._store, self._projector, principal, memory_id))
