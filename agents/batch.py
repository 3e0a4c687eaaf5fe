"""The records of one micro-batch on the write path: what was read, what it became, what it did."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from beliefs.episodes import Episode
from beliefs.records import DeadLetter, Memory, Turn
from beliefs.write_plan import TurnOutcome
from embedding.episode_vectors import EpisodeTexts
from reading.dead_letter import dead_letter as letter_of
from reading.decode import Rejection
from reading.episode_text import SessionTails
from reading.prepare import PreparedTurn


@dataclass
class BatchReport:
    """What one batch did; the benchmark and the logs read it."""

    received: int = 0
    rejected: int = 0
    replayed: int = 0
    skipped: int = 0
    failed: int = 0
    inserted: int = 0
    confirmed: int = 0
    superseded: int = 0
    contested: int = 0  # beliefs that joined a contradiction loop
    episodes: int = 0  # turns kept as said
    erased: int = 0  # turns accepted before their user's erasure: refused, nothing kept
    seconds: float = 0.0
    skip_reasons: dict[str, int] = field(default_factory=dict)
    dlq_reasons: dict[str, int] = field(default_factory=dict)
    written: dict[tuple[str, str], int] = field(default_factory=dict)  # new memories by (type, trust)
    episodes_written: dict[tuple[str, str], int] = field(default_factory=dict)  # episodes by (role, trust)


@dataclass
class ReadTurns:
    """Turns after the text steps, their memories and episodes, and the embedding of both (running)."""

    prepared: list[PreparedTurn]
    memories: list[list[Memory]]
    episodes: list[Episode | None]
    embedding: asyncio.Future | None  # float32 [memories, then episodes, dim] (`vectors_of` the texts)

    def cancel(self) -> None:
        if self.embedding is not None and not self.embedding.done():
            self.embedding.cancel()


@dataclass
class PreparedBatch:
    """A batch that went through the text steps; its embedding may still be running."""

    turns: list[Turn]
    read: ReadTurns | None  # None when the batch failed the text steps and was isolated turn by turn
    outcomes: list[TurnOutcome]
    rejections: list[Rejection]
    report: BatchReport
    started: float


@dataclass(frozen=True)
class BatchTexts:
    """What one model call embeds for a batch: every memory text, then every episode's texts
    (`embedding.episode_vectors`: joined with the turn before it, or its lines), each distinct text once."""

    memories: list[str]
    episodes: EpisodeTexts

    @classmethod
    def of(
        cls, memories: Sequence[list[Memory]], episodes: Sequence[Episode | None], tails: SessionTails, mode: str
    ) -> BatchTexts:
        return cls([m.text for per_turn in memories for m in per_turn], EpisodeTexts.of(episodes, tails, mode))

    def texts(self) -> list[str]:
        return self.memories + self.episodes.texts()

    def vectors_of(self, vectors: np.ndarray) -> np.ndarray:
        """The memories' vectors, then each episode's, from the rows of `texts()`."""
        split = len(self.memories)
        return np.concatenate([np.asarray(vectors[:split], dtype=np.float32), self.episodes.vectors(vectors[split:])])


def dead_letter(rejection: Rejection) -> DeadLetter:
    """The DLQ record of a rejected value: the reason, where it came from, and the value kept
    readable with its secrets redacted (`reading.dead_letter`)."""
    raw = rejection.raw
    return letter_of(
        rejection.reason,
        rejection.detail,
        raw.value,
        raw.key,
        topic=raw.topic,
        partition=raw.partition,
        offset=raw.offset,
    )


def batch_attributes(turns: Sequence[Turn]) -> dict[str, int | list[str]]:
    """Span attributes of a batch: how many turns, of which tenants (ids only, never text)."""
    return {"beliefstream.turns": len(turns), "beliefstream.tenant_ids": sorted({t.tenant_id for t in turns})}
