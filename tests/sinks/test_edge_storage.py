"""Edge vector storage: new shards store float16; a float32 shard made before opens as it is."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as edge

from sinks.base import VectorPoint
from sinks.errors import SinkUnavailableError
from sinks.vectors.edge import EdgeVectorIndex
from tests.sinks.edge_helpers import DIM, PAYLOAD, SCOPE, unit


def stored_datatype(path: Path) -> str:
    return json.loads((path / "edge_config.json").read_text())["vectors"][""].get("datatype", "float32")


async def search_ids(path: Path, query: list[float]) -> list[str]:
    index = EdgeVectorIndex(path, dim=DIM)
    await index.setup()
    try:
        return [hit.id for hit in await index.search(query, SCOPE, 3)]
    finally:
        await index.close()


async def test_a_new_shard_stores_float16_and_ranks_as_float32_would(tmp_path: Path) -> None:
    points = [VectorPoint(str(uuid.uuid4()), unit(seed), PAYLOAD) for seed in range(20)]
    index = EdgeVectorIndex(tmp_path / "v", dim=DIM)
    await index.setup()
    await index.write(points)
    hits = await index.search(unit(7), SCOPE, 3)
    await index.close()

    assert stored_datatype(tmp_path / "v") == "float16"
    assert hits[0].id == points[7].id and hits[0].score == pytest.approx(1.0, abs=1e-3)
    exact = sorted(points, key=lambda p: -float(np.dot(p.vector, unit(7))))[:3]
    assert [hit.id for hit in hits] == [p.id for p in exact]


async def test_a_float32_shard_made_before_keeps_its_points_and_datatype(tmp_path: Path) -> None:
    path = tmp_path / "old"
    path.mkdir()
    config = edge.EdgeConfig(vectors=edge.EdgeVectorParams(size=DIM, distance=edge.Distance.Cosine))
    shard = edge.EdgeShard.create(str(path), config)
    point_id = str(uuid.uuid4())
    shard.update(edge.UpdateOperation.upsert_points([edge.Point(point_id, unit(3), PAYLOAD)]))
    shard.close()

    assert await search_ids(path, unit(3)) == [point_id]
    assert stored_datatype(path) == "float32"


async def test_a_shard_of_an_unknown_datatype_is_refused_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "odd"
    path.mkdir()
    (path / "edge_config.json").write_text(json.dumps({"vectors": {"": {"size": DIM, "datatype": "uint8"}}}))
    with pytest.raises(SinkUnavailableError, match="uint8"):
        await search_ids(path, unit(1))
