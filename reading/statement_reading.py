"""A turn's episode and memories as the currency rules read them (`beliefs.statements.Statement`).

Only a turn in the user's own trusted voice is a statement: an assistant's, a tool's, a pasted or
quoted turn never makes what the user said stale, nor is it made stale (it was never current). Its
shape (`reading.statement_shape`) says whether it corrects, changes or ends something.
"""

from __future__ import annotations

from collections.abc import Sequence

from beliefs.episodes import Episode
from beliefs.records import Memory, Role, Trust
from beliefs.statements import Statement
from reading.prepare import PreparedTurn
from reading.statement_shape import denies, read_shape
from reading.subject import statement_of


def statements_of(
    prepared: PreparedTurn,
    episode: Episode | None,
    vector: Sequence[float] | None,
    memories: Sequence[Memory],
    embeddings: Sequence[Sequence[float]],
) -> tuple[Statement | None, list[Statement]]:
    """The episode's statement (None unless a trusted user turn) and its memories' statements."""
    if episode is None or episode.role is not Role.USER or episode.trust is not Trust.TRUSTED:
        return None, []
    shape = read_shape(prepared.text)
    statement = statement_of(
        episode.id, "episode", prepared.text, episode.said_at, episode.speaker, vector, shape,
        denies=(shape is None or not shape.explicit) and denies(prepared.text),  # "not coaching this season"
    )  # fmt: skip
    vectors = list(embeddings) if len(embeddings) else [None] * len(memories)
    beliefs = [
        statement_of(m.id, "memory", m.text, m.valid_from, None, v)
        for m, v in zip(memories, vectors, strict=True)
        if m.trust is Trust.TRUSTED
    ]
    return statement, beliefs
