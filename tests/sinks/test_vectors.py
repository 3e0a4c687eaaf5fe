"""Both vector indexes (embedded Edge, qdrant-client local mode) against the same expectations."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from beliefs.records import MemoryState
from embedding.embedder import load_default_embedder
from sinks.base import VectorFilter, VectorIndex, VectorPoint
from sinks.errors import SinkUnavailableError
from sinks.vectors import EdgeVectorIndex, QdrantServerIndex

DIM = 384
REPO = Path(__file__).resolve().parents[2]


def unit(seed: int) -> list[float]:
    vector = np.random.default_rng(seed).standard_normal(DIM)
    return (vector / np.linalg.norm(vector)).tolist()


def payload(
    tenant: str = "acme",
    user: str = "u-1",
    agent: str = "",
    visibility: str = "user",
    state: str = "active",
    type_: str = "preference",
    topic: str = "tech",
) -> dict:
    return {
        "tenant_id": tenant,
        "user_id": user,
        "agent_id": agent,
        "visibility": visibility,
        "state": state,
        "type": type_,
        "topic": topic,
    }


async def run_python(script: str) -> str:
    """Run `script` in a separate Python process from the repository root; its stdout."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    if process.returncode != 0:
        raise RuntimeError(f"subprocess failed ({process.returncode}): {stderr.decode()}")
    return stdout.decode()


def mid() -> str:
    return str(uuid.uuid4())


@pytest.fixture(params=["edge", "server"])
async def index(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[VectorIndex]:
    if request.param == "edge":
        idx: VectorIndex = EdgeVectorIndex(tmp_path / "vectors", dim=DIM)
    else:
        idx = QdrantServerIndex(location=":memory:", collection="test_memories", dim=DIM)
    await idx.setup()
    yield idx
    await idx.close()


def scope(**overrides) -> VectorFilter:
    return VectorFilter(**{"tenant_id": "acme", "user_id": "u-1", **overrides})


async def test_is_a_vector_index(index: VectorIndex) -> None:
    assert isinstance(index, VectorIndex)
    assert await index.ping()


async def test_upsert_then_search_finds_the_point_with_score_one(index: VectorIndex) -> None:
    target, other = mid(), mid()
    await index.write([VectorPoint(target, unit(1), payload()), VectorPoint(other, unit(2), payload())])
    hits = await index.search(unit(1), scope(), limit=5)
    assert [hit.id for hit in hits][0] == target
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    assert {hit.id for hit in hits} == {target, other}


async def test_upsert_is_idempotent(index: VectorIndex) -> None:
    point = VectorPoint(mid(), unit(3), payload())
    await index.write([point])
    await index.write([point])
    assert await index.count() == 1


async def test_ids_that_are_not_uuids_are_kept(index: VectorIndex) -> None:
    await index.write([VectorPoint("mem-1", unit(4), payload())])
    assert [hit.id for hit in await index.search(unit(4), scope(), limit=1)] == ["mem-1"]
    await index.delete(["mem-1"])
    assert await index.count() == 0


async def test_superseded_points_leave_an_active_search(index: VectorIndex) -> None:
    old, new = mid(), mid()
    await index.write([VectorPoint(old, unit(5), payload()), VectorPoint(new, unit(6), payload())])
    await index.set_payload({old: {"state": "superseded"}, "never-written": {"state": "revoked"}})
    assert [hit.id for hit in await index.search(unit(5), scope(), limit=5)] == [new]
    everything = scope(states=(MemoryState.ACTIVE, MemoryState.SUPERSEDED))
    assert {hit.id for hit in await index.search(unit(5), everything, limit=5)} == {old, new}
    assert await index.count() == 2  # set_payload on an unknown id creates nothing


async def test_set_payload_keeps_the_other_keys(index: VectorIndex) -> None:
    point = mid()
    await index.write([VectorPoint(point, unit(7), payload(topic="health"))])
    await index.set_payload({point: {"state": "contested"}})
    contested_health = scope(states=(MemoryState.CONTESTED,), topics=("health",))
    assert [hit.id for hit in await index.search(unit(7), contested_health, limit=5)] == [point]


async def test_delete(index: VectorIndex) -> None:
    kept, gone = mid(), mid()
    await index.write([VectorPoint(kept, unit(8), payload()), VectorPoint(gone, unit(9), payload())])
    await index.delete([gone])
    await index.delete([])
    assert [hit.id for hit in await index.search(unit(9), scope(), limit=5)] == [kept]
    assert await index.count() == 1


async def test_another_tenant_is_never_returned_even_when_nearest(index: VectorIndex) -> None:
    mine, theirs = mid(), mid()
    await index.write(
        [VectorPoint(mine, unit(11), payload()), VectorPoint(theirs, unit(10), payload(tenant="globex"))]
    )
    hits = await index.search(unit(10), scope(), limit=10)
    assert [hit.id for hit in hits] == [mine]
    assert await index.count("acme") == 1
    assert await index.count("globex") == 1
    assert await index.count() == 2


async def test_another_user_is_never_returned(index: VectorIndex) -> None:
    mine, theirs = mid(), mid()
    await index.write(
        [VectorPoint(mine, unit(13), payload()), VectorPoint(theirs, unit(12), payload(user="u-2"))]
    )
    assert [hit.id for hit in await index.search(unit(12), scope(), limit=10)] == [mine]


async def test_agent_private_memories_are_seen_by_their_agent_only(index: VectorIndex) -> None:
    shared, bot_private, other_private, shared_written_by_bot = mid(), mid(), mid(), mid()
    await index.write(
        [
            VectorPoint(shared, unit(20), payload()),
            VectorPoint(bot_private, unit(21), payload(agent="support-bot", visibility="agent")),
            VectorPoint(other_private, unit(22), payload(agent="sales-bot", visibility="agent")),
            VectorPoint(shared_written_by_bot, unit(23), payload(agent="sales-bot", visibility="user")),
        ]
    )

    async def seen(agent_ids: tuple[str, ...]) -> set[str]:
        return {hit.id for hit in await index.search(unit(21), scope(agent_ids=agent_ids), limit=10)}

    assert await seen(()) == {shared, shared_written_by_bot}
    assert await seen(("support-bot",)) == {shared, shared_written_by_bot, bot_private}
    assert await seen(("support-bot", "sales-bot")) == {
        shared,
        shared_written_by_bot,
        bot_private,
        other_private,
    }


async def test_types_and_topics_narrow_the_search(index: VectorIndex) -> None:
    pref_tech, fact_tech, pref_health = mid(), mid(), mid()
    await index.write(
        [
            VectorPoint(pref_tech, unit(30), payload()),
            VectorPoint(fact_tech, unit(31), payload(type_="fact")),
            VectorPoint(pref_health, unit(32), payload(topic="health")),
        ]
    )

    async def seen(**narrowing) -> set[str]:
        return {hit.id for hit in await index.search(unit(30), scope(**narrowing), limit=10)}

    assert await seen(types=("fact",)) == {fact_tech}
    assert await seen(topics=("health",)) == {pref_health}
    assert await seen(types=("preference",), topics=("tech",)) == {pref_tech}
    assert await seen(types=("preference", "fact"), topics=("tech",)) == {pref_tech, fact_tech}


async def test_memory_and_episode_points_share_the_index_but_never_a_search(index: VectorIndex) -> None:
    """Memory searches see memories (those written before episodes existed carry no `kind`), an
    episode search sees only episodes, and one may ask for both."""
    old_memory, memory, episode = mid(), mid(), mid()
    await index.write(
        [
            VectorPoint(old_memory, unit(40), payload()),
            VectorPoint(memory, unit(41), payload() | {"kind": "memory"}),
            VectorPoint(episode, unit(40), payload() | {"kind": "episode"}),
        ]
    )

    async def seen(**kinds) -> set[str]:
        return {hit.id for hit in await index.search(unit(40), scope(**kinds), limit=10)}

    assert await seen() == {old_memory, memory}
    assert await seen(kinds=("episode",)) == {episode}
    assert await seen(kinds=("memory", "episode")) == {old_memory, memory, episode}
    with pytest.raises(ValueError):
        await index.search(unit(40), scope(kinds=("note",)), limit=10)


async def test_limit_and_empty_states(index: VectorIndex) -> None:
    await index.write([VectorPoint(mid(), unit(40 + i), payload()) for i in range(5)])
    assert len(await index.search(unit(40), scope(), limit=3)) == 3
    assert await index.search(unit(40), scope(), limit=0) == []
    assert await index.search(unit(40), scope(states=()), limit=3) == []


async def test_invalid_input_is_refused(index: VectorIndex) -> None:
    with pytest.raises(ValueError, match="dimensions"):
        await index.write([VectorPoint(mid(), [1.0, 0.0], payload())])
    with pytest.raises(ValueError, match="NaN"):
        await index.search([float("nan")] * DIM, scope(), limit=3)
    with pytest.raises(ValueError, match="tenant_id"):
        await index.search(unit(1), VectorFilter(tenant_id="", user_id="u-1"), limit=3)


async def test_concurrent_searches_get_what_each_gets_alone(index: VectorIndex) -> None:
    """Searches started together (Edge runs them as one batch) answer each its own scope and limit."""
    ids = {user: [mid() for _ in range(4)] for user in ("u-1", "u-2")}
    await index.write(
        [
            VectorPoint(i, unit(60 + n), payload(user=user) | ({"kind": "episode"} if n % 2 else {}))
            for user, user_ids in ids.items()
            for n, i in enumerate(user_ids)
        ]
    )
    asks = [
        (unit(60), scope(), 3),
        (unit(61), scope(kinds=("episode",)), 10),
        (unit(62), scope(user_id="u-2"), 1),
        (unit(60), scope(states=()), 3),
        (unit(63), scope(user_id="u-2", kinds=("memory", "episode")), 10),
    ]
    alone = [await index.search(*ask) for ask in asks]
    together = await asyncio.gather(*(index.search(*ask) for ask in asks))
    assert [[hit.id for hit in hits] for hits in together] == [[hit.id for hit in hits] for hits in alone]
    for got, expected in zip(together, alone, strict=True):
        assert [hit.score for hit in got] == pytest.approx([hit.score for hit in expected], abs=1e-5)
    assert [len(hits) for hits in alone] == [2, 2, 1, 0, 4]
    assert {hit.id for hit in alone[1]} == {ids["u-1"][1], ids["u-1"][3]}


async def test_real_embeddings_rank_the_paraphrase_first(index: VectorIndex) -> None:
    embedder = load_default_embedder(2, 64)
    texts = ["User is allergic to peanuts.", "User prefers dark mode in the editor.", "User lives in Lisbon."]
    ids = [mid() for _ in texts]
    vectors = await embedder.aembed(texts)
    await index.write([VectorPoint(i, v.tolist(), payload()) for i, v in zip(ids, vectors, strict=True)])
    (query,) = await embedder.aembed(["Does the user have a nut allergy?"])
    hits = await index.search(query.tolist(), scope(), limit=3)
    assert hits[0].id == ids[0]
    assert hits[0].score > hits[1].score


async def test_a_closed_index_refuses_calls(index: VectorIndex) -> None:
    await index.close()
    assert not await index.ping()
    with pytest.raises(SinkUnavailableError):
        await index.count()
    with pytest.raises(SinkUnavailableError):
        await index.search(unit(1), scope(), limit=3)


# -- the embedded Edge shard --------------------------------------------------------------------


async def test_edge_keeps_points_across_reopen(tmp_path: Path) -> None:
    point = mid()
    first = EdgeVectorIndex(tmp_path / "vectors")
    await first.setup()
    await first.write([VectorPoint(point, unit(50), payload())])
    await first.set_payload({point: {"topic": "work"}})
    await first.close()

    again = EdgeVectorIndex(tmp_path / "vectors")
    await again.setup()
    try:
        assert await again.count() == 1
        hits = await again.search(unit(50), scope(topics=("work",)), limit=1)
        assert [hit.id for hit in hits] == [point]
    finally:
        await again.close()


async def test_edge_recovers_unflushed_writes_of_a_killed_process(tmp_path: Path) -> None:
    """The WAL, not an explicit flush, is what makes a crash lose nothing."""
    path = tmp_path / "vectors"
    script = (
        "import asyncio, os\n"
        "from pathlib import Path\n"
        "from sinks.base import VectorPoint\n"
        "from sinks.vectors.edge import EdgeVectorIndex\n"
        "async def main():\n"
        f"    index = EdgeVectorIndex(Path({str(path)!r}), dim=4)\n"
        "    await index.setup()\n"
        "    await index.write([VectorPoint('crash-1', [1.0, 0.0, 0.0, 0.0], {'tenant_id': 'acme'})])\n"
        "    os._exit(0)\n"
        "asyncio.run(main())\n"
    )
    await run_python(script)
    index = EdgeVectorIndex(path, dim=4)
    await index.setup()
    try:
        assert await index.count("acme") == 1
    finally:
        await index.close()


async def test_edge_second_owner_of_the_same_path_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "vectors"
    owner = EdgeVectorIndex(path)
    await owner.setup()
    try:
        with pytest.raises(SinkUnavailableError, match="another beliefstream process owns") as caught:
            await EdgeVectorIndex(path).setup()
        assert str(path) in str(caught.value)
        script = (
            "import asyncio\n"
            "from pathlib import Path\n"
            "from sinks.errors import SinkUnavailableError\n"
            "from sinks.vectors.edge import EdgeVectorIndex\n"
            "async def main():\n"
            f"    index = EdgeVectorIndex(Path({str(path)!r}))\n"
            "    try:\n"
            "        await index.setup()\n"
            "    except SinkUnavailableError as exc:\n"
            "        print(exc)\n"
            "    finally:\n"
            "        await index.close()\n"
            "asyncio.run(main())\n"
        )
        assert "another beliefstream process owns" in await run_python(script)
    finally:
        await owner.close()


async def test_edge_refuses_a_shard_of_another_dimension(tmp_path: Path) -> None:
    small = EdgeVectorIndex(tmp_path / "vectors", dim=4)
    await small.setup()
    await small.close()
    with pytest.raises(SinkUnavailableError, match="cannot open"):
        await EdgeVectorIndex(tmp_path / "vectors", dim=DIM).setup()


async def test_edge_indexes_the_scope_fields_and_optimizes(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "vectors")
    await index.setup()
    try:
        await index.write([VectorPoint(mid(), unit(60 + i), payload()) for i in range(20)])
        await index.optimize()
        assert len(await index.search(unit(60), scope(), limit=5)) == 5
    finally:
        await index.close()


# -- the server index and the factory ------------------------------------------------------------


async def test_edge_calls_do_not_block_the_event_loop(tmp_path: Path) -> None:
    index = EdgeVectorIndex(tmp_path / "vectors")
    await index.setup()
    try:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        await index.write([VectorPoint(mid(), unit(100 + i), payload()) for i in range(2000)])
        task.cancel()
        assert ticks > 1
    finally:
        await index.close()
