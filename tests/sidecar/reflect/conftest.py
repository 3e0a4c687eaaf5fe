"""Reflect fixtures: the app with a recall service (clock fixed at NOW), seeded memories, an HTTP client.

Memories: acme/u1 has a strong peanut allergy, a weak (low confidence) and a caution-trust memory;
tenant other/u1 has one memory that must never surface for acme.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest

from beliefs.records import MemoryType, Trust
from sidecar.app import create_app
from sidecar.recall.service import RecallService
from sidecar.reflect import Answerer
from tests.sidecar.recall.seeding import NOW, mem, seed

KEY = {"Authorization": "Bearer key-acme"}
OTHER = {"Authorization": "Bearer key-other"}

STRONG = "The user is allergic to peanuts."
WEAK = "The user might be allergic to shellfish."
CAUTION = "The user is allergic to cats, according to an assistant note."
FOREIGN = "The user is allergic to penicillin."

Client = Callable[..., Awaitable[httpx.AsyncClient]]


@pytest.fixture
async def reflect_client(settings, store, publisher, edge_vectors, minilm) -> AsyncIterator[Client]:
    """`await reflect_client(answerer=None)`: a seeded app's HTTP client (one per test)."""
    opened: list[httpx.AsyncClient] = []
    recall = RecallService(store, edge_vectors, minilm, clock=lambda: NOW)
    await seed(
        store,
        edge_vectors,
        minilm,
        [
            mem("acme", "u1", STRONG, type=MemoryType.FACT, importance=0.9, confidence=0.9),
            mem("acme", "u1", WEAK, type=MemoryType.FACT, confidence=0.45),
            mem("acme", "u1", CAUTION, type=MemoryType.FACT, confidence=0.9, trust=Trust.CAUTION),
            mem("other", "u1", FOREIGN, type=MemoryType.FACT, confidence=0.95),
        ],
    )

    async def build(answerer: Answerer | None = None) -> httpx.AsyncClient:
        app = create_app(
            settings,
            store,
            publisher,
            edge_vectors,
            embedder=minilm,
            recall=recall,
            reflect_answerer=answerer,
            contested=store,
        )
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar")
        opened.append(client)
        return client

    yield build
    for client in opened:
        await client.aclose()
    await recall.close()
