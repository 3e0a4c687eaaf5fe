"""Seeding episodes the way the write path does: a turn's outcome carries its episode (and the
memories it produced), `store.write` links them, the episode outbox is synced into the index."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import timedelta

from beliefs.episodes import Episode, episode_id_for
from beliefs.records import JobState, Memory, Role, Trust, Turn, Visibility, job_id_for
from beliefs.write_plan import TurnOutcome
from sinks.base import VectorPoint, episode_payload, vector_payload
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.recall.seeding import NOW

_turns = itertools.count(1)


def said(
    tenant: str,
    user: str,
    text: str,
    *,
    speaker: str | None = None,
    days_ago: float = 1.0,
    role: Role = Role.USER,
    trust: Trust = Trust.TRUSTED,
    session: str = "s-1",
    agent_id: str | None = None,
    visibility: Visibility = Visibility.USER,
) -> Episode:
    """An episode said `days_ago` before NOW, with the id the pipeline would give it."""
    turn_id = f"said-{next(_turns)}"
    at = NOW - timedelta(days=days_ago)
    return Episode(
        id=episode_id_for(tenant, turn_id),
        tenant_id=tenant,
        user_id=user,
        agent_id=agent_id,
        visibility=visibility,
        session_id=session,
        turn_id=turn_id,
        role=role,
        speaker=speaker,
        text=text,
        said_at=at,
        created_at=at,
        trust=trust,
    )


def with_memories(episode: Episode, *memories: Memory) -> list[Memory]:
    """`memories` as learnt from `episode`'s turn (same turn id, tenant, user and time)."""
    return [
        m.model_copy(update={"source_turn_ids": [episode.turn_id], "created_at": episode.said_at, "valid_from": episode.said_at})
        for m in memories
    ]


async def seed_said(world, episode: Episode, memories: Sequence[Memory] = ()) -> None:
    """Write one turn's outcome (its episode and memories, real embeddings), then sync both outboxes."""
    texts = [m.text for m in memories] + [episode.text]
    vectors = world.embedder.embed(texts)
    turn = Turn(
        turn_id=episode.turn_id,
        tenant_id=episode.tenant_id,
        user_id=episode.user_id,
        agent_id=episode.agent_id,
        session_id=episode.session_id,
        role=episode.role,
        text=episode.text,
        ts=episode.said_at,
    )
    outcome = TurnOutcome(
        turn=turn,
        job_id=job_id_for(episode.tenant_id, episode.turn_id),
        state=JobState.DONE,
        memories=list(memories),
        embeddings=[list(v) for v in vectors[:-1]],
        episode=episode,
        episode_embedding=list(vectors[-1]),
    )
    await world.store.write([outcome])
    tenant = episode.tenant_id
    pending = [p for p in await SqlVectorOutbox.of(world.store).pending_vectors(limit=100_000) if p.memory.tenant_id == tenant]
    await world.index.write([VectorPoint(p.memory.id, p.embedding, vector_payload(p.memory)) for p in pending])
    await SqlVectorOutbox.of(world.store).mark_vectors_synced([p.memory.id for p in pending])
    said_pending = [p for p in await SqlVectorOutbox.of(world.store).pending_episode_vectors(limit=100_000) if p.episode.tenant_id == tenant]
    await world.index.write([VectorPoint(p.episode.id, p.embedding, episode_payload(p.episode)) for p in said_pending])
    await SqlVectorOutbox.of(world.store).mark_episode_vectors_synced([p.episode.id for p in said_pending])
