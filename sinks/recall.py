"""The read-side contract of the SQL store: what recall asks of it, scoped and current by construction.

Every method takes a `RecallScope` and a `Currency` and applies both in its own WHERE clause, so a
row outside the caller's scope, or not current, can never come back, whatever ids the caller
passes (ids from a stale vector payload included).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from beliefs.episodes import Episode
from beliefs.records import Memory, RecallAudit
from sinks.base import MEMORY_KIND, VectorFilter


@dataclass(frozen=True)
class RecallScope:
    """Who may see what: one tenant (from the key), one user, and at most one agent's private memory.

    `topics`, when set, narrows the similarity race (dense and keyword candidates), never pinned
    memories. `POST /v1/recall` leaves it empty: a request's `topic` is judged after hydration
    (`sidecar.recall.policy.outside_topic`), where a context value the request names is still seen.
    """

    tenant_id: str
    user_id: str
    agent_id: str | None = None
    topics: tuple[str, ...] = ()
    #: the read's workspace: its rows and those of no workspace (none: rows of no workspace only);
    #: applied in every SQL statement of recall, hydration of vector hits included
    workspace_id: str | None = None

    def vector_filter(self, kinds: Sequence[str] = (MEMORY_KIND,)) -> VectorFilter:
        """The same scope, pushed into the vector query, over points of `kinds` (memories by
        default; `("episode",)` for episodes, which carry no topic, so topics then do not apply)."""
        agents = (self.agent_id,) if self.agent_id else ()
        topics = self.topics if tuple(kinds) == (MEMORY_KIND,) else ()
        return VectorFilter(
            tenant_id=self.tenant_id, user_id=self.user_id, agent_ids=agents, topics=topics, kinds=tuple(kinds)
        )


@dataclass(frozen=True)
class Currency:
    """What counts as current at `now`: active, open, unrevoked, unexpired, confident, not untrusted.

    `include_untrusted` lets episode reads return `untrusted` episodes (pasted or instruction-shaped
    content, tool and system text) when a caller asks for them; memory reads always exclude them.
    """

    now: datetime
    confidence_floor: float
    include_untrusted: bool = False


@dataclass(frozen=True)
class KeywordHit:
    id: str
    score: float  # higher is better, comparable only within one answer


@dataclass(frozen=True)
class QueryLinks:
    """The entity names and the time window a query names (either may be empty); a memory is linked
    by either: its entity is one of the names, or its `valid_from` falls in the window."""

    entities: tuple[str, ...] = ()
    window: tuple[datetime, datetime] | None = None  # start, end exclusive

    def __bool__(self) -> bool:
        return bool(self.entities) or self.window is not None


@dataclass(frozen=True)
class OpenContest:
    """A contested slot awaiting a decision, with its contested memories visible in the scope."""

    contested_id: str
    entity: str
    attribute: str
    memories: tuple[Memory, ...]


@runtime_checkable
class RecallStore(Protocol):
    async def keyword_candidates(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        """Full-text matches of any of `terms`, best first (SQLite FTS5 / PostgreSQL tsvector)."""

    async def hydrate(
        self,
        scope: RecallScope,
        currency: Currency,
        ids: Sequence[str],
        slot_attributes: Sequence[str] = (),
    ) -> list[Memory]:
        """The current, in-scope rows among `ids`, plus current rows sharing a slot with one of them
        when its attribute is in `slot_attributes` (so a contradiction is seen whole); one query."""

    async def pinned_memories(self, scope: RecallScope, currency: Currency, limit: int) -> list[Memory]:
        """Current profile facts and constraints of the scope, whatever the query."""

    async def safety_memories(
        self, scope: RecallScope, currency: Currency, attributes: Sequence[str], limit: int
    ) -> list[Memory]:
        """Current memories of `attributes` (allergies, medical needs, ...): for a request in their
        domain they surface whatever the query's similarity."""

    async def linked_candidates(
        self, scope: RecallScope, currency: Currency, links: QueryLinks, limit: int
    ) -> list[str]:
        """Ids of current memories in scope (topics included) linked to what a query names: entity one
        of `links.entities` (casefolded), or `valid_from` in `links.window` (start, end exclusive);
        most important, newest first, at most `limit`."""

    async def pinned_and_linked(
        self, scope: RecallScope, currency: Currency, pinned_limit: int, links: QueryLinks, linked_limit: int
    ) -> tuple[list[Memory], list[str]]:
        """`pinned_memories` and `linked_candidates` (none when `links` is empty) in one call: on a
        SQLite file one statement."""

    async def open_contests(self, scope: RecallScope, currency: Currency, limit: int) -> list[OpenContest]:
        """The user's open contested slots (oldest first, at most `limit`), each with its memories in
        `scope` that are current but for their state (`contested`); a slot with none is left out."""

    async def record_access(self, counts: Mapping[str, int], at: datetime) -> None:
        """`access_count += n`, `last_accessed = at` for each id, batched."""

    async def write_audit(self, records: Sequence[RecallAudit]) -> list[RecallAudit]:
        """Insert audit records; a record already written (same id) is left as it is. Answers those
        written: none that would name a user erased since (`beliefs.erasure.split_audits`)."""

    # -- episodes: the turns as said (scope, and currency: active, unrevoked, unexpired, trusted
    # or `caution` unless `currency.include_untrusted`; `scope.topics` does not apply) ----------

    async def episode_keyword_candidates(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        """BM25 over the user's own current episodes, best first (as `keyword_candidates`); the turns
        around the best hits in their session may join with a share of those hits' scores."""

    async def hydrate_episodes(self, scope: RecallScope, currency: Currency, ids: Sequence[str]) -> list[Episode]:
        """The current, in-scope episodes among `ids`, in the order of `ids`."""

    async def episode_neighbours(
        self, scope: RecallScope, currency: Currency, ids: Sequence[str], window: int
    ) -> dict[str, list[Episode]]:
        """For each current, in-scope id: up to `window` current, in-scope episodes before it and
        `window` after it in the same session (sessionless episodes count as one session), ordered
        by (said_at, turn_id), the episode itself left out; ids out of scope are absent."""
