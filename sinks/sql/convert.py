"""Conversions between records and rows: memories, episodes, embeddings, jobs and list cursors."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from beliefs.episodes import Episode
from beliefs.reconcile import text_fingerprint
from beliefs.records import Job, Memory, utcnow
from sinks.sql.errors import InvalidCursorError
from sinks.sql.row_builder import row_builder

#: Memory fields stored as enum strings.
_ENUM_FIELDS = ("visibility", "type", "polarity", "recall_semantics", "source_role", "trust", "state")

#: Columns an update of an existing memory may change (reconcile, revoke, decay).
MUTABLE_FIELDS = (
    "confidence",
    "importance",
    "trust",
    "state",
    "valid_until",
    "superseded_by",
    "revoked_at",
    "last_confirmed",
    "source_turn_ids",
    "possibly_superseded_by",
    "possibly_superseded_at",
)

_MEMORY_FIELDS = tuple(Memory.model_fields)
EPISODE_FIELDS = tuple(Episode.model_fields)
_EPISODE_ENUMS = ("visibility", "role", "trust", "state")


def encode_embedding(vector: Sequence[float] | None) -> bytes | None:
    """float32, little-endian: compact and the same bytes on every platform."""
    if vector is None:
        return None
    return np.asarray(vector, dtype="<f4").tobytes()


def decode_embedding(blob: bytes | None) -> list[float] | None:
    if blob is None:
        return None
    return np.frombuffer(blob, dtype="<f4").tolist()


def memory_row(memory: Memory, embedding: Sequence[float] | None) -> dict[str, Any]:
    """The `memories` row of a memory; a row with an embedding needs its vector point written.

    The embedding itself goes to `memory_embeddings` (`embedding_row`).
    """
    row = memory.model_dump(mode="python")
    for name in _ENUM_FIELDS:
        row[name] = row[name].value if hasattr(row[name], "value") else row[name]
    row["vector_dirty"] = embedding is not None
    row["vector_version"] = 1
    row["vector_dirty_at"] = utcnow() if embedding is not None else None
    row["text_norm_hash"] = text_fingerprint(memory.text)
    return row


def embedding_row(memory_id: str, embedding: Sequence[float]) -> dict[str, Any]:
    """The `memory_embeddings` row of a memory's embedding."""
    return {"memory_id": memory_id, "embedding": encode_embedding(embedding)}


def memory_changes(memory: Memory) -> dict[str, Any]:
    """The mutable columns of a memory, for an update by id."""
    row = {name: getattr(memory, name) for name in MUTABLE_FIELDS}
    row["trust"] = memory.trust.value
    row["state"] = memory.state.value
    row["source_turn_ids"] = list(memory.source_turn_ids)
    return row


def row_memory(row: Mapping[str, Any]) -> Memory:
    """A memory from its row (extra columns such as the embedding are ignored)."""
    return Memory.model_validate({name: row[name] for name in _MEMORY_FIELDS})


#: A memory from a row of the store's own `memories` whose first columns are its fields in order
#: (`Memory.model_fields`), typed as the columns give them: built, not validated again (`row_builder`),
#: since recall converts tens of rows on each request. The other reads validate (`row_memory`).
memory_of: Callable[[Sequence[Any]], Memory] = row_builder(Memory)


def episode_row(episode: Episode, embedding: Sequence[float] | None) -> dict[str, Any]:
    """The `episodes` row of an episode; a row with an embedding needs its vector point written."""
    row = episode.model_dump(mode="python")
    for name in _EPISODE_ENUMS:
        row[name] = row[name].value if hasattr(row[name], "value") else row[name]
    row["vector_dirty"] = embedding is not None
    row["vector_version"] = 1
    row["vector_dirty_at"] = utcnow() if embedding is not None else None
    return row


def episode_embedding_row(episode_id: str, embedding: Sequence[float]) -> dict[str, Any]:
    return {"episode_id": episode_id, "embedding": encode_embedding(embedding)}


def row_episode(row: Mapping[str, Any]) -> Episode:
    """An episode from its row (extra columns are ignored)."""
    return Episode.model_validate({name: row[name] for name in EPISODE_FIELDS})


#: An episode from a row of the store's own `episodes` whose first columns are its fields in order
#: (`EPISODE_FIELDS`), typed as the columns give them: built, not validated again (`row_builder`).
episode_of: Callable[[Sequence[Any]], Episode] = row_builder(Episode)


def job_row(job: Job) -> dict[str, Any]:
    row = job.model_dump(mode="python")
    row["state"] = job.state.value
    row["visibility"] = job.visibility.value
    return row


def row_job(row: Mapping[str, Any]) -> Job:
    """A job row as a record; a row written before migration 0009 (no visibility) is a shared turn's."""
    fields = {name: row[name] for name in Job.model_fields}
    if fields["visibility"] is None:
        del fields["visibility"]
    return Job.model_validate(fields)


def encode_cursor(created_at: datetime, memory_id: str) -> str:
    """An opaque keyset cursor: the (created_at, id) of the last row of a page."""
    raw = json.dumps([created_at.isoformat(), memory_id]).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        moment, memory_id = json.loads(raw)
        return datetime.fromisoformat(moment), str(memory_id)
    except (ValueError, TypeError) as exc:
        raise InvalidCursorError(f"not a cursor of this listing: {cursor!r}") from exc
