"""Fixtures of the sidecar tests: the app over a real store, a recording publisher, an HTTP client.

Keys: `key-acme` (tenant acme, `admin`: direct inserts with authority), `key-other` (tenant other,
default capabilities), `key-bot` (tenant acme, bound to agent bot, default capabilities) and
`key-bot-manager` (the same agent, granted `manage`). The publisher is a recording fake (the broker path is tested with the publisher itself).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from projection import projector_of

from agents.projector import VectorProjector
from beliefs.records import (
    JobState,
    Memory,
    MemoryType,
    Role,
    Turn,
    job_id_for,
    memory_id_for,
    utcnow,
)
from beliefs.write_plan import TurnOutcome
from sidecar.app import create_app
from sidecar.errors import Unavailable
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings

API_KEYS = "key-acme=acme/admin,key-other=other,key-bot=acme:bot,key-bot-manager=acme:bot/retain+recall+manage"
MAX_BODY_BYTES = 64 * 1024
MAX_TURN_BYTES = 1024


class RecordingPublisher:
    """Remembers every published batch; `failing` makes publish raise like a broker outage."""

    def __init__(self) -> None:
        self.batches: list[list[Turn]] = []
        self.failing = False
        self.healthy = True

    async def publish(self, turns: Sequence[Turn]) -> None:
        if self.failing:
            raise Unavailable("the broker did not acknowledge the turns; retry the same request")
        self.batches.append(list(turns))

    async def ping(self) -> bool:
        return self.healthy

    @property
    def turns(self) -> list[Turn]:
        return [turn for batch in self.batches for turn in batch]


@pytest.fixture
def settings() -> Settings:
    return Settings(api_keys=API_KEYS, max_body_bytes=MAX_BODY_BYTES, max_turn_bytes=MAX_TURN_BYTES)


@pytest.fixture
def publisher() -> RecordingPublisher:
    return RecordingPublisher()


@pytest.fixture
async def store(tmp_path) -> AsyncIterator[SqlMemoryStore]:
    """The real SQL store on a SQLite file, migrated; each test gets its own database."""
    sql = SqlMemoryStore(
        f"sqlite+aiosqlite:///{(tmp_path / 'memory.db').as_posix()}", "beliefstream.memory.events"
    )
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()


@pytest.fixture
async def client(settings, store, publisher) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, store, publisher)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
        yield http


def make_memory(
    tenant_id: str,
    user_id: str,
    turn_id: str,
    text: str,
    *,
    attribute: str = "preferred_editor",
    value: str = "vim",
    minutes: int = 0,
    **fields,
) -> Memory:
    """A complete memory record as extraction would produce it for one turn."""
    at = utcnow() - timedelta(days=1) + timedelta(minutes=minutes)
    return Memory(
        id=memory_id_for(tenant_id, turn_id, f"{attribute}={value}"),
        tenant_id=tenant_id,
        user_id=user_id,
        text=text,
        type=MemoryType.PREFERENCE,
        topic="tech",
        importance=0.6,
        confidence=0.9,
        entity="user",
        attribute=attribute,
        value=value,
        source_turn_ids=[turn_id],
        evidence=text,
        created_at=at,
        valid_from=at,
        **fields,
    )


def outcome_of(memory: Memory, agent_id: str | None = None) -> TurnOutcome:
    """The pipeline's outcome of the turn that produced `memory`, ready for `store.write`."""
    turn_id = memory.source_turn_ids[0]
    turn = Turn(
        turn_id=turn_id,
        tenant_id=memory.tenant_id,
        user_id=memory.user_id,
        agent_id=agent_id,
        role=Role.USER,
        text=memory.evidence,
        ts=memory.created_at,
    )
    return TurnOutcome(
        turn=turn,
        job_id=job_id_for(memory.tenant_id, turn_id),
        state=JobState.DONE,
        memories=[memory],
        embeddings=[[0.1, 0.2, 0.3]],
    )


@pytest.fixture
def memory_factory() -> Callable[..., Memory]:
    return make_memory


@pytest.fixture
def outcome_factory() -> Callable[..., TurnOutcome]:
    return outcome_of


# -- governance: the app with a real vector index and the real embedder ------------------------------


@pytest.fixture(scope="session")
def minilm():
    """The real offline embedder (loaded once per process)."""
    from embedding.embedder import load_default_embedder

    return load_default_embedder()


@pytest.fixture
async def edge_vectors(tmp_path) -> AsyncIterator[EdgeVectorIndex]:
    """A real Qdrant Edge shard of this test alone."""
    index = EdgeVectorIndex(tmp_path / "vectors", dim=384)
    await index.setup()
    try:
        yield index
    finally:
        await index.close()


@pytest.fixture
def projector(store, edge_vectors) -> VectorProjector:
    """The projector of the test's store and shard (not running: each governance request settles it)."""
    return projector_of(store, edge_vectors)


@pytest.fixture
def governed_app(settings, store, publisher, edge_vectors, minilm, projector) -> FastAPI:
    """The app with every governance route mounted (vectors, projector and embedder given)."""
    return create_app(
        settings, store, publisher, edge_vectors, embedder=minilm, contested=store, projector=projector
    )


@pytest.fixture
async def governed(governed_app) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of `governed_app`."""
    transport = httpx.ASGITransport(governed_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sidecar") as http:
        yield http
