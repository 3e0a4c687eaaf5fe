"""Contested slots in a write plan: when a claim joins a contradiction loop instead of resolving it.

`LoopBook` holds, for the pairs (tenant, user, entity, attribute) of one batch, their recent
supersessions and contested slot, loaded by the store before planning. Everything is kept per
scope (`ScopedPair`): a loop in one agent's private beliefs is not the user's shared loop, and the
supersessions of one never count towards the other. `plan_write` asks it about
each claim before applying reconcile's decision; a claim on an open slot, or the one that makes a
loop (`beliefs.loops`), is stored `contested` together with the pair's current memories, and the
book keeps counting as the batch supersedes. Pure: no I/O here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from beliefs import loops
from beliefs.loops import Pair
from beliefs.reconcile import Decision
from beliefs.records import Memory, MemoryState

Status = Literal["open", "resolved"]

#: A pair and whose beliefs it is about: None = the user's shared ones, else one agent's private ones.
ScopedPair = tuple[Pair, str | None]


@dataclass(frozen=True)
class ContestedSlot:
    """One row of `contested_slots`."""

    id: str
    tenant_id: str
    user_id: str
    entity: str
    attribute: str
    status: Status
    value_history: list[dict[str, Any]]
    opened_at: datetime
    resolved_at: datetime | None = None
    resolution: dict[str, Any] | None = None
    agent_id: str | None = None  # the agent whose private beliefs loop; None = the user's shared ones

    @property
    def pair(self) -> Pair:
        return (self.tenant_id, self.user_id, self.entity, self.attribute)

    @property
    def key(self) -> ScopedPair:
        return (self.pair, self.agent_id)

    @property
    def is_open(self) -> bool:
        return self.status == "open"


@dataclass(frozen=True)
class Contest:
    """What one claim does to a contested pair: store it and `contest` as contested, keep `slot`."""

    memory: Memory  # the new claim, state contested
    contest: list[Memory]  # the pair's current memories, now contested
    slot: ContestedSlot
    opened: bool  # a new loop: escalate


@dataclass
class LoopBook:
    """Recent supersessions and contested slots of a batch's pairs, kept current while planning."""

    superseded: dict[ScopedPair, list[Memory]] = field(default_factory=dict)  # in the window, with valid_until
    slots: dict[ScopedPair, ContestedSlot] = field(default_factory=dict)
    threshold: int = loops.DEFAULT_THRESHOLD
    window_days: float = loops.DEFAULT_WINDOW_DAYS

    def check(self, new: Memory, decision: Decision, candidates: Sequence[Memory]) -> Contest | None:
        """A `Contest` when `new` lands on an open slot or would supersede its pair once too often."""
        pair = loops.pair_of(new)
        if pair is None or not new.is_current:
            return None
        key = (pair, new.private_to)
        slot = self.slots.get(key)
        family = [
            m
            for m in candidates
            if m.is_current and loops.pair_of(m) == pair and m.private_to == new.private_to and m.id != new.id
        ]
        if slot is not None and slot.is_open:
            return self._contest(slot, new, family, opened=False)
        disputed = {m.id for m in loops.contends(new, family)}
        if decision.action == "supersede":
            disputed |= set(decision.target_ids)
        if not disputed:
            return None
        since = slot.resolved_at if slot is not None else None
        times = loops.counted_supersessions(self._times(key), since)
        if not loops.is_contradiction_loop([*times, new.valid_from], new.valid_from, self.threshold, self.window_days):
            return None
        window = new.valid_from - timedelta(days=self.window_days)
        recent = [m for m in self.superseded.get(key, []) if m.valid_until and m.valid_until > window]
        opened = ContestedSlot(
            id=loops.contested_id(pair, new.private_to),
            tenant_id=pair[0],
            user_id=pair[1],
            entity=pair[2],
            attribute=pair[3],
            status="open",
            value_history=loops.value_history([], [m for m in recent if since is None or m.valid_until > since]),
            opened_at=new.valid_from,
            agent_id=new.private_to,
        )
        return self._contest(opened, new, family, opened=True)

    def record_supersession(self, closed: Memory) -> None:
        """A memory of the batch closed by reconcile: it counts towards its pair's loop."""
        pair = loops.pair_of(closed)
        if pair is not None:
            self.superseded.setdefault((pair, closed.private_to), []).append(closed)

    def _times(self, key: ScopedPair) -> list[datetime]:
        return [m.valid_until for m in self.superseded.get(key, []) if m.valid_until is not None]

    def _contest(self, slot: ContestedSlot, new: Memory, family: Iterable[Memory], opened: bool) -> Contest:
        contested = [_contested(m) for m in family]
        claim = _contested(new)
        slot = replace(slot, value_history=loops.value_history(slot.value_history, [*contested, claim]))
        self.slots[slot.key] = slot
        return Contest(memory=claim, contest=contested, slot=slot, opened=opened)


def _contested(memory: Memory) -> Memory:
    return memory.model_copy(update={"state": MemoryState.CONTESTED})
