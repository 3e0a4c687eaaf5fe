"""Recall fixtures: the real SQL store (both backends), a Qdrant Edge shard, the real embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from beliefs.records import Memory
from sidecar.recall.access import AccessRecorder
from sidecar.recall.audit import AuditLog
from sidecar.recall.service import RecallService
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from tests.sidecar.recall.seeding import NOW, seed


@dataclass
class World:
    store: SqlMemoryStore
    index: EdgeVectorIndex
    embedder: object
    service: RecallService
    audit: AuditLog
    access: AccessRecorder

    async def seed(self, *memories: Memory) -> None:
        await seed(self.store, self.index, self.embedder, memories)


@pytest.fixture
async def recall_store(sql_url: str) -> AsyncIterator[SqlMemoryStore]:
    store = SqlMemoryStore(sql_url)
    await store.setup()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def world(recall_store, edge_vectors, minilm) -> AsyncIterator[World]:
    audit = AuditLog(recall_store)
    access = AccessRecorder(recall_store, clock=lambda: NOW)
    service = RecallService(
        recall_store, edge_vectors, minilm, audit=audit, access_recorder=access, clock=lambda: NOW
    )
    yield World(recall_store, edge_vectors, minilm, service, audit, access)
    await service.close()
