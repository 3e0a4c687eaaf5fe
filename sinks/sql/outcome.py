"""The store's check of a batch it is handed: every outcome finished, its memories its own."""

from __future__ import annotations

from beliefs.episodes import episode_id_for
from beliefs.records import JobState
from beliefs.write_plan import FINISHED, TurnOutcome
from sinks.sql.errors import InvalidOutcomeError


def check_outcome(outcome: TurnOutcome) -> None:
    """Reject an outcome whose memories do not belong to its turn."""
    if outcome.state not in FINISHED:
        raise InvalidOutcomeError(f"job {outcome.job_id}: an outcome must be done, skipped or failed")
    if outcome.state is not JobState.DONE and outcome.memories:
        raise InvalidOutcomeError(f"job {outcome.job_id}: a {outcome.state.value} turn carries no memories")
    if len(outcome.embeddings) and len(outcome.embeddings) != len(outcome.memories):
        raise InvalidOutcomeError(
            f"job {outcome.job_id}: {len(outcome.embeddings)} embeddings for {len(outcome.memories)} memories"
        )
    turn = outcome.turn
    for memory in outcome.memories:
        if (memory.tenant_id, memory.user_id) != (turn.tenant_id, turn.user_id):
            raise InvalidOutcomeError(f"job {outcome.job_id}: memory {memory.id} belongs to another user")
    episode = outcome.episode
    if episode is None:
        return
    if outcome.state is JobState.FAILED:
        raise InvalidOutcomeError(f"job {outcome.job_id}: a failed turn carries no episode")
    if (episode.tenant_id, episode.user_id, episode.turn_id) != (turn.tenant_id, turn.user_id, turn.turn_id) or (
        episode.id != episode_id_for(turn.tenant_id, turn.turn_id)
    ):
        raise InvalidOutcomeError(f"job {outcome.job_id}: episode {episode.id} is not this turn's")
