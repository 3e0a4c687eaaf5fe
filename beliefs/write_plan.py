"""What one write will do, worked out in memory before a single row is touched.

The store loads, in a few queries, everything a batch can collide with (finished jobs, ids that
already exist, active memories sharing a slot or a text). `plan_write` then walks the outcomes in
order against a `BeliefView` that it keeps current, so a later turn of the batch sees what an
earlier one decided ("mornings" then "now afternoons" in one batch ends with afternoons). The
result is rows to insert and update, events and jobs, which the store writes in bulk. A turn's
episode is planned with the ids its memories ended as (confirmed targets included).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from beliefs import currency_plan, loops, reconcile
from beliefs.contested import Contest, ContestedSlot, LoopBook
from beliefs.currency_plan import CurrencyBook
from beliefs.episodes import Episode, EpisodeEvent
from beliefs.records import EventKind, Job, JobState, Memory, MemoryEvent, Turn
from beliefs.statements import Statement

#: Job states after which a turn is never processed again.
FINISHED = frozenset({JobState.DONE, JobState.SKIPPED, JobState.FAILED})

SlotKey = tuple[str, str, str, str]  # tenant, user, entity, attribute (context is matched by reconcile)
TextKey = tuple[str, str, str]  # tenant, user, text_norm_hash


def slot_key(memory: Memory) -> SlotKey | None:
    if not memory.entity or not memory.attribute:
        return None
    return (memory.tenant_id, memory.user_id, memory.entity, memory.attribute)


def text_key(memory: Memory) -> TextKey:
    return (memory.tenant_id, memory.user_id, reconcile.text_fingerprint(memory.text))


@dataclass(frozen=True)
class KnownJob:
    """A job row that exists before the write: its state and when it was first recorded."""

    state: JobState
    created_at: datetime


class BeliefView:
    """The current memories a batch can collide with, indexed by scope, then slot or normalized text.

    Scope on writes: a memory's candidates are only memories of its own `write_scope` (the user's
    shared beliefs, or one agent's private ones; in one workspace, or in none). The store may load a superset (it looks rows up
    by slot and text alone); an agent's private turn never confirms, supersedes or contests a
    shared belief, and a shared turn never touches an agent's private one.
    """

    def __init__(self, memories: Iterable[Memory] = ()) -> None:
        self._memories: dict[str, Memory] = {}
        self._by_slot: dict[tuple[tuple[str | None, str | None], SlotKey], set[str]] = {}
        self._by_text: dict[tuple[tuple[str | None, str | None], TextKey], set[str]] = {}
        for memory in memories:
            self.put(memory)

    def get(self, memory_id: str) -> Memory:
        return self._memories[memory_id]

    def candidates(self, memory: Memory) -> list[Memory]:
        """Current memories of `memory`'s scope sharing its slot or normalized text."""
        owner = memory.write_scope
        ids = set(self._by_text.get((owner, text_key(memory)), ()))
        key = slot_key(memory)
        if key is not None:
            ids |= self._by_slot.get((owner, key), set())
        return [self._memories[i] for i in sorted(ids)]

    def put(self, memory: Memory) -> None:
        """Add or replace a memory; one that is no longer current stops being a candidate."""
        self._memories[memory.id] = memory
        owner = memory.write_scope
        key = slot_key(memory)
        for index, k in ((self._by_slot, key), (self._by_text, text_key(memory))):
            if k is None:
                continue
            if memory.is_current:
                index.setdefault((owner, k), set()).add(memory.id)
            else:
                index.get((owner, k), set()).discard(memory.id)


@dataclass
class WritePlan:
    """Rows and records one transaction will write."""

    inserts: dict[str, tuple[Memory, Sequence[float] | None]] = field(default_factory=dict)
    updates: dict[str, Memory] = field(default_factory=dict)  # existing rows, final version
    events: list[MemoryEvent] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    replayed_job_ids: list[str] = field(default_factory=list)
    contested: dict[str, ContestedSlot] = field(default_factory=dict)  # slots to upsert, final version
    escalations: list[dict[str, Any]] = field(default_factory=list)  # input-required events
    episodes: dict[str, tuple[Episode, Sequence[float] | None]] = field(default_factory=dict)
    episode_events: list[EpisodeEvent] = field(default_factory=list)
    episode_updates: dict[str, Episode] = field(default_factory=dict)  # existing episodes, new currency links


def plan_write(
    outcomes: Sequence[TurnOutcome],
    *,
    known_jobs: Mapping[str, KnownJob],
    existing_ids: set[str],
    view: BeliefView,
    now: datetime,
    book: LoopBook | None = None,
    currency: CurrencyBook | None = None,
) -> WritePlan:
    """Reconcile the outcomes in order; finished jobs and existing memory ids are left alone.

    With `book`, a claim on a contested pair, or one that would make a contradiction loop, is
    stored contested instead of being auto-resolved (`beliefs.contested`). With `currency` (the
    earlier statements the store loaded), a turn's statement that corrects, changes or ends an
    earlier one links it (`beliefs.currency_plan`).
    """
    plan = WritePlan()
    currency = currency if currency is not None else CurrencyBook()
    seen_jobs: set[str] = set()
    for outcome in outcomes:
        known = known_jobs.get(outcome.job_id)
        if outcome.job_id in seen_jobs or (known is not None and known.state in FINISHED):
            plan.replayed_job_ids.append(outcome.job_id)
            continue
        seen_jobs.add(outcome.job_id)
        memory_ids = list(dict.fromkeys(_apply_outcome(outcome, plan, existing_ids, view, book)))
        episode = _plan_episode(outcome, plan, memory_ids)
        if episode is not None:
            _link_statements(outcome, episode, memory_ids, plan, view, currency)
        turn = outcome.turn
        plan.jobs.append(
            Job(
                job_id=outcome.job_id,
                tenant_id=turn.tenant_id,
                user_id=turn.user_id,
                turn_id=turn.turn_id,
                state=outcome.state,
                memory_ids=memory_ids,
                reason=outcome.reason,
                episode_id=episode.id if episode is not None else None,
                created_at=known.created_at if known is not None else now,
                updated_at=now,
                agent_id=turn.agent_id,
                visibility=turn.visibility,
            )
        )
    return plan


def _plan_episode(outcome: TurnOutcome, plan: WritePlan, memory_ids: list[str]) -> Episode | None:
    """The turn's episode, linked to the memories it ended as, and its `episode_created` event."""
    if outcome.episode is None:
        return None
    episode = outcome.episode.model_copy(update={"memory_ids": memory_ids})
    plan.episodes[episode.id] = (episode, outcome.episode_embedding)
    plan.episode_events.append(EpisodeEvent.about(EventKind.EPISODE_CREATED, episode))
    return episode


def _link_statements(
    outcome: TurnOutcome,
    episode: Episode,
    memory_ids: list[str],
    plan: WritePlan,
    view: BeliefView,
    currency: CurrencyBook,
) -> None:
    """Judge the turn's statement against the earlier ones, apply the links, then remember it."""
    for statement in outcome.memory_statements:
        currency.memory_statements[statement.id] = statement
    newer = outcome.statement
    if newer is None:
        return
    scope = currency_plan.scope_of(episode)
    if newer.may_update:

        def current(memory_id: str) -> Memory | None:
            try:
                memory = view.get(memory_id)
            except KeyError:
                return None
            return memory if memory.is_current else None

        def episode_of(episode_id: str) -> Episode | None:
            if episode_id in plan.episodes:
                return plan.episodes[episode_id][0]
            return plan.episode_updates.get(episode_id) or currency.episodes.get(episode_id)

        _, memories, episodes = currency_plan.link_turn(newer, scope, currency, memory_ids, current, episode_of)
        for memory in memories:
            _change(plan, view, memory)
        plan.events.extend(currency_plan.superseded_events(memories, outcome.turn.turn_id))
        for linked in episodes:
            if linked.id in plan.episodes:
                plan.episodes[linked.id] = (linked, plan.episodes[linked.id][1])
            else:
                plan.episode_updates[linked.id] = linked
    currency.remember(scope, replace(newer, memory_ids=tuple(memory_ids)))


def _apply_outcome(
    outcome: TurnOutcome, plan: WritePlan, existing_ids: set[str], view: BeliefView, book: LoopBook | None
) -> list[str]:
    """Apply each memory of one turn; answers the ids the job reports."""
    memory_ids: list[str] = []
    turn_id = outcome.turn.turn_id
    embeddings = list(outcome.embeddings) if len(outcome.embeddings) else [None] * len(outcome.memories)
    for memory, embedding in zip(outcome.memories, embeddings, strict=True):
        if memory.id in existing_ids or memory.id in plan.inserts:
            memory_ids.append(memory.id)
            continue
        decision = reconcile.decide(memory, view.candidates(memory))
        contest = book.check(memory, decision, view.candidates(memory)) if book is not None else None
        if contest is not None:
            _apply_contest(plan, view, contest, embedding, outcome)
            memory_ids.append(memory.id)
            continue
        if decision.action == "confirm":
            target = decision.target_ids[0]
            _change(plan, view, reconcile.confirmed(view.get(target), memory))
            plan.events.append(MemoryEvent.about(EventKind.CONFIRMED, view.get(target), memory.valid_from, turn_id))
            memory_ids.append(target)
            continue
        plan.inserts[memory.id] = (memory, embedding)
        view.put(memory)
        plan.events.append(MemoryEvent.about(EventKind.CREATED, memory, memory.created_at, turn_id))
        memory_ids.append(memory.id)
        if decision.action == "supersede":
            for target in decision.target_ids:
                closed = reconcile.superseded(view.get(target), memory)
                _change(plan, view, closed)
                plan.events.append(MemoryEvent.about(EventKind.SUPERSEDED, closed, closed.valid_until, turn_id))
                if book is not None:
                    book.record_supersession(closed)
    return memory_ids


def _apply_contest(
    plan: WritePlan, view: BeliefView, contest: Contest, embedding: Sequence[float] | None, outcome: TurnOutcome
) -> None:
    """Store the claim and the pair's current memories as contested; escalate a new loop."""
    claim = contest.memory
    turn_id = outcome.turn.turn_id
    plan.inserts[claim.id] = (claim, embedding)
    view.put(claim)
    plan.events.append(MemoryEvent.about(EventKind.CONTESTED, claim, claim.created_at, turn_id))
    for memory in contest.contest:
        _change(plan, view, memory)
        plan.events.append(MemoryEvent.about(EventKind.CONTESTED, memory, claim.valid_from, turn_id))
    slot = contest.slot
    plan.contested[slot.id] = slot
    if contest.opened:
        plan.escalations.append(loops.input_required(slot.id, slot.pair, slot.value_history, slot.agent_id))


def _change(plan: WritePlan, view: BeliefView, memory: Memory) -> None:
    """Record the new version of a memory: a pending insert is rewritten, an existing row updated."""
    view.put(memory)
    if memory.id in plan.inserts:
        plan.inserts[memory.id] = (memory, plan.inserts[memory.id][1])
    else:
        plan.updates[memory.id] = memory


@dataclass(frozen=True)
class TurnOutcome:
    """What the pipeline made of one turn, ready for the SQL store."""

    turn: Turn
    job_id: str
    state: JobState  # done (memories, possibly none survive reconcile), skipped, failed
    reason: str | None = None
    memories: Sequence[Memory] = ()
    embeddings: Sequence[Sequence[float]] = ()  # one per memory, same order
    episode: Episode | None = None  # the turn as said; its `memory_ids` are filled at write time
    episode_embedding: Sequence[float] | None = None
    # the episode as `beliefs.supersession` reads it (a sincere, trusted user turn only), with its shape
    statement: Statement | None = None
    memory_statements: Sequence[Statement] = ()  # its memories', same order
