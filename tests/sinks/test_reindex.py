"""`beliefstream reindex`'s core: the vector index rebuilt from SQL, and checked point by point against it.

SQL on both backends; the index embedded (Qdrant Edge) and on qdrant-client's local mode, with
small vectors. The rows are written by the store's write path, so SQL says what a real write says.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from sinks.base import VectorPoint
from sinks.reindex import PointSource, ScrollableIndex, rebuild, same_vector, verify
from sinks.sql import SqlMemoryStore
from sinks.vectors import EdgeVectorIndex, QdrantServerIndex
from tests.sinks.episode_builders import kept
from tests.sinks.episode_builders import said as said_turn
from tests.sinks.store_builders import mem, said

DIM = 3


@pytest.fixture
async def store(isolated_sql_url: str) -> AsyncIterator[SqlMemoryStore]:
    """A store of this test alone (a reindex covers the whole database)."""
    sql = SqlMemoryStore(isolated_sql_url)
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()


@pytest.fixture(params=["edge", "server"])
async def index(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator:
    if request.param == "edge":
        idx = EdgeVectorIndex(tmp_path / "vectors", dim=DIM)
    else:
        idx = QdrantServerIndex(location=":memory:", collection="test_reindex", dim=DIM)
    await idx.setup()
    yield idx
    await idx.close()


async def seeded(store: SqlMemoryStore, tenant: str) -> list[str]:
    """Three memories (one superseded by another) and two episodes; their ids, memories first."""
    await store.write([said(tenant, "mornings"), said(tenant, "afternoons"), said(tenant, "evenings", user="u2")])
    turn = said_turn(tenant, "I like tea")
    await store.write([kept(turn, mem(turn, text="User likes tea")), kept(said_turn(tenant, "hello there"))])
    ids = [p.id for kind in ("memory", "episode") for p in await store.vector_points(kind, None, 100)]
    assert len(ids) == 6
    return ids


async def test_a_rebuild_writes_every_point_sql_owns_and_deletes_the_rest(store, index, tenant):
    ids = await seeded(store, tenant)
    await index.write([VectorPoint(str(uuid.uuid4()), [1.0, 0.0, 0.0], {"tenant_id": tenant, "kind": "memory"})])

    report = await rebuild(store, index, page=2)  # small pages: the paging is exercised too

    assert (report.expected, report.written, report.deleted) == (6, 6, 1)
    assert await index.count() == 6
    stored = {p.id: p.payload for p in (await index.scroll(None, 100))[0]}
    assert set(stored) == set(ids)
    assert {payload["state"] for payload in stored.values()} == {"active", "superseded"}


async def test_verify_reports_missing_extra_and_stale_points_heals_them_then_finds_none(store, index, tenant):
    ids = await seeded(store, tenant)
    await rebuild(store, index)
    assert (await verify(store, index)).problems == 0
    gone, changed = ids[0], ids[4]
    stray = str(uuid.uuid4())
    await index.delete([gone])
    await index.write([VectorPoint(stray, [0.0, 1.0, 0.0], {"tenant_id": tenant, "kind": "memory"})])
    await index.set_payload({changed: {"state": "revoked"}})

    report = await verify(store, index, page=2)

    assert (report.missing, report.extra, report.stale) == ([gone], [stray], [changed])
    assert report.healed and (report.written, report.deleted) == (2, 1)
    assert (await verify(store, index)).problems == 0
    assert await index.count() == 6


async def test_verify_finds_a_stale_or_zeroed_vector_behind_a_right_payload_and_heals_it(store, index, tenant):
    ids = await seeded(store, tenant)
    await rebuild(store, index)
    stored = {p.id: p for p in (await index.scroll(None, 100, with_vectors=True))[0]}
    said = {p.id: p.vector for p in await store.vector_points_of(ids)}
    rounded, reembedded, zeroed = ids[0], ids[2], ids[5]
    near = [0.5, -0.2, 1.0]  # another text's embedding: within a degree or two of SQL's, payload untouched
    assert 1 - np.dot(near, said[reembedded]) / np.linalg.norm(near) / np.linalg.norm(said[reembedded]) < 1e-3
    await index.write([
        VectorPoint(rounded, (3 * np.asarray(said[rounded], np.float16)).tolist(), stored[rounded].payload),
        VectorPoint(reembedded, near, stored[reembedded].payload),
        VectorPoint(zeroed, [0.0] * DIM, stored[zeroed].payload),
    ])  # fmt: skip

    report = await verify(store, index, page=2)

    assert sorted(report.stale_vector) == sorted([reembedded, zeroed])
    assert (report.missing, report.extra, report.stale) == ([], [], [])  # the payloads all agree
    assert report.healed and report.written == 2
    assert (await verify(store, index)).problems == 0
    healed = {p.id: p.vector for p in (await index.scroll(None, 100, with_vectors=True))[0]}
    assert same_vector(said[zeroed], healed[zeroed]) and same_vector(said[reembedded], healed[reembedded])


def test_a_vector_is_the_same_through_normalising_and_float16_and_not_another_direction():
    rng = np.random.default_rng(3)
    said = rng.standard_normal(384)
    stored = (said / np.linalg.norm(said)).astype(np.float16)
    assert same_vector(said, stored) and same_vector([0.0, 0.0], [0.0, 0.0])
    other = said + rng.standard_normal(384) * 0.02  # cosine about 0.9998: another text, close by
    assert not same_vector(said, other)
    assert not same_vector(said, np.zeros(384)) and not same_vector(said, said[:100])


async def test_verify_without_healing_only_reports(store, index, tenant):
    ids = await seeded(store, tenant)
    await rebuild(store, index)
    await index.delete([ids[1]])

    report = await verify(store, index, heal=False)

    assert (report.missing, report.healed, report.written) == ([ids[1]], False, 0)
    assert (await verify(store, index, heal=False)).missing == [ids[1]]


def test_both_indexes_can_be_scrolled_and_the_sql_store_is_a_point_source(tmp_path):
    assert isinstance(EdgeVectorIndex(tmp_path / "v", dim=DIM), ScrollableIndex)
    assert isinstance(QdrantServerIndex(location=":memory:", dim=DIM), ScrollableIndex)
    assert isinstance(SqlMemoryStore("sqlite+aiosqlite://"), PointSource)
