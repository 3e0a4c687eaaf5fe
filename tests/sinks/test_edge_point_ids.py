"""Edge searches skip the payload while every memory id is its own point id, and only then."""

from __future__ import annotations

import uuid
from pathlib import Path

from sinks.base import VectorPoint
from sinks.vectors.edge import EdgeVectorIndex
from tests.sinks.edge_helpers import DIM, PAYLOAD, SCOPE, unit


async def test_uuid_ids_come_back_without_payload_and_other_ids_still_do(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "v", dim=DIM)
    await index.setup()
    first = str(uuid.uuid4())
    await index.write([VectorPoint(first, unit(1), PAYLOAD)])
    assert (tmp_path / "v" / "memory_ids_are_point_ids").exists()
    assert [h.id for h in await index.search(unit(1), SCOPE, 5)] == [first]

    await index.write([VectorPoint("memory-7", unit(2), PAYLOAD)])
    assert not (tmp_path / "v" / "memory_ids_are_point_ids").exists()
    assert {h.id for h in await index.search(unit(2), SCOPE, 5)} == {first, "memory-7"}
    await index.close()

    reopened = EdgeVectorIndex(tmp_path / "v", dim=DIM)
    await reopened.setup()
    assert {h.id for h in await reopened.search(unit(2), SCOPE, 5)} == {first, "memory-7"}
    await reopened.close()
