"""Export, import and reindex end to end: a belief state written by the real write path (rules
extractor, real model, SQL on both backends) leaves as JSON lines and comes back identical.

The source is the write pipeline's store; the target a fresh store on the same backend (its own
SQLite file, or its own PostgreSQL database). The target's index is built from SQL by `reindex`.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from agents.portability import import_records, read_records
from beliefs.records import MemoryState, Visibility
from embedding.embedder import load_default_embedder
from embedding.episode_vectors import EpisodeTexts
from reading.decode import RawTurn
from reading.episode_text import SessionTails
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest
from sidecar.recall.service import RecallService
from sinks.portability import end_line, export
from sinks.reach import EVERY_AGENT, SHARED_ONLY
from sinks.reindex import rebuild, verify
from sinks.sql.store import SqlMemoryStore
from sinks.sql.vector_outbox import SqlVectorOutbox
from sinks.vectors.edge import EdgeVectorIndex

T0 = datetime(2026, 11, 2, 9, tzinfo=UTC)
USER = "u-ada"
TURNS = [  # (turn id, text, agent, private)
    ("p1", "Hi! I'm Ada, I live in Berlin and work as a data engineer.", None, False),
    ("p2", "I always use dark mode, and I prefer Python over Java for scripts.", None, False),
    ("p3", "I'm allergic to peanuts.", None, False),
    ("p4", "Never recommend fast food restaurants to me again.", "cooking-bot", True),
    ("p5", "I moved to Lisbon last month.", None, False),
    ("p6", "Actually I prefer Rust over Python for scripts now.", None, False),
]


def raw(tenant: str, n: int, turn_id: str, text: str, agent: str | None, private: bool) -> RawTurn:
    value = {
        "tenant_id": tenant, "user_id": USER, "session_id": f"s{n}", "turn_id": turn_id, "role": "user",
        "text": text, "ts": (T0 + timedelta(hours=n)).isoformat(), "agent_id": agent,
        "metadata": {"visibility": "agent"} if private else {},
    }  # fmt: skip
    return RawTurn(json.dumps(value).encode(), f"{tenant}:{USER}".encode(), "beliefstream.turns", 0, n)


async def written(pipeline, tenant: str) -> SqlMemoryStore:
    """The source: the turns through the write path, one batch each, then one memory and one episode revoked."""
    for n, (turn_id, text, agent, private) in enumerate(TURNS):
        await pipeline.persist(await pipeline.prepare([raw(tenant, n, turn_id, text, agent, private)]))
    store = pipeline.store
    memories, _ = await store.list_memories(tenant, USER, state=None, limit=1000)
    peanuts = next(m for m in memories if "peanut" in m.text)
    await store.revoke(tenant, peanuts.id, T0 + timedelta(days=1))
    episodes, _ = await store.list_episodes(tenant, USER, limit=1000)
    await store.revoke_episode(tenant, episodes[0].id, T0 + timedelta(days=1))
    return store


async def exported(store: SqlMemoryStore, tenant: str, reach=EVERY_AGENT) -> list[str]:
    return [line async for line in export(store, reach, tenant, USER)]


async def test_export_import_export_is_identical_and_a_second_import_adds_nothing(pipeline, second_store, tenant):
    source = await written(pipeline, tenant)
    lines = await exported(source, tenant)
    kinds = [json.loads(line)["kind"] for line in lines]
    assert kinds[0] == "header" and kinds[-1] == "end" and "memory" in kinds and "episode" in kinds
    states = {json.loads(line).get("state") for line in lines}
    assert {"active", "superseded", "revoked"} <= states  # history travels, not only the present
    embedder = load_default_embedder()

    first = await import_records(read_records(lines), second_store, embedder)
    again = await import_records(read_records(lines), second_store, embedder)

    assert await exported(second_store, tenant) == lines
    assert first.memories + first.episodes == len(lines) - 2 and first.skipped == 0
    assert (again.memories, again.episodes, again.skipped) == (0, 0, len(lines) - 2)


async def test_the_imported_store_recalls_after_a_reindex(pipeline, second_store, tenant, tmp_path):
    lines = await exported(await written(pipeline, tenant), tenant)
    embedder = load_default_embedder()
    await import_records(read_records(lines), second_store, embedder)
    index = EdgeVectorIndex(tmp_path / "target-vectors")
    await index.setup()
    try:
        built = await rebuild(second_store, index)
        assert built.written == built.expected == len(lines) - 2
        assert (await verify(second_store, index, heal=False)).problems == 0
        service = RecallService(second_store, index, embedder, clock=lambda: T0 + timedelta(days=30))
        result = await service.recall(Principal(tenant), RecallRequest(user_id=USER, query="which city do I live in?"))
    finally:
        await index.close()
    assert any("Lisbon" in m.text for m in result.memories)
    assert not any("Berlin" in m.text and m.state is MemoryState.ACTIVE for m in result.memories)


async def test_the_export_leaves_private_rows_to_keys_that_may_read_them(pipeline, tenant):
    source = await written(pipeline, tenant)
    every = [json.loads(line) for line in await exported(source, tenant, EVERY_AGENT)]
    shared = [json.loads(line) for line in await exported(source, tenant, SHARED_ONLY)]
    private = [r for r in every if r.get("visibility") == Visibility.AGENT.value]
    assert private and all(r.get("agent_id") == "cooking-bot" for r in private)
    assert [r for r in every if r not in private][:-1] == shared[:-1]  # the end lines count what each holds
    assert (every[-1]["records"], shared[-1]["records"]) == (len(every) - 2, len(shared) - 2)


async def test_an_import_reconciles_with_the_target_beliefs(pipeline, second_store, tenant):
    """The target already believes Ada lives in Porto (another id): the imported current city supersedes it."""
    source = await written(pipeline, tenant)
    lines = await exported(source, tenant)
    lisbon = next(json.loads(line) for line in lines if "Lisbon" in line and '"state":"active"' in line)
    porto = dict(lisbon, id=str(uuid.uuid4()), text="User lives in Porto.", value="Porto",
                 created_at="2026-10-01T00:00:00Z", valid_from="2026-10-01T00:00:00Z", source_turn_ids=["old"])  # fmt: skip
    embedder = load_default_embedder()
    planted = [lines[0], json.dumps(dict(porto, kind="memory")), end_line(1)]
    await import_records(read_records(planted), second_store, embedder)

    counts = await import_records(read_records(lines), second_store, embedder)

    assert counts.superseded == 1
    closed = await second_store.get_memory(tenant, porto["id"])
    assert closed is not None and closed.state is MemoryState.SUPERSEDED and closed.superseded_by == lisbon["id"]
    current = await second_store.get_memory(tenant, lisbon["id"])
    assert current is not None and current.is_current



@pytest.mark.parametrize("mode", ["joined", "line_sum"])
async def test_an_import_makes_episode_vectors_the_way_the_setting_says(pipeline, second_store, tenant, mode):
    """A reply imported after the question it answers (one session) gets the vector its mode says."""
    said = [("a", "assistant", "Where did you spend the long weekend?"), ("b", "user", "In a cabin near Bergen, fishing.")]
    for n, (turn_id, role, text) in enumerate(said):
        value = {"tenant_id": tenant, "user_id": USER, "session_id": "cabin", "turn_id": turn_id, "role": role,
                 "text": text, "ts": (T0 + timedelta(minutes=n)).isoformat()}  # fmt: skip
        turn = RawTurn(json.dumps(value).encode(), f"{tenant}:{USER}".encode(), "beliefstream.turns", 0, n)
        await pipeline.persist(await pipeline.prepare([turn]))
    lines = await exported(pipeline.store, tenant)
    embedder = load_default_embedder()

    await import_records(read_records(lines), second_store, embedder, episode_vector=mode)

    stored = {p.episode.turn_id: p for p in await SqlVectorOutbox.of(second_store).pending_episode_vectors()}
    texts = EpisodeTexts.of([stored["a"].episode, stored["b"].episode], SessionTails(), mode)
    assert len(texts.texts()) == (2 if mode == "joined" else 3)
    wanted = texts.vectors(embedder.embed(texts.texts()))
    assert np.allclose(stored["b"].embedding, wanted[1], atol=1e-5)
    assert np.allclose(stored["a"].embedding, wanted[0], atol=1e-5)
