"""What a request asks of every item, read once per recall (pure).

`item_gates`: the request's policy (`policy.ItemGates`) as `select` applies it to beliefs and the
episode scoring to quotes; `speaks_of_user`: whether the request speaks of its user at all (when not,
the higher similarity floor applies: `reference.speaks_of_user`).
"""

from __future__ import annotations

from collections.abc import Iterable

from beliefs.episodes import Episode
from beliefs.records import Memory
from sidecar.recall import policy, reference
from sidecar.recall.config import RecallConfig
from sidecar.recall.live_intent import LiveIntent
from sidecar.recall.meaning import Meaning
from sidecar.recall.models import RecallRequest


def item_gates(
    request: RecallRequest,
    config: RecallConfig,
    domains: frozenset[str],
    meaning: Meaning | None = None,
    asked: frozenset[str] = frozenset(),
) -> policy.ItemGates:
    """The request's policy for every item (`policy.ItemGates`), as `select` applies it to beliefs;
    `domains`: the request's, as the recall read them once (`request_domains`); `meaning`: what it read
    by meaning (`sidecar.recall.meaning`); `asked`: the special-category candidates the question asks
    about (`sidecar.recall.asked`)."""
    meaning = meaning or Meaning()
    action = policy.requested_action(request.action.requested() if request.action else None, request.query)
    return policy.ItemGates(
        action=action,
        domains=domains,
        live=LiveIntent.of_request(request.live_intent, request.query),
        include_sensitive=tuple(request.include_sensitive),
        confidence_floor=config.confidence_floor,
        kinship=meaning.kinship,
        overridden=meaning.overridden,
        asked=asked,
    )


def speaks_of_user(request: RecallRequest, memories: Iterable[Memory], episodes: Iterable[Episode]) -> bool:
    """Whether the request speaks of its user (`reference.speaks_of_user`): a first-person word, a
    name the candidates hold (their text, entity or speaker), or an action the caller names for them."""
    if request.action is not None:
        return True
    memories, episodes = list(memories), list(episodes)
    return reference.speaks_of_user(  # the candidates' names are read only when the query names someone
        request.query,
        lambda: reference.names_in(
            [*(m.text for m in memories), *(e.text for e in episodes)],
            [*(m.entity for m in memories), *(e.speaker for e in episodes)],
        ),
    )

