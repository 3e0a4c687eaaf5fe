"""Builders of episode tests: turns kept as episodes, written the way the write path writes them."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from beliefs.episodes import Episode
from beliefs.records import JobState, Memory, Role, Turn, job_id_for
from beliefs.write_plan import TurnOutcome
from reading.episode_keeping import episode_of

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
VECTOR = [0.5, -0.25, 1.0]
_turns = itertools.count(1)


def said(
    tenant: str,
    text: str,
    *,
    user: str = "u1",
    session: str | None = "s1",
    minute: int | None = None,
    role: Role = Role.USER,
    agent: str | None = None,
    private: bool = False,
    speaker: str | None = None,
    turn_id: str | None = None,
) -> Turn:
    """A turn (minute `minute` after T0, or the next free minute) of the tenant's user."""
    n = next(_turns)
    metadata: dict = {}
    if private:
        metadata["visibility"] = "agent"
    if speaker:
        metadata["speaker"] = speaker
    return Turn(
        turn_id=turn_id or f"t{n:05d}",
        tenant_id=tenant,
        user_id=user,
        agent_id=agent,
        session_id=session,
        role=role,
        text=text,
        ts=T0 + timedelta(minutes=n if minute is None else minute),
        metadata=metadata,
    )


def episode(turn: Turn, retention_days: float = 0.0, junk_reason: str | None = None) -> Episode:
    return episode_of(turn, turn.text, junk_reason, turn.ts, retention_days)


def kept(
    turn: Turn,
    *memories: Memory,
    embedding: Sequence[float] | None = VECTOR,
    retention_days: float = 0.0,
    junk_reason: str | None = None,
) -> TurnOutcome:
    """The outcome of a turn kept as an episode: `done` with its memories, else `skipped`."""
    state, reason = (JobState.DONE, None) if memories else (JobState.SKIPPED, "no_memory_extracted")
    return TurnOutcome(
        turn,
        job_id_for(turn.tenant_id, turn.turn_id),
        state,
        reason,
        memories,
        [VECTOR] * len(memories),
        episode(turn, retention_days, junk_reason),
        embedding,
    )
