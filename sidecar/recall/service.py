"""`RecallService`: the I/O around the pure selection, with as few round trips as possible.

    resolve scope (key decides tenant and bound agent; the body never widens it)
    ├── keyword search (SQL full text)        ┐
    ├── pinned rows (profile + constraints)   │
    ├── open contested slots of the user      ├ concurrently
    └── embed query → one vector search       ┘
    fuse (RRF) → hydrate ids + slot-mates (one SQL query, hard filters inside)
    select (pure: topic, contexts, conflicts, ...) → record access and audit (buffered) → result

A failing vector index or embedder degrades recall to keyword + pinned (said in diagnostics);
the SQL store is the authority, so its failure fails the recall.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

from agents.attributes import ATTRIBUTES, is_single_valued
from agents.embed import Embedder
from sidecar.auth import Capability, Principal
from sidecar.recall import filters
from sidecar.recall.access import AccessRecorder
from sidecar.recall.audit import AuditSink, query_digest
from sidecar.recall.config import BALANCED, RecallConfig, preset
from sidecar.recall.fusion import fuse
from sidecar.recall.keywords import query_terms
from sidecar.recall.models import RecallDiagnostics, RecallRequest, RecallResult
from sidecar.recall.prompt import render
from sidecar.recall.query_embed import QueryEmbedder
from sidecar.recall.select import select, to_result
from sidecar.recall.sensitivity import request_domains, safety_needed
from sinks.base import VectorHit, VectorIndex
from sinks.recall import Currency, KeywordHit, RecallScope, RecallStore
from streams.errors import BeliefstreamError
from streams.records import Memory, RecallAudit, utcnow

logger = logging.getLogger(__name__)

#: Attributes whose current values contradict each other: hydration also fetches their slot-mates.
SINGLE_VALUED = tuple(sorted(name for name, spec in ATTRIBUTES.items() if spec.single_valued))


def resolve_scope(principal: Principal, request: RecallRequest) -> RecallScope:
    """Tenant from the key; an agent-bound key forces its agent, a body agent may only repeat it.

    `request.topic` is not pushed into the candidate queries: it narrows in `select`
    (`policy.outside_topic`), where a value of a context the topic names is still seen.
    """
    principal.require(Capability.RECALL, "recall")
    return RecallScope(
        tenant_id=principal.tenant_id,
        user_id=request.user_id,
        agent_id=principal.acting_agent(request.agent_id),
    )


class RecallService:
    def __init__(
        self,
        store: RecallStore,
        vectors: VectorIndex,
        embedder: Embedder,
        config: RecallConfig = BALANCED,
        audit: AuditSink | None = None,
        access_recorder: AccessRecorder | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._queries = QueryEmbedder(embedder)  # concurrent recalls share model calls
        self.config = config
        self._audit = audit
        self._access = access_recorder
        self._clock = clock

    async def start(self) -> None:
        """Start the background flushers of access counts and audit records."""
        for part in (self._access, self._audit):
            if part is not None:
                await part.start()

    async def flush(self) -> None:
        for part in (self._access, self._audit):
            if part is not None:
                await part.flush()

    async def close(self) -> None:
        """Flush and stop the flushers; call before the store closes."""
        for part in (self._access, self._audit):
            if part is not None:
                await part.close()

    def config_for(self, request: RecallRequest) -> RecallConfig:
        return self.config if request.preset is None else preset(request.preset)

    async def recall(self, principal: Principal, request: RecallRequest) -> RecallResult:
        now = self._clock()
        config = self.config_for(request)
        scope = resolve_scope(principal, request)
        currency = Currency(now=now, confidence_floor=config.confidence_floor)
        terms = query_terms(request.query)
        fetch = config.candidate_limit(request.limit, narrowed=request.topic is not None or filters.narrows(request))
        degraded: list[str] = []

        domains = request_domains(request.query, request.action.domain if request.action else None, request.topic)
        dense, keyword, pinned, contests, safety = await _all(
            self._dense(request.query, scope, fetch, degraded),
            self._keyword(scope, currency, terms, fetch),
            self._store.pinned_memories(scope, currency, config.pinned_limit),
            self._store.open_contests(scope, currency, config.contested_limit),
            self._store.safety_memories(scope, currency, safety_needed(domains), config.pinned_limit),
        )
        signals = fuse(dense, keyword, config)
        hydrated = await self._store.hydrate(scope, currency, list(signals), SINGLE_VALUED)
        hydrated += await self._invented_slot_mates(scope, currency, hydrated)
        hydrated, pinned = filters.narrowed(request, hydrated, [*pinned, *safety])
        selection = select(request, config, now, scope, signals, hydrated, pinned, contests)
        result = to_result(selection, signals, request.diagnostics)
        if request.format == "prompt":
            result.prompt = render(result.memories, result.conflicts, result.confirmations)
        if request.diagnostics:
            found = {m.id for m in hydrated}
            result.diagnostics = RecallDiagnostics(
                preset=config.name,
                terms=terms,
                dense_candidates=len(dense),
                keyword_candidates=len(keyword),
                stale_candidates=sum(1 for i in signals if i not in found) + selection.dropped_stale,
                degraded=degraded,
            )
        self._record(principal, scope, request, now, [m.id for m in result.memories])
        return result

    async def _invented_slot_mates(
        self, scope: RecallScope, currency: Currency, hydrated: Sequence[Memory]
    ) -> list[Memory]:
        """Slot-mates of hydrated memories whose attribute is outside the registry (an extractor may
        invent one; it is single-valued unless a known set), so their contradictions are seen whole."""
        invented = {m.attribute for m in hydrated if m.attribute and m.attribute not in ATTRIBUTES}
        invented = {a for a in invented if is_single_valued(a)}
        if not invented:
            return []
        seeds = [m.id for m in hydrated if m.attribute in invented]
        found = {m.id for m in hydrated}
        mates = await self._store.hydrate(scope, currency, seeds, tuple(sorted(invented)))
        return [m for m in mates if m.id not in found]

    async def _dense(
        self, query: str, scope: RecallScope, limit: int, degraded: list[str]
    ) -> list[VectorHit]:
        if not query.strip():
            return []
        try:
            vector = await self._queries.embed(query)
            return await self._vectors.search(vector, scope.vector_filter(), limit)
        except BeliefstreamError as exc:  # SinkError of the index, EmbedderUnavailableError
            logger.warning("recall without dense candidates: %s", exc)
            degraded.append("dense")
            return []

    async def _keyword(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        if not terms:
            return []
        return await self._store.keyword_candidates(scope, currency, terms, limit)

    def _record(
        self, principal: Principal, scope: RecallScope, request: RecallRequest, now: datetime, ids: list[str]
    ) -> None:
        if self._access is not None and ids:
            self._access.record(ids)
        if self._audit is not None:
            self._audit.record(
                RecallAudit(
                    id=uuid.uuid4().hex,
                    tenant_id=scope.tenant_id,
                    user_id=scope.user_id,
                    agent_id=scope.agent_id,
                    key_id=principal.key_id,
                    at=now,
                    query_digest=query_digest(request.query),
                    memory_ids=ids,
                )
            )


async def _all(*steps):
    """Run `steps` concurrently; every one finishes before the first failure is raised."""
    results = await asyncio.gather(*steps, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results
