"""Re-extraction: beliefs rebuilt from the stored episodes with the current extractor.

A user's episodes (oldest first, since a date) become turns again (the kept, cleaned text, said at
its time, in its session) and go through the same gate, extractor and reconcile as at ingest,
as `TurnOutcome`s of a job of their own (`<turn id>#reextract/<tag>`): a second run with the same
tag is a replay and changes nothing. A memory keeps the id the same claim of the same turn always
gets, and the store leaves an existing id alone; a new reading is also kept off what a person
decided (`PersonDecided`): a revoked belief is not stated again under another id, and a turn whose
belief a person edited does not overrule the edit. A dry run plans the same write (`preview`) and reports what would be added, updated (a new
value supersedes one), retracted (a negative claim supersedes one) and confirmed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import zip_longest
from typing import Protocol

from agents.corrections import with_corrections
from beliefs.episodes import Episode, EpisodeState
from beliefs.reconcile import normalize_value, text_fingerprint
from beliefs.records import EventKind, JobState, Memory, MemoryState, Polarity, Turn, job_id_for, utcnow
from beliefs.write_plan import TurnOutcome, WritePlan
from reading.extractor import Extractor
from reading.prepare import clean_turn, extract_claims, memories_from_claims
from sinks.base import WriteResult
from sinks.contracts import MemoryListing

#: Turns written (or planned) per transaction.
CHUNK = 256


class ReextractStore(Protocol):
    async def list_episodes(
        self, tenant_id: str, user_id: str, state: EpisodeState | None = ..., limit: int = ..., cursor: str | None = ...
    ) -> tuple[list[Episode], str | None]: ...

    async def write(self, outcomes: Sequence[TurnOutcome]) -> WriteResult: ...

    async def preview(self, outcomes: Sequence[TurnOutcome]) -> WritePlan: ...

    async def list_memories(
        self, tenant_id: str, user_id: str, state: MemoryState | None = ..., limit: int = ...,
        cursor: str | None = ..., narrowing: MemoryListing = ...,
    ) -> tuple[list[Memory], str | None]: ...  # fmt: skip


#: Embeds memory texts for a real run (the dry run embeds nothing).
Embed = Callable[[list[str]], Awaitable[Sequence[Sequence[float]]]]


@dataclass
class ReextractReport:
    """What a run did (or, dry, would do)."""

    turns: int = 0
    replayed: int = 0  # turns this tag already re-extracted
    added: list[Memory] = field(default_factory=list)
    updated: list[Memory] = field(default_factory=list)  # new values that supersede one
    retracted: list[Memory] = field(default_factory=list)  # negative claims that supersede one
    confirmed: int = 0
    kept_as_decided: int = 0  # re-extracted memories left out: they would undo an edit or a revocation

    def lines(self, dry_run: bool) -> list[str]:
        verb = "would be" if dry_run else "were"
        out = [f"{self.turns} turns read again ({self.replayed} already re-extracted with this extractor)"]
        for label, memories in (("added", self.added), ("updated", self.updated), ("retracted", self.retracted)):
            out.append(f"{len(memories)} {verb} {label}")
            out += [f"  {label}: {m.user_id} {m.id} {m.text}" for m in memories]
        out.append(f"{self.confirmed} {verb} confirmed")
        out.append(f"{self.kept_as_decided} left out: a person edited or revoked that belief")
        return out


def turn_of(episode: Episode) -> Turn:
    """The turn an episode keeps, as the extractor reads it (its cleaned text, its time and session)."""
    metadata = {"speaker": episode.speaker} if episode.speaker else {}
    if episode.visibility.value == "agent":
        metadata["visibility"] = "agent"
    return Turn(
        turn_id=episode.turn_id, tenant_id=episode.tenant_id, user_id=episode.user_id, agent_id=episode.agent_id,
        session_id=episode.session_id, role=episode.role, text=episode.text, ts=episode.said_at, metadata=metadata,
    )  # fmt: skip


async def episodes_of(store: ReextractStore, tenant_id: str, user_id: str, since: datetime | None) -> list[Episode]:
    """The user's active episodes said since `since`, oldest first."""
    found: list[Episode] = []
    cursor: str | None = None
    while True:
        page, cursor = await store.list_episodes(tenant_id, user_id, EpisodeState.ACTIVE, 500, cursor)
        found += [e for e in page if since is None or e.said_at >= since]
        if cursor is None:
            return sorted(found, key=lambda e: (e.said_at, e.turn_id))


async def outcomes_of(
    store: ReextractStore, turns: Sequence[Turn], extractor: Extractor, tag: str, embed: Embed | None
) -> list[TurnOutcome]:
    """The turns through the gate, the extractor and the value-only corrections, as at ingest, as
    outcomes of their re-extraction jobs."""
    prepared = [clean_turn(turn) for turn in turns]
    claims = await with_corrections(store, prepared, await extract_claims(prepared, extractor))
    now = utcnow()
    memories = [memories_from_claims(p.turn, c, now, p.text) for p, c in zip(prepared, claims, strict=True)]
    vectors: list[Sequence[float]] = list(await embed([m.text for ms in memories for m in ms])) if embed else []
    outcomes: list[TurnOutcome] = []
    at = 0
    for p, mine in zip(prepared, memories, strict=True):
        job_id = job_id_for(p.turn.tenant_id, f"{p.turn.turn_id}#reextract/{tag}")
        if p.skip_reason is not None or not mine:
            outcomes.append(TurnOutcome(p.turn, job_id, JobState.SKIPPED, p.skip_reason or "no_memory_extracted"))
            continue
        embeddings = vectors[at : at + len(mine)] if vectors else []
        at += len(mine)
        outcomes.append(TurnOutcome(p.turn, job_id, JobState.DONE, None, mine, embeddings))
    return outcomes


def _slot(memory: Memory) -> tuple:
    return (memory.entity, memory.attribute, memory.context)


@dataclass
class PersonDecided:
    """What people decided about a user's beliefs, which a re-extraction leaves as it is: revoked
    beliefs (by slot and value, and by text) and edited ones (an edit is a current version that
    superseded one of the same source turns: that turn's slot and the old text stay decided)."""

    revoked: set[tuple] = field(default_factory=set)
    edited: set[tuple] = field(default_factory=set)

    @classmethod
    def of(cls, memories: Sequence[Memory]) -> PersonDecided:
        decided = cls()
        by_id = {m.id: m for m in memories}
        for memory in memories:
            if memory.state is MemoryState.REVOKED:
                decided.revoked |= {("slot", *_slot(memory), normalize_value(memory.value or "")),
                                    ("text", text_fingerprint(memory.text))}  # fmt: skip
            edit = by_id.get(memory.superseded_by or "")
            if edit is not None and edit.source_turn_ids == memory.source_turn_ids:
                decided.edited |= {("text", text_fingerprint(memory.text))}
                decided.edited |= {("turn", turn_id, *_slot(memory)) for turn_id in memory.source_turn_ids}
        return decided

    def leaves(self, memory: Memory) -> bool:
        """Whether a re-extracted memory may be written (it does not undo a person's decision)."""
        text = ("text", text_fingerprint(memory.text))
        if text in self.revoked or ("slot", *_slot(memory), normalize_value(memory.value or "")) in self.revoked:
            return False
        if memory.attribute and any(("turn", t, *_slot(memory)) in self.edited for t in memory.source_turn_ids):
            return False
        return text not in self.edited


async def memories_of(store: ReextractStore, tenant_id: str, user_id: str) -> list[Memory]:
    """Every memory of the user, in every state."""
    found: list[Memory] = []
    cursor: str | None = None
    while True:
        page, cursor = await store.list_memories(tenant_id, user_id, None, 500, cursor)
        found += page
        if cursor is None:
            return found


def _kept_off(outcomes: Sequence[TurnOutcome], decided: PersonDecided) -> tuple[list[TurnOutcome], int]:
    """The outcomes without memories that would undo a person's decision; how many were left out."""
    kept: list[TurnOutcome] = []
    left = 0
    for outcome in outcomes:
        pairs = [(m, e) for m, e in zip_longest(outcome.memories, outcome.embeddings) if decided.leaves(m)]
        left += len(outcome.memories) - len(pairs)
        if len(pairs) == len(outcome.memories):
            kept.append(outcome)
            continue
        memories = [m for m, _ in pairs]
        embeddings = [e for _, e in pairs if e is not None]
        state, reason = (JobState.DONE, None) if memories else (JobState.SKIPPED, "kept_as_a_person_decided")
        kept.append(replace(outcome, memories=memories, embeddings=embeddings, state=state, reason=reason))
    return kept, left


def _tally(report: ReextractReport, inserts: Sequence[Memory], events: Sequence, replayed: int) -> None:
    report.replayed += replayed
    superseding = {e.superseded_by for e in events if e.kind is EventKind.SUPERSEDED}
    report.confirmed += sum(1 for e in events if e.kind is EventKind.CONFIRMED)
    for memory in inserts:
        if memory.id not in superseding:
            report.added.append(memory)
        elif memory.polarity is Polarity.NEGATIVE:
            report.retracted.append(memory)
        else:
            report.updated.append(memory)


async def reextract(
    store: ReextractStore,
    extractor: Extractor,
    tenant_id: str,
    user_ids: Sequence[str],
    *,
    tag: str,
    since: datetime | None = None,
    dry_run: bool = True,
    embed: Embed | None = None,
) -> ReextractReport:
    """Re-extract each user's episodes; with `dry_run`, plan only."""
    report = ReextractReport()
    for user_id in user_ids:
        turns = [turn_of(e) for e in await episodes_of(store, tenant_id, user_id, since)]
        report.turns += len(turns)
        decided = PersonDecided.of(await memories_of(store, tenant_id, user_id))
        for start in range(0, len(turns), CHUNK):
            outcomes = await outcomes_of(store, turns[start : start + CHUNK], extractor, tag, None if dry_run else embed)
            outcomes, left = _kept_off(outcomes, decided)
            report.kept_as_decided += left
            if dry_run:
                plan = await store.preview(outcomes)
                _tally(report, [m for m, _ in plan.inserts.values()], plan.events, len(plan.replayed_job_ids))
            else:
                result = await store.write(outcomes)
                _tally(report, result.inserted, result.events, len(result.replayed_job_ids))
    return report
