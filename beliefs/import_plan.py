"""What importing an exported belief state does to the store's current beliefs. Pure, no I/O.

An export is already a consistent belief state (its source store enforced the write rules), so the
file's rows never reconcile among themselves: ids, states and history are kept as exported. Only a
*current* imported belief meets the write rules, against the target's own current beliefs that the
file does not hold (`beliefs.reconcile.decide`):

- `supersede`: the target's belief is closed by the imported one, which is stored as exported;
- `confirm`: the target already holds that belief under another id; it is confirmed (citations,
  the stronger confidence and importance) and the imported row is kept, closed as `consolidated`
  into it, so nothing is duplicated and the file's history chains still resolve;
- `insert`, `insert_alongside`: stored as exported.

A row whose id is already stored is skipped: importing the same file twice changes nothing. History
rows (superseded, revoked, expired, contested, consolidated) are stored as they are, and so are the
user's contradiction loops (a target's own loop on the same pair is kept instead).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from beliefs import reconcile
from beliefs.contested import ContestedSlot
from beliefs.episodes import Episode
from beliefs.records import EventKind, Memory, MemoryEvent, MemoryState
from beliefs.write_plan import BeliefView, WritePlan

Embedding = Sequence[float] | None


@dataclass
class ImportCounts:
    """What one import did: rows inserted, rows skipped as already stored, target beliefs changed."""

    memories: int = 0
    episodes: int = 0
    contested: int = 0  # contradiction loops (contested pairs)
    skipped: int = 0
    superseded: int = 0  # target beliefs closed by an imported current one
    confirmed: int = 0  # target beliefs that already said what an imported one says

    def add(self, other: ImportCounts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class ImportPlan:
    """The rows to write (a `WritePlan` the store applies like any other) and what they amount to."""

    plan: WritePlan = field(default_factory=WritePlan)
    counts: ImportCounts = field(default_factory=ImportCounts)


def plan_import(
    memories: Sequence[tuple[Memory, Embedding]],
    episodes: Sequence[tuple[Episode, Embedding]],
    contested: Sequence[ContestedSlot] = (),
    *,
    stored_ids: set[str],
    target: BeliefView,
    now: datetime,
) -> ImportPlan:
    """Plan the import of one user's rows; `target` holds the target's current beliefs not in the file.

    `memories` come in the file's order (creation order); `stored_ids` are the ids (of memories,
    episodes and contested pairs) already in the target store.
    """
    result = ImportPlan()
    plan, counts = result.plan, result.counts
    for memory, embedding in memories:
        if memory.id in stored_ids or memory.id in plan.inserts:
            counts.skipped += 1
            continue
        counts.memories += 1
        if not memory.is_current:
            plan.inserts[memory.id] = (memory, embedding)
            continue
        decision = reconcile.decide(memory, target.candidates(memory))
        if decision.action == "confirm":
            kept = target.get(decision.target_ids[0])
            _change(plan, target, reconcile.confirmed(kept, memory))
            plan.events.append(MemoryEvent.about(EventKind.CONFIRMED, target.get(kept.id), now))
            merged = {"state": MemoryState.CONSOLIDATED, "valid_until": now, "superseded_by": kept.id}
            plan.inserts[memory.id] = (memory.model_copy(update=merged), embedding)
            counts.confirmed += 1
            continue
        plan.inserts[memory.id] = (memory, embedding)
        plan.events.append(MemoryEvent.about(EventKind.CREATED, memory, now))
        if decision.action == "supersede":
            for target_id in decision.target_ids:
                closed = reconcile.superseded(target.get(target_id), memory)
                _change(plan, target, closed)
                plan.events.append(MemoryEvent.about(EventKind.SUPERSEDED, closed, now))
                counts.superseded += 1
    for episode, embedding in episodes:
        if episode.id in stored_ids or episode.id in plan.episodes:
            counts.skipped += 1
            continue
        plan.episodes[episode.id] = (episode, embedding)
        counts.episodes += 1
    for slot in contested:
        if slot.id in stored_ids or slot.id in plan.contested:
            counts.skipped += 1
            continue
        plan.contested[slot.id] = slot
        counts.contested += 1
    return result


def _change(plan: WritePlan, view: BeliefView, memory: Memory) -> None:
    """A target row's new version: its update, and the view the next imported belief meets."""
    view.put(memory)
    plan.updates[memory.id] = memory
