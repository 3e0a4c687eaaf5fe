"""The stored context of a turn for Claude extraction, from SQL: the session's episodes before it
and the user's current beliefs that bear on it, found with recall's own store queries.

Beliefs come the way recall's candidate legs find them without a model call: the keyword leg
(full-text matches of the turn's query terms, best first) hydrated to current in-scope rows with
their slot mates, then the pinned profile facts and constraints. The dense leg is left out: it
would embed every turn once more. `terms` is recall's query-word function, passed in by the
wiring so this floor does not import the sidecar. The extractor bounds what it sends
(`llm.turn_context.within_bounds`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Protocol

from beliefs.attributes import ATTRIBUTES
from beliefs.episodes import Episode
from beliefs.records import Memory, Turn, utcnow
from llm.turn_context import OfferedBelief, PrecedingTurn, TurnContext
from sinks.contracts import BeliefReads
from sinks.recall import Currency, RecallScope, RecallStore

#: Single-valued attributes, hydrated with their slot mates as recall does (a contradiction is offered whole).
SLOT_MATES = tuple(sorted(name for name, spec in ATTRIBUTES.items() if spec.single_valued))


class ContextStore(BeliefReads, RecallStore, Protocol):
    """What the context reads: episodes by page, and recall's candidate queries."""


def offered(memory: Memory) -> OfferedBelief:
    """A current memory as the extraction request offers it."""
    return OfferedBelief(
        memory.id, memory.text, memory.entity, memory.attribute, memory.value, memory.polarity
    )


class StoredTurnContext:
    """A `TurnContextSource` over the SQL store (both legs read concurrently)."""

    def __init__(
        self,
        store: ContextStore,
        terms: Callable[[str], Sequence[str]],
        *,
        turns: int = 6,
        beliefs: int = 12,
        confidence_floor: float = 0.0,
        scan: int = 50,
    ) -> None:
        self._store = store
        self._terms = terms
        self._turns = turns
        self._beliefs = beliefs
        self._floor = confidence_floor
        self._scan = scan  # newest episodes of the user read to find this session's

    async def __call__(self, turn: Turn) -> TurnContext:
        preceding, beliefs = await asyncio.gather(self.preceding(turn), self.beliefs(turn))
        return TurnContext(tuple(preceding), tuple(beliefs))

    async def preceding(self, turn: Turn) -> list[PrecedingTurn]:
        """The session's episodes said before the turn (same agent), oldest first."""
        if turn.session_id is None or self._turns <= 0:
            return []
        episodes, _ = await self._store.list_episodes(
            turn.tenant_id, turn.user_id, limit=self._scan, newest_first=True
        )
        earlier = [e for e in episodes if _before_in_session(e, turn)][: self._turns]
        return [PrecedingTurn(e.role, e.text) for e in reversed(earlier)]

    async def beliefs(self, turn: Turn) -> list[OfferedBelief]:
        """Keyword matches of the turn (hydrated current), then pinned beliefs; each once."""
        if self._beliefs <= 0:
            return []
        scope = RecallScope(tenant_id=turn.tenant_id, user_id=turn.user_id, agent_id=turn.agent_id)
        currency = Currency(now=utcnow(), confidence_floor=self._floor)
        terms = list(self._terms(turn.text))
        found: list[Memory] = []
        if terms:
            hits = await self._store.keyword_candidates(scope, currency, terms, self._beliefs)
            rows = {
                m.id: m for m in await self._store.hydrate(scope, currency, [h.id for h in hits], SLOT_MATES)
            }
            found = [rows.pop(h.id) for h in hits if h.id in rows] + list(rows.values())
        found += await self._store.pinned_memories(scope, currency, self._beliefs)
        unique = {m.id: m for m in reversed(found)}  # first occurrence wins
        ordered = [unique.pop(m.id) for m in found if m.id in unique]
        return [offered(m) for m in ordered[: self._beliefs]]


def _before_in_session(episode: Episode, turn: Turn) -> bool:
    return (
        episode.session_id == turn.session_id
        and episode.agent_id == turn.agent_id
        and episode.turn_id != turn.turn_id
        and episode.said_at < turn.ts
    )
