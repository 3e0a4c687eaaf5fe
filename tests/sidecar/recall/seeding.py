"""Seeding recall tests: memories written the way the write path writes them.

`seed` writes memories the way the write path does (`store.write` of turn outcomes, which
reconciles), then syncs the vector outbox into the index, so what the index holds is exactly what
the running system would hold.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from beliefs.records import Memory, MemoryType, memory_id_for
from beliefs.write_plan import TurnOutcome
from sinks.base import VectorPoint, vector_payload
from sinks.sql.store import SqlMemoryStore
from sinks.sql.vector_outbox import SqlVectorOutbox
from sinks.vectors.edge import EdgeVectorIndex
from tests.sidecar.conftest import outcome_of

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
_turns = itertools.count(1)


def mem(tenant: str, user: str, text: str, *, days_ago: float = 1.0, **fields) -> Memory:
    """A current memory said `days_ago` before NOW, with the id the pipeline would give it."""
    turn_id = f"turn-{next(_turns)}"
    at = NOW - timedelta(days=days_ago)
    base = {
        "id": memory_id_for(tenant, turn_id, text),
        "tenant_id": tenant,
        "user_id": user,
        "text": text,
        "type": MemoryType.PREFERENCE,
        "topic": "personal",
        "importance": 0.5,
        "confidence": 0.9,
        "source_turn_ids": [turn_id],
        "evidence": text,
        "created_at": at,
        "valid_from": at,
    }
    return Memory(**(base | fields))


def outcome(memory: Memory, embedding: Sequence[float]) -> TurnOutcome:
    """The outcome of the turn that said `memory`, carrying its real embedding."""
    return replace(outcome_of(memory, memory.agent_id), embeddings=[embedding] if len(embedding) else [])


async def seed(store: SqlMemoryStore, index: EdgeVectorIndex, embedder, memories: Sequence[Memory]) -> None:
    """Write `memories` in order (one turn each, reconciled) and sync their vector points."""
    if not memories:
        return
    vectors = embedder.embed([m.text for m in memories])
    await store.write([outcome(m, v) for m, v in zip(memories, vectors, strict=True)])
    await sync_vectors(store, index, {m.tenant_id for m in memories})


async def sync_vectors(store: SqlMemoryStore, index: EdgeVectorIndex, tenants: set[str]) -> None:
    """Write the pending vector points of `tenants` into the index, as the vector sync would.

    The PostgreSQL test database is shared: index only what this test wrote (its tenants).
    """
    pending = [p for p in await SqlVectorOutbox.of(store).pending_vectors(limit=100_000) if p.memory.tenant_id in tenants]
    await index.write([VectorPoint(p.memory.id, p.embedding, vector_payload(p.memory)) for p in pending])
    await SqlVectorOutbox.of(store).mark_vectors_synced([p.memory.id for p in pending])
