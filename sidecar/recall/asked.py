"""Which special-category candidates the question asks about, so they bear on it (pure).

The sensitivity gate keeps a special-category fact (health, location, finances…) out of a request
whose words place it in no domain of the fact's. A question can ask about the fact itself in words no
domain list holds ("What's my postcode?", "My GP wants to prescribe amoxicillin, anything I should
mention?"): the fact is then what it asks about, and bears on it. A candidate is asked about when the
query speaks of its user and the candidate's cosine to it reaches `RecallConfig.asked_min_similarity`
(a belief, or a turn, or a belief that turn stated). Several statements of one thing reach it alike
(the old postcode and the corrected one): only the turn said last that reaches it, sensitive or not,
passes, with the beliefs it stated;
an older one stays behind its gate, and so does a belief an older turn stated (a later turn linked to
it may retract it), so the bypass never brings back what a later statement replaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from beliefs.episodes import Episode
from beliefs.records import Memory
from sidecar.recall.config import RecallConfig
from sidecar.recall.floor import asked_about
from sidecar.recall.fusion import Signals


def asked_ids(
    memories: Iterable[Memory],
    episodes: Iterable[Episode],
    signals: Mapping[str, Signals],
    episode_signals: Mapping[str, Signals],
    config: RecallConfig,
    impersonal: bool = False,
) -> frozenset[str]:
    """The ids (beliefs and turns) of the special-category statement said last that the question asks about."""
    if impersonal:
        return frozenset()
    beliefs = {m.id: m for m in memories}
    episodes = list(episodes)
    said: list[tuple[datetime, frozenset[str]]] = []
    stated: set[str] = set()
    first_said: dict[str, datetime] = {}  # a belief restated later was first said by its oldest turn
    for episode in episodes:
        for memory_id in episode.memory_ids:
            first_said[memory_id] = min(first_said.get(memory_id, episode.said_at), episode.said_at)
    for episode in episodes:
        linked = [beliefs[i] for i in episode.memory_ids if i in beliefs]
        stated.update(m.id for m in linked)
        asked = asked_about(episode_signals.get(episode.id), config) or any(
            asked_about(signals.get(m.id), config) for m in linked
        )
        if asked:
            said.append((episode.said_at, frozenset({episode.id, *episode.memory_ids})))
    for memory in beliefs.values():  # a belief whose turn was not read: dated by when it became true
        if memory.id not in stated and asked_about(signals.get(memory.id), config):
            said.append((memory.valid_from, frozenset({memory.id})))
    if not said:
        return frozenset()
    last, ids = max(said, key=lambda pair: pair[0])
    return frozenset(i for i in ids if first_said.get(i, last) >= last)  # not a belief an older turn stated
