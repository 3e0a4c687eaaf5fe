"""What the store is asked to write for each turn of a read batch: its outcome.

A turn with memories is `done` with their vectors and statements; one without is `skipped` (its
reason says why) and still carries its episode; a turn a step or the store refused is `failed`.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.batch import ReadTurns
from beliefs.records import JobState, Turn, job_id_for
from beliefs.write_plan import TurnOutcome
from reading.statement_reading import statements_of


def turn_outcomes(read: ReadTurns, vectors: Sequence) -> list[TurnOutcome]:
    """One outcome per turn. A turn without memories is `skipped` (its reason says why) and
    still carries its episode: the job's `episode_id` says it was kept as said."""
    outcomes: list[TurnOutcome] = []
    at = 0
    episode_at = sum(len(per_turn) for per_turn in read.memories)
    for p, per_turn, episode in zip(read.prepared, read.memories, read.episodes, strict=True):
        job_id = job_id_for(p.turn.tenant_id, p.turn.turn_id)
        episode_vector = None
        if episode is not None:
            episode_vector = vectors[episode_at]  # float32 rows; the sinks encode them
            episode_at += 1
        if p.skip_reason is not None:
            outcomes.append(
                TurnOutcome(p.turn, job_id, JobState.SKIPPED, p.skip_reason, (), (), episode, episode_vector)
            )
            continue
        embeddings = list(vectors[at : at + len(per_turn)])
        at += len(per_turn)
        state, reason = (JobState.DONE, None) if per_turn else (JobState.SKIPPED, "no_memory_extracted")
        statement, memory_statements = statements_of(p, episode, episode_vector, per_turn, embeddings)
        outcomes.append(
            TurnOutcome(
                p.turn, job_id, state, reason, per_turn, embeddings, episode, episode_vector,
                statement, memory_statements,
            )
        )  # fmt: skip
    return outcomes


def failed_outcome(turn: Turn, reason: str) -> TurnOutcome:
    """The outcome of a turn a step or the store refused: its job fails with `reason`."""
    return TurnOutcome(turn, job_id_for(turn.tenant_id, turn.turn_id), JobState.FAILED, reason)
