"""A memory or episode row beside its embedding: the outer joins that read both, and the EXISTS
test for a row that has one (so a vector point to keep in step). The embeddings sit in tables of
their own (`memory_embeddings`, `episode_embeddings`) so that recall's row reads stay small.
"""

from __future__ import annotations

import sqlalchemy as sa

from sinks.sql.tables import episode_embeddings, episodes, memories, memory_embeddings

_EMBEDDING_OF_MEMORY = memory_embeddings.c.memory_id == memories.c.id

#: `memories` beside each row's embedding, if it has one (select `memory_embeddings.c.embedding` from it).
memories_with_embeddings = memories.outerjoin(memory_embeddings, _EMBEDDING_OF_MEMORY)


def has_embedding() -> sa.Exists:
    """True for a memory row with an embedding, i.e. one that has a vector point to keep in step."""
    return sa.exists().where(_EMBEDDING_OF_MEMORY)


_EMBEDDING_OF_EPISODE = episode_embeddings.c.episode_id == episodes.c.id

#: `episodes` beside each row's embedding, if it has one.
episodes_with_embeddings = episodes.outerjoin(episode_embeddings, _EMBEDDING_OF_EPISODE)


def episode_has_embedding() -> sa.Exists:
    """True for an episode row with an embedding, i.e. one that has a vector point to keep in step."""
    return sa.exists().where(_EMBEDDING_OF_EPISODE)
