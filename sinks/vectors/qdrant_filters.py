"""How beliefstream's scope and ids map onto Qdrant, shared by the embedded and the server index.

Scope is a hard filter pushed into the vector query, never a post-filter: a point of another tenant
or user must not even be a candidate. `qdrant_edge` and `qdrant_client.models` spell filters with
the same class and keyword names, so one builder serves both; the caller passes the module.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from sinks.base import EPISODE_KIND, MEMORY_KIND, VectorFilter, VectorHit, VectorPoint

#: Payload fields with a keyword index; `tenant_id` is also the tenant-partitioning field.
INDEXED_FIELDS = ("tenant_id", "user_id", "agent_id", "state", "type", "topic", "visibility", "kind")
#: Every payload `kind`; a point without one (written before episodes existed) is a memory.
KINDS = (MEMORY_KIND, EPISODE_KIND)
TENANT_FIELD = "tenant_id"
#: Payload key holding the memory id as given, since Qdrant point ids must be UUIDs or integers.
MEMORY_ID_KEY = "memory_id"

_POINT_ID_NAMESPACE = uuid.UUID("0b8f7c52-6a59-4f0e-9d51-2f8f4c7a1e63")


def point_id(memory_id: str) -> str:
    """The Qdrant point id of a memory: its own id when it is a UUID (the norm), else a UUIDv5 of it."""
    if not isinstance(memory_id, str) or not memory_id:
        raise ValueError(f"a memory id must be a non-empty string, got {memory_id!r}")
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return str(uuid.uuid5(_POINT_ID_NAMESPACE, memory_id))


def is_point_id(memory_id: str) -> bool:
    """True when the memory id is its own point id (a canonical UUID): a hit's id then needs no payload."""
    try:
        return str(uuid.UUID(memory_id)) == memory_id
    except (ValueError, TypeError, AttributeError):
        return False


def checked_vector(vector: Sequence[float], dim: int) -> list[float]:
    """The vector as a list of floats, refused when its size or values cannot be searched."""
    values = np.asarray(vector, dtype=np.float32)
    if values.ndim != 1 or values.shape[0] != dim:
        raise ValueError(f"vector has {values.size} dimensions, the index expects {dim}")
    if not np.isfinite(values).all():
        raise ValueError("vector contains NaN or infinity")
    return values.tolist()


def point_payload(memory_id: str, payload: dict) -> dict:
    """The stored payload: the caller's fields plus the original memory id."""
    return {**payload, MEMORY_ID_KEY: memory_id}


def to_hit(point: Any) -> VectorHit:
    """A scored point of either client as a hit carrying the memory id it was written with."""
    payload = point.payload or {}
    return VectorHit(id=str(payload.get(MEMORY_ID_KEY) or point.id), score=float(point.score))


def to_stored(point: Any) -> VectorPoint:
    """A scrolled point of either client as the memory (or episode) id it was written with, its
    vector as stored (empty when not read) and its payload without that id."""
    payload = dict(point.payload or {})
    vector = point.vector  # read once: Edge builds the list at each read
    vector = vector if isinstance(vector, list) else ()
    return VectorPoint(id=str(payload.pop(MEMORY_ID_KEY, None) or point.id), vector=vector, payload=payload)


def scope_filter(scope: VectorFilter, models: ModuleType) -> Any:
    """tenant AND user AND state AND kind AND (not agent-private OR own agent) [AND type] [AND topic]."""
    if not scope.tenant_id or not scope.user_id:
        raise ValueError("a vector search needs both a tenant_id and a user_id")
    must = [
        _match(models, "tenant_id", scope.tenant_id),
        _match(models, "user_id", scope.user_id),
        _match_any(models, "state", scope.states),
    ]
    must_not = []
    kinds = set(map(_plain, scope.kinds))
    unknown = kinds - set(KINDS)
    if unknown or not kinds:
        raise ValueError(f"kinds must be some of {KINDS}, got {sorted(kinds)}")
    if MEMORY_KIND in kinds:  # memories carry no kind when written before episodes: exclude the others
        others = [kind for kind in KINDS if kind not in kinds]
        if others:
            must_not.append(_match_any(models, "kind", others))
    else:
        must.append(_match_any(models, "kind", sorted(kinds)))
    if scope.types:
        must.append(_match_any(models, "type", scope.types))
    if scope.topics:
        must.append(_match_any(models, "topic", scope.topics))
    private = _match(models, "visibility", "agent")
    if scope.agent_ids:  # not agent-private, or one of these agents'
        must.append(models.Filter(should=[models.Filter(must_not=[private]), _match_any(models, "agent_id", scope.agent_ids)]))
    else:  # the same condition without nesting: Edge takes in a nested filter at several times the cost
        must_not.append(private)
    return models.Filter(must=must, must_not=must_not or None)


def tenant_filter(tenant_id: str | None, models: ModuleType) -> Any | None:
    """Every point of one tenant, or None for the whole index."""
    if tenant_id is None:
        return None
    return models.Filter(must=[_match(models, TENANT_FIELD, tenant_id)])


def search_vector(vector: Sequence[float], scope: VectorFilter, limit: int, dim: int) -> list[float] | None:
    """The checked query vector, or None when the answer is empty without asking (limit 0, no state)."""
    if limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    query = checked_vector(vector, dim)
    if limit == 0 or not scope.states:
        return None
    return query


def group_payloads(payloads: dict[str, dict]) -> list[tuple[dict, list[str]]]:
    """Points sharing the same payload update, so each distinct update is one operation."""
    groups: dict[tuple, tuple[dict, list[str]]] = {}
    for memory_id, payload in payloads.items():
        key = tuple(sorted((k, repr(v)) for k, v in payload.items()))
        groups.setdefault(key, (payload, []))[1].append(point_id(memory_id))
    return list(groups.values())


def _match(models: ModuleType, key: str, value: str) -> Any:
    return models.FieldCondition(key=key, match=models.MatchValue(value=_plain(value)))


def _match_any(models: ModuleType, key: str, values: Sequence[str]) -> Any:
    """`key` is one of `values`; a single value is an equality match (the same points, and Edge
    builds it for a fraction of a list match's cost)."""
    if len(values) == 1:
        return _match(models, key, values[0])
    return models.FieldCondition(key=key, match=models.MatchAny(any=[_plain(v) for v in values]))


def _plain(value: Any) -> str:
    """Enum members (MemoryState, MemoryType) as their stored string value."""
    return str(getattr(value, "value", value))
