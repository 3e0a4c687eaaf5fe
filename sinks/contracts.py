"""The SQL store's contracts, one protocol per kind of caller.

`SqlMemoryStore` implements all of them; a caller is typed with the narrow one it uses, so what it
may ask of the store is read off its signature. Recall's reads are `sinks.recall.RecallStore`, the
manage phase's `sinks.manage`, the vector outbox `sinks.vector_outbox.VectorOutbox`. The
intake's replay side (`IntakeQueue`) is `sinks.sql.intake.SqlIntake`, over the store's engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from beliefs.contested import ContestedSlot
from beliefs.episodes import Episode, EpisodeState
from beliefs.erasure import Erasures
from beliefs.records import Job, Memory, MemoryState, MemoryType, Turn
from beliefs.write_plan import TurnOutcome
from sinks.base import ErasureReport, PendingEvent, Pingable, Sink, WriteResult
from sinks.reach import EVERY_AGENT, Reach


@runtime_checkable
class IngestSink(Sink, Protocol):
    """The write path's sink: one transaction per batch, replays recognised before any work."""

    async def write(self, outcomes: Sequence[TurnOutcome]) -> WriteResult:
        """One transaction: jobs, inserts, reconcile (confirm / supersede), outbox rows."""

    async def done_job_ids(self, job_ids: Sequence[str]) -> set[str]:
        """Those of `job_ids` already done, skipped or failed: replays skip them before any work."""

    async def latest_erasures(self, users: Sequence[tuple[str, str]]) -> Erasures:
        """When each of `users` (tenant id, user id) that was ever erased was erased last: a record
        that could not become a turn is not dead-lettered when its user's erasure overtook it."""


@runtime_checkable
class EventOutbox(Protocol):
    """Belief-state events written in the transaction of their change, waiting to be published."""

    async def pending_events(self, limit: int = 1000) -> list[PendingEvent]: ...

    async def ack_events(self, seqs: Sequence[int]) -> None: ...


@runtime_checkable
class JobIntake(Protocol):
    """Jobs accepted by `/v1/retain` (and MCP `store_memory`) before the worker has their turns."""

    async def enqueue_jobs(self, jobs: Sequence[Job], turns: Sequence[Turn] = ()) -> None:
        """Record queued jobs without touching jobs already further along, and keep `turns` (those of
        jobs still queued) until their job finishes: one transaction."""

    async def get_job(self, tenant_id: str, job_id: str) -> Job | None: ...


@dataclass(frozen=True)
class IntakeRow:
    """One pending turn: the record to (re-)publish and its bookkeeping."""

    job_id: str
    tenant_id: str
    turn_id: str
    key: bytes
    value: bytes
    accepted_at: datetime
    published_at: datetime
    attempts: int


@runtime_checkable
class IntakeQueue(Protocol):
    """Accepted turns whose job is not finished: re-published at start and by the reaper."""

    async def page(
        self, after: tuple[datetime, str] | None = None, limit: int = 1000, published_before: datetime | None = None
    ) -> list[IntakeRow]:
        """Pending turns in acceptance order (one user's turns keep their order), after a keyset cursor."""

    async def count(self) -> int: ...

    async def mark_published(self, job_ids: Sequence[str], at: datetime, *, attempt: bool) -> None:
        """Record a publication; `attempt` counts it against the job (the reaper's, not a restart's)."""

    async def fail(self, job_ids: Sequence[str], reason: str, at: datetime) -> None:
        """Fail the jobs still queued, with `reason`, and drop their turns: one transaction."""

    async def purge_finished(self) -> int:
        """Drop turns whose job is finished or gone (erased); answers how many."""


@dataclass(frozen=True)
class MemoryListing:
    """How a memory listing is narrowed and ordered besides its state: one type, one topic, newest first."""

    type: MemoryType | None = None
    topic: str | None = None
    newest_first: bool = False


#: A listing of one state, not narrowed further, oldest first.
EVERY_MEMORY = MemoryListing()


@runtime_checkable
class MemoryPages(Protocol):
    """A user's memories page by page."""

    async def list_memories(
        self,
        tenant_id: str,
        user_id: str,
        state: MemoryState | None = MemoryState.ACTIVE,
        limit: int = 100,
        cursor: str | None = None,
        narrowing: MemoryListing = EVERY_MEMORY,
        reach: Reach = EVERY_AGENT,
    ) -> tuple[list[Memory], str | None]:
        """One page of the user's memories in (created_at, id) order (or newest first) within `reach`
        (applied in the query: a page is never short of rows the caller may see), and the next cursor."""


@runtime_checkable
class BeliefReads(MemoryPages, Protocol):
    """Memories and episodes by id and by page, scoped by tenant (the governance routes' reads)."""

    async def get_memory(self, tenant_id: str, memory_id: str) -> Memory | None: ...

    async def memory_history(self, tenant_id: str, memory_id: str) -> list[Memory]:
        """The supersession chain the memory belongs to, oldest first."""

    async def get_episode(self, tenant_id: str, episode_id: str) -> Episode | None: ...

    async def list_episodes(
        self,
        tenant_id: str,
        user_id: str,
        state: EpisodeState | None = EpisodeState.ACTIVE,
        limit: int = 100,
        cursor: str | None = None,
        newest_first: bool = False,
        reach: Reach = EVERY_AGENT,
    ) -> tuple[list[Episode], str | None]:
        """One page of the user's episodes in (said_at, id) order (or newest first) within `reach`, and
        the next cursor."""


@runtime_checkable
class GovernanceWrites(Protocol):
    """Direct insert, revocation and erasure: each one SQL transaction with its outbox rows."""

    async def insert_memory(self, memory: Memory, embedding: Sequence[float] | None) -> WriteResult:
        """A fully specified memory, reconciled like the write path's (confirm / supersede); no job."""

    async def revoke(self, tenant_id: str, memory_id: str, at: datetime) -> Memory | None:
        """Revoke one memory of the tenant (idempotent; one `revoked` event); None when not in scope."""

    async def revoke_episode(self, tenant_id: str, episode_id: str, at: datetime) -> Episode | None:
        """Revoke one episode of the tenant (idempotent; one `episode_revoked` event); None when absent."""

    async def erase_user(self, tenant_id: str, user_id: str, key_id: str | None = None) -> ErasureReport:
        """Delete every row of the user (memories, episodes, jobs, intake, contested slots, audit,
        unpublished events) in one transaction, leaving only a deletion receipt."""


@runtime_checkable
class ContestedSlots(Protocol):
    """Contradiction loops awaiting a person's decision, and that decision (a governance write)."""

    async def list_contested(
        self,
        tenant_id: str,
        user_id: str | None = None,
        status: str | None = "open",
        limit: int = 100,
        reach: Reach = EVERY_AGENT,
    ) -> list[ContestedSlot]:
        """Slots of the tenant within `reach`: shared ones, and agents' private ones it sees."""

    async def get_contested(
        self, tenant_id: str, contested_id: str, reach: Reach = EVERY_AGENT
    ) -> ContestedSlot | None: ...

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
        """Write the decided values as meta-memories and close the slot's contested memories, in one
        transaction; None when the slot is not in reach. A decided slot raises `ContestedResolvedError`."""


@dataclass(frozen=True)
class Delivery:
    """One event owed to one URL."""

    id: int
    url: str
    body: bytes
    attempts: int  # made before this one


@runtime_checkable
class WebhookQueue(Protocol):
    """Memory events owed to webhook URLs (filled when the event outbox is acknowledged)."""

    async def claim_due(self, now: datetime, lease_s: float, limit: int = 100) -> list[Delivery]:
        """Deliveries due at `now`, leased until `now + lease_s` so another dispatcher leaves them."""

    async def delivered(self, delivery_id: int, at: datetime) -> None: ...

    async def failed_attempt(self, delivery_id: int, error: str, retry_at: datetime | None) -> None:
        """One more failed attempt: retried at `retry_at`, or failed for good when it is None."""

    async def counts(self) -> dict[str, int]:
        """Deliveries by state."""


# -- what one caller holds, when it uses several contracts -------------------------------------------


@runtime_checkable
class IngestStore(IngestSink, EventOutbox, MemoryPages, Protocol):
    """The write pipeline's store: its sink and the event outbox it drains after each batch (the
    vector outbox is the projector's), and the pages of the user's current beliefs, which a
    correction naming only values ("Sorry, it's 120, not 90.") is matched against."""


@runtime_checkable
class GovernanceStore(BeliefReads, GovernanceWrites, Protocol):
    """A governance route's store: it reads what it changes (the projector writes the points)."""


@runtime_checkable
class ContestedStore(ContestedSlots, Protocol):
    """The contested routes' store: the slots (the projector writes the meta-memories' points)."""


@runtime_checkable
class ServingStore(Pingable, JobIntake, GovernanceStore, Protocol):
    """What the sidecar (HTTP and MCP) serves from; contested slots are handed over separately."""

    async def writable(self) -> bool:
        """Whether writes go through (readiness: a full disk fails it while reads still answer); never raises."""


@runtime_checkable
class MemoryStore(IngestStore, ServingStore, ContestedSlots, Protocol):
    """Every contract above: the whole SQL store, as the process wiring (`launch`) opens it."""
