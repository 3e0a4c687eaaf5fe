"""Recall filters a caller asks for: a time range on `valid_from`, memory types, topics, one agent.

They narrow which memories are eligible, after hydration and before selection, so every other
rule of recall (scope, currency, conflicts, budget) applies to what is left unchanged. Pure: the
request and the candidates in, the candidates that pass out. Without any filter nothing changes.
Quotes (episodes) pass the time range by when they were said (`said_at`) and the agent filter by
their `agent_id`; a quote has no type or topic, so a request naming types or topics gets none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from beliefs.episodes import Episode
from beliefs.records import Memory, MemoryType, as_utc


class Filtered(Protocol):
    """The filter fields of a recall request (`sidecar.recall.models.RecallRequest`)."""

    since: object
    until: object
    types: Sequence[MemoryType] | None
    topics: Sequence[str] | None
    agent: str | None


def narrows(request: Filtered) -> bool:
    """Does the request ask for any filter? (Recall then fetches more candidates.)"""
    return any(value is not None for value in (request.since, request.until, request.types, request.topics,
                                               request.agent))


def passes(memory: Memory, request: Filtered) -> bool:
    """Does `memory` pass every filter the request names?"""
    if request.since is not None and as_utc(memory.valid_from) < as_utc(request.since):
        return False
    if request.until is not None and as_utc(memory.valid_from) > as_utc(request.until):
        return False
    if request.types is not None and memory.type not in request.types:
        return False
    if request.topics is not None and memory.topic not in request.topics:
        return False
    return request.agent is None or memory.agent_id == request.agent


def narrowed(
    request: Filtered, hydrated: Sequence[Memory], pinned: Sequence[Memory]
) -> tuple[list[Memory], list[Memory]]:
    """The hydrated candidates and pinned memories that pass the request's filters."""
    if not narrows(request):
        return list(hydrated), list(pinned)
    return [m for m in hydrated if passes(m, request)], [m for m in pinned if passes(m, request)]


def quotes_allowed(request: Filtered) -> bool:
    """Can quotes answer this request? Not when it asks for memory types or topics (a quote has none)."""
    return request.types is None and request.topics is None


def said_within(episode: Episode, request: Filtered) -> bool:
    """Does `episode` pass the request's time range (on `said_at`) and agent filter?"""
    if request.since is not None and as_utc(episode.said_at) < as_utc(request.since):
        return False
    if request.until is not None and as_utc(episode.said_at) > as_utc(request.until):
        return False
    return request.agent is None or episode.agent_id == request.agent
