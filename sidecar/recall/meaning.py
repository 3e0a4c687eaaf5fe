"""What recall reads by meaning, with the sentence model it already runs for the query.

Two readings that words alone miss. **Kinship**: a constraint whose object no domain word places
("psychological thrillers", "Nike stuff") is of the request's kind or not: both are read against a
fixed taxonomy of what assistants are asked for (`KINDS`), each as its cosines to every kind (the
request's from its query, averaged with the name of its domain when the caller gives one), and
their kinship is the correlation of the two profiles (do they lean to the same kinds, whatever
the level); at `policy.SAME_KIND` or above the constraint bears on the request, below it it does not.
**Live slots**: a live instruction (`live_intent`, name → value) speaks of a stored default when
the default's words are near the instruction ("drink: iced matcha" and "User's usual is a flat
white"; "doneness: well done" and "likes their steak medium-rare") though they share no word: the
cosine of the default's text with "name: value" reaches `LIVE_SLOT` for a
preference or procedure, `LIVE_SLOT_FACT` for a fact (a fact of the user's life yields only to an
instruction plainly about it). The bars are measured on the dev scenarios (docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from beliefs.errors import BeliefstreamError
from beliefs.records import Memory, MemoryType, Polarity, RecallSemantics
from sidecar.recall import policy
from sidecar.recall.query_embed import QueryEmbedder, vector_of
from sidecar.recall.sensitivity_gate import is_safety_memory
from sidecar.recall.spoken_intent import says_a_default

logger = logging.getLogger(__name__)

#: What assistants are asked for, one kind a line: general descriptions, not any user's words.
KINDS: tuple[str, ...] = (
    "food and drink", "restaurants, cafés and places to eat", "cooking, recipes and dishes",
    "coffee, tea, wine, beer and drinks", "travel, trips and holidays", "flights and airlines",
    "hotels, hostels and places to stay", "trains, buses, cars and getting around", "cruises and tours",
    "films, movies and TV shows to watch", "books and novels to read", "music, songs, bands and albums",
    "podcasts and radio", "games, video games and board games", "sport, fitness and exercise",
    "outings, days out, attractions and things to do", "nightlife, bars, clubs and parties",
    "hiking, camping and the outdoors", "clothes, shoes and fashion", "shopping and gifts",
    "electronics, phones, computers and gadgets", "appliances, furniture and home goods",
    "home repairs, decorating and the garden", "software, apps and tools", "programming and code",
    "money, banking, bills and investments", "work, jobs and careers", "meetings, calls and the calendar",
    "writing emails, letters and messages", "health, doctors and medicine", "school, study and learning",
    "family, children and pets", "beauty, hair and grooming", "art, museums and culture",
)  # fmt: skip

#: Cosine of a default's text with a live instruction at which the instruction overrides it.
LIVE_SLOT = 0.14
LIVE_SLOT_FACT = 0.40


@dataclass(frozen=True)
class Meaning:
    """The request's readings by meaning: {constraint id: kinship}, {default id: why a live instruction
    overrides it}. Empty when the model is unavailable: the rules fall back to words."""

    kinship: Mapping[str, float] = field(default_factory=dict)
    overridden: Mapping[str, str] = field(default_factory=dict)


def profile(vectors: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """Each vector's cosines to the kinds, centred and scaled to unit length (a row per vector)."""
    return profile_of(vectors @ kinds.T)


def profile_of(cosines: np.ndarray) -> np.ndarray:
    """Rows of cosines to the kinds, centred and scaled to unit length."""
    scores = cosines - cosines.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(scores, axis=1, keepdims=True)
    return scores / np.where(norms > 0, norms, 1.0)


def kinship(a: np.ndarray, b: np.ndarray) -> float:
    """The correlation of two profiles: 1 when they lean to the same kinds, 0 or less when unrelated."""
    return float(a @ b)


def undomained_constraints(memories: Iterable[Memory]) -> dict[str, str]:
    """{id: text} of the constraints whose object no domain word places: their whole text is read, its
    verb with its object ("never schedule anything before 9am" is about the calendar)."""
    return {
        m.id: m.text
        for m in memories
        if m.recall_semantics is RecallSemantics.CONSTRAINT
        and not policy.constraint_domains(m)
        and m.text.strip()
    }


def may_yield(memory: Memory) -> bool:
    """A stored default a live instruction may override: no constraint, retraction or safety fact."""
    if memory.recall_semantics is RecallSemantics.CONSTRAINT or memory.polarity is Polarity.NEGATIVE:
        return False
    return memory.type in (
        MemoryType.PREFERENCE,
        MemoryType.PROCEDURE,
        MemoryType.FACT,
    ) and not is_safety_memory(memory)


def live_slot_override(memory: Memory, cosines: Mapping[str, float]) -> str | None:
    """Why the live instruction ("name: value") nearest `memory` overrides it, else None."""
    if not cosines:
        return None
    text, best = max(cosines.items(), key=lambda kv: kv[1])
    # a fact that states a habit or standing choice ("User's usual is a flat white") is a default
    bar = LIVE_SLOT_FACT if memory.type is MemoryType.FACT and not says_a_default(memory.text) else LIVE_SLOT
    if best < bar:
        return None
    return f"live_intent: {text!r} speaks of what this default sets (by meaning, cosine {best:.2f} >= {bar})"


class MeaningReader:
    """Reads a request's `Meaning` with the recall's query embedder (its cache keeps repeated texts free)."""

    def __init__(self, queries: QueryEmbedder) -> None:
        self._queries = queries
        self._kinds: np.ndarray | None = None

    async def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = await asyncio.gather(*(vector_of(self._queries.ask(t)) for t in texts))
        return np.vstack(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)

    async def read_or_none(
        self,
        embedding: np.ndarray | asyncio.Future[np.ndarray] | None,
        live_intent: Mapping[str, str],
        memories: Iterable[Memory],
        domain: str | None,
        degraded: list[str],
    ) -> Meaning:
        """`read` with the query's embedding as the recall asked for it (`QueryEmbedder.ask`); nothing,
        and "meaning" in `degraded`, when the model is unavailable: the rules then read words alone."""
        try:
            query = None if embedding is None else await vector_of(embedding)
            return await self.read(query, live_intent, memories, domain)
        except BeliefstreamError as exc:  # EmbedderUnavailableError
            logger.warning("recall without readings by meaning: %s", exc)
            degraded.append("meaning")
            return Meaning()

    async def read(
        self,
        query: np.ndarray | None,
        live_intent: Mapping[str, str],
        memories: Iterable[Memory],
        domain: str | None = None,
    ) -> Meaning:
        """`domain`: the caller's name for the request's domain, read with the query when given."""
        pool = list(memories)
        objects = undomained_constraints(pool) if query is not None else {}
        entries = [f"{n.replace('_', ' ')}: {v}" for n, v in live_intent.items() if n != "context"]
        defaults = [m for m in pool if may_yield(m)] if entries else []
        if not objects and not defaults:
            return Meaning()
        found: dict[str, float] = {}
        if objects:
            if self._kinds is None:
                self._kinds = await self._embed(list(KINDS))
            ids = list(objects)
            vectors = await self._embed([objects[i] for i in ids])
            asked = profile(query.reshape(1, -1), self._kinds)[0]
            if domain:  # the caller's name for it ("shoes", "team outing") weighs as much as the query
                cosines = (query.reshape(1, -1) + await self._embed([domain])) @ self._kinds.T / 2
                asked = profile_of(cosines)[0]
            own = profile(vectors, self._kinds)
            found = {i: kinship(row, asked) for i, row in zip(ids, own, strict=True)}
        overridden: dict[str, str] = {}
        if defaults:
            said = await self._embed(entries)
            texts = await self._embed([m.text for m in defaults])
            cosines = texts @ said.T
            for memory, row in zip(defaults, cosines, strict=True):
                why = live_slot_override(memory, dict(zip(entries, map(float, row), strict=True)))
                if why is not None:
                    overridden[memory.id] = why
        return Meaning(found, overridden)
