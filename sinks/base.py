"""The sink contract (an async port of quix-streams' sinks), the vector index, and the values the
store's contracts (`sinks.contracts`) exchange.

A sink has `setup()`, `write(batch)` and `close()`. Writes are idempotent (deterministic ids,
upserts), so a replayed batch changes nothing. A full destination raises `BackpressureError`
with `retry_after`; any other error propagates and the batch's offsets are not committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from beliefs.episodes import Episode, EpisodeEvent
from beliefs.records import Job, Memory, MemoryEvent, MemoryState

#: Payload `kind` of the two sorts of vector point sharing the collection.
MEMORY_KIND = "memory"
EPISODE_KIND = "episode"


@dataclass(frozen=True)
class WriteResult:
    """What one SQL transaction did to the belief state."""

    inserted: list[Memory] = field(default_factory=list)  # new rows: need a vector point
    changed: list[Memory] = field(default_factory=list)  # existing rows whose state/payload changed
    events: list[MemoryEvent] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    replayed_job_ids: list[str] = field(default_factory=list)  # already done: left untouched
    episodes: list[Episode] = field(default_factory=list)  # new episode rows: need a vector point
    episode_events: list[EpisodeEvent] = field(default_factory=list)
    erased_job_ids: list[str] = field(default_factory=list)  # turns their user's erasure overtook: nothing kept


@dataclass(frozen=True)
class ErasureReport:
    """What erasing one user removed from SQL; the caller deletes these ids' vector points.

    `counts` is the deletion receipt's count per kind of row (`memories`, `jobs`, ...); the receipt
    itself (`receipt_id`, `erased_at`) is the one trace the erasure leaves.
    """

    memory_ids: list[str] = field(default_factory=list)
    job_count: int = 0
    episode_ids: list[str] = field(default_factory=list)  # their points go too
    counts: dict[str, int] = field(default_factory=dict)
    receipt_id: str | None = None
    erased_at: datetime | None = None


@dataclass(frozen=True)
class VectorPoint:
    """A memory or an episode as the vector index holds it: the vector and a coarse pre-filter payload."""

    id: str
    vector: Sequence[float]
    payload: dict


@dataclass(frozen=True)
class VectorFilter:
    """Hard scope pushed into the vector query; never a ranking signal."""

    tenant_id: str
    user_id: str
    agent_ids: Sequence[str] = ()  # agent-private memories visible to these agents
    states: Sequence[MemoryState] = (MemoryState.ACTIVE,)
    types: Sequence[str] = ()
    topics: Sequence[str] = ()
    kinds: Sequence[str] = (MEMORY_KIND,)  # payload `kind`s: memories only unless episodes are asked for


@dataclass(frozen=True)
class VectorHit:
    id: str
    score: float


@runtime_checkable
class Sink(Protocol):
    async def setup(self) -> None: ...

    async def close(self) -> None: ...


@runtime_checkable
class Pingable(Protocol):
    async def ping(self) -> bool:
        """Whether it answers now (readiness: the store, the index, the broker); never raises."""


@runtime_checkable
class VectorIndex(Sink, Pingable, Protocol):
    """The vector side: Qdrant Edge embedded, or a Qdrant server through qdrant-client."""

    async def write(self, points: Sequence[VectorPoint]) -> None:
        """Upsert points (vector and payload) by id."""

    async def set_payload(self, payloads: dict[str, dict]) -> None:
        """Overwrite payload keys of existing points (state changes after reconcile)."""

    async def delete(self, ids: Sequence[str]) -> None: ...

    async def search(self, vector: Sequence[float], scope: VectorFilter, limit: int) -> list[VectorHit]: ...

    async def count(self, tenant_id: str | None = None) -> int: ...


def vector_payload(memory: Memory) -> dict:
    """The payload a memory carries in the vector index: the fields scope and currency filter on."""
    return {
        "tenant_id": memory.tenant_id,
        "user_id": memory.user_id,
        "agent_id": memory.agent_id or "",
        "visibility": memory.visibility.value,
        "state": memory.state.value,
        "type": memory.type.value,
        "topic": memory.topic,
        "profile": memory.profile,
        "recall_semantics": memory.recall_semantics.value,
        "confidence": memory.confidence,
        "importance": memory.importance,
        "decay_score": None if memory.decay_score is None else round(memory.decay_score, 2),  # beliefs.decay
        "kind": MEMORY_KIND,
    }


def episode_payload(episode: Episode) -> dict:
    """The payload an episode carries in the vector index (same collection as memories, `kind: episode`)."""
    return {
        "tenant_id": episode.tenant_id,
        "user_id": episode.user_id,
        "agent_id": episode.agent_id or "",
        "visibility": episode.visibility.value,
        "state": episode.state.value,
        "kind": EPISODE_KIND,
        "role": episode.role.value,
        "trust": episode.trust.value,
        "session_id": episode.session_id or "",
    }


@dataclass(frozen=True)
class PendingVector:
    """A memory whose vector point is not yet known to be in the index (the SQL-side outbox)."""

    memory: Memory
    embedding: Sequence[float]


@dataclass(frozen=True)
class PendingEpisodeVector:
    """An episode whose vector point is not yet known to be in the index (the same outbox)."""

    episode: Episode
    embedding: Sequence[float]


@dataclass(frozen=True)
class PendingEvent:
    """A belief-state event written in the same transaction as the change; published, then acked."""

    seq: int
    topic: str
    key: str
    value: bytes
