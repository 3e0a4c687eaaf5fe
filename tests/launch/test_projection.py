"""`BELIEFSTREAM_VECTOR_PROJECTOR`: the owner of the embedded shard projects; a process with the
projector off writes SQL only and never opens the shard, so the two run side by side."""

from __future__ import annotations

from projection import index_matches_sql

from launch.projection import open_projection
from sinks.sql.store import SqlMemoryStore
from streams.settings import Settings
from tests.sinks.episode_builders import kept, said


async def test_a_writer_with_the_projector_off_leaves_the_shard_to_its_owner(tmp_path, tenant) -> None:
    owner = Settings(data_dir=tmp_path)
    writer = owner.model_copy(update={"vector_projector": "off"})
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'memory.db').as_posix()}")
    await store.setup()
    try:
        async with open_projection(owner, store) as (vectors, projector):
            assert vectors is not None and projector is not None
            async with open_projection(writer, store) as (no_vectors, no_projector):
                assert no_vectors is None and no_projector is None  # the shard stays the owner's alone
                await store.write([kept(said(tenant, "I prefer tea."), embedding=[0.1] * 384)])  # a SQL-only worker's write
            assert await projector.settle(30.0)
            assert await vectors.count(tenant) == 1
            assert await index_matches_sql(store, vectors, tenant)
    finally:
        await store.close()
