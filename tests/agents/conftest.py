"""Fixtures of the agents' tests that need the SQL store (decay and consolidation) or the whole write
path (the rules extractor, the real embedder, SQL and an Edge shard, a recording producer)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from projection import projector_of
from recording_producer import RecordingProducer

from agents.pipeline import WritePipeline
from embedding.embedder import load_default_embedder
from reading.extract.rules import RulesExtractor
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings


@pytest.fixture
async def store(sql_url: str) -> AsyncIterator[SqlMemoryStore]:
    """The SQL store on each backend (`sql_url`), migrated."""
    sql = SqlMemoryStore(sql_url, events_topic="test.memory.events")
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()


@pytest.fixture
async def pipeline(sql_url: str, tmp_path) -> AsyncIterator[WritePipeline]:
    """The write pipeline with the rules extractor on each backend, vectors in a temp Edge shard."""
    store = SqlMemoryStore(sql_url)
    vectors = EdgeVectorIndex(tmp_path / "vectors")
    await store.setup()
    await vectors.setup()
    try:
        yield WritePipeline(Settings(data_dir=tmp_path), store, projector_of(store, vectors), load_default_embedder(),
                            RulesExtractor(), RecordingProducer())  # fmt: skip
    finally:
        await vectors.close()
        await store.close()
