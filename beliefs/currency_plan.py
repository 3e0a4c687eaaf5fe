"""Updates by subject in the write plan: the links `beliefs.supersession.judge` finds, applied (pure).

After a turn's own memories are reconciled, its statement (the episode, with the shape of what it
says) is judged against the earlier statements of the same user, scope and speaker: those the store
loaded and those of earlier turns of the batch. A linked episode gets `superseded_by` (firm) or
`possibly_superseded_by`, with `superseded_at`; a firm link never becomes a possible one again. Its
current beliefs follow when they speak of the subject themselves (a belief judged on its own text,
or one sharing terms with the new statement): a firm link supersedes them (`superseded_by` the new
turn's closest memory, else its episode), a possible one marks them `possibly_superseded_by`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from beliefs.episodes import Episode
from beliefs.records import EventKind, Memory, MemoryEvent, MemoryState
from beliefs.statements import Link, Statement
from beliefs.supersession import judge

#: (tenant, user, private_to) of a statement: a write only ever touches its own scope.
Scope = tuple[str, str, str | None]


def scope_of(episode: Episode) -> Scope:
    owner = (episode.agent_id or "") if episode.visibility.value == "agent" else None
    return (episode.tenant_id, episode.user_id, owner)


@dataclass
class CurrencyBook:
    """What the plan knows of earlier statements: loaded by the store, then each turn's as it is planned."""

    statements: dict[Scope, list[Statement]] = field(default_factory=dict)
    memory_statements: dict[str, Statement] = field(default_factory=dict)  # current beliefs, by id
    episodes: dict[str, Episode] = field(default_factory=dict)  # the loaded earlier episodes
    changed: dict[str, Episode] = field(default_factory=dict)  # existing episodes, final version

    def remember(self, scope: Scope, statement: Statement) -> None:
        self.statements.setdefault(scope, []).append(statement)


def link_turn(
    newer: Statement,
    scope: Scope,
    book: CurrencyBook,
    own_memory_ids: Sequence[str],
    current: Callable[[str], Memory | None],
    episode_of: Callable[[str], Episode | None],
) -> tuple[list[Link], list[Memory], list[Episode]]:
    """The links of one turn's statement, the beliefs they change (new versions) and the episodes.

    `current(id)` answers a belief that is still current (else None); `episode_of(id)` an earlier
    episode as the plan has it (pending insert or loaded row).
    """
    earlier = book.statements.get(scope, [])
    links = judge(newer, earlier)
    changed_memories: dict[str, Memory] = {}
    changed_episodes: list[Episode] = []
    by_id = {s.id: s for s in earlier}
    for link in links:
        episode = episode_of(link.older_id)
        if episode is None:
            continue
        updated = linked_episode(episode, link)
        if updated is not episode:
            changed_episodes.append(updated)
        for memory_id in by_id[link.older_id].memory_ids:
            memory = current(memory_id)
            if memory is None or memory_id in own_memory_ids or memory_id in changed_memories:
                continue
            follows = _belief_link(newer, link, book.memory_statements.get(memory_id))
            if follows is not None:
                changed_memories[memory_id] = linked_memory(memory, follows, newer, own_memory_ids, book)
    return links, list(changed_memories.values()), changed_episodes


def _belief_link(newer: Statement, link: Link, belief: Statement | None) -> Link | None:
    """How a belief of a linked episode follows it: as judged on its own text; else, when the whole
    turn was linked by its subject, possibly superseded (never left alone as current); a turn linked
    by one value it named ("cancelled the Economist") leaves its other beliefs alone."""
    own = judge(newer, [belief]) if belief is not None else []
    if own:
        return own[0]
    if " names " in link.reason:
        return None
    return replace(link, firm=False, reason=f"{link.reason}; its turn was linked")


def linked_episode(episode: Episode, link: Link) -> Episode:
    """`episode` with the link; a firm link is never weakened, the same link changes nothing."""
    if episode.superseded_by is not None:
        return episode
    if link.firm:
        return episode.model_copy(
            update={"superseded_by": link.newer_id, "possibly_superseded_by": None, "superseded_at": link.at}
        )
    if episode.possibly_superseded_by is not None:
        return episode
    return episode.model_copy(update={"possibly_superseded_by": link.newer_id, "superseded_at": link.at})


def linked_memory(
    memory: Memory, link: Link, newer: Statement, own_memory_ids: Sequence[str], book: CurrencyBook
) -> Memory:
    """A belief after a link: closed (firm) or marked possibly superseded, naming the newer item."""
    by = _closest(newer, own_memory_ids, book, memory) or newer.id
    if link.firm:
        return memory.model_copy(
            update={"valid_until": link.at, "superseded_by": by, "state": MemoryState.SUPERSEDED}
        )
    if memory.possibly_superseded_by is not None:
        return memory
    return memory.model_copy(update={"possibly_superseded_by": by, "possibly_superseded_at": link.at})


def _closest(newer: Statement, own_memory_ids: Sequence[str], book: CurrencyBook, memory: Memory) -> str | None:
    """Of the new turn's memories, the one sharing most terms with `memory`'s statement."""
    mine = book.memory_statements.get(memory.id)
    best, best_shared = None, -1
    for memory_id in own_memory_ids:
        statement = book.memory_statements.get(memory_id)
        shared = len(statement.terms & mine.terms) if statement is not None and mine is not None else 0
        if shared > best_shared:
            best, best_shared = memory_id, shared
    return best


def superseded_events(memories: Sequence[Memory], turn_id: str) -> list[MemoryEvent]:
    """`superseded` events of the beliefs a link closed (a possible link changes no state: no event)."""
    return [
        MemoryEvent.about(EventKind.SUPERSEDED, m, m.valid_until, turn_id)
        for m in memories
        if m.state is MemoryState.SUPERSEDED
    ]

