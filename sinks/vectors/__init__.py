"""The vector side of the sinks: Qdrant Edge embedded by default, a Qdrant server when configured.

make_vector_index(settings)
├── settings.qdrant_url set  → QdrantServerIndex   (sinks.vectors.server)
└── otherwise                → EdgeVectorIndex     (sinks.vectors.edge, under settings.vectors_path)
"""

from __future__ import annotations

from sinks.base import VectorIndex
from sinks.vectors.edge import EdgeVectorIndex
from sinks.vectors.server import QdrantServerIndex
from streams.settings import Settings

__all__ = ["EdgeVectorIndex", "QdrantServerIndex", "make_vector_index"]


def make_vector_index(settings: Settings, dim: int = 384) -> VectorIndex:
    """The index the settings ask for; nothing is opened until `setup()`."""
    if settings.qdrant_url:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantServerIndex(
            url=settings.qdrant_url, api_key=api_key, collection=settings.qdrant_collection, dim=dim
        )
    return EdgeVectorIndex(settings.vectors_path, dim=dim)
