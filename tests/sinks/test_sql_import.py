"""`SqlMemoryStore.import_user` and the export's reads, on both backends: a contradiction loop, a
supersession chain and episodes leave and come back as they were (without a model: vectors given)."""

from __future__ import annotations

import json

import pytest

from agents.portability import ImportTarget, import_records, read_records
from sinks import portability
from sinks.portability import ExportSource, export
from sinks.reach import EVERY_AGENT
from sinks.sql import SqlMemoryStore
from tests.sinks.episode_builders import kept
from tests.sinks.episode_builders import said as said_turn
from tests.sinks.store_builders import mem
from tests.sinks.test_sql_contested import oscillate


class ConstantEmbedder:
    """Three dimensions, the same vector for every text: the store needs one, recall is not tested here."""

    async def aembed(self, texts):
        return [[0.5, -0.25, 1.0] for _ in texts]


async def lines_of(store: SqlMemoryStore, tenant: str) -> list[str]:
    return [line async for line in export(store, EVERY_AGENT, tenant)]


async def test_a_contradiction_loop_and_its_history_come_back_as_they_were(store, second_store, tenant):
    await oscillate(store, tenant)
    turn = said_turn(tenant, "I like tea")
    await store.write([kept(turn, mem(turn, text="User likes tea"))])
    lines = await lines_of(store, tenant)
    kinds = [json.loads(line)["kind"] for line in lines]
    assert kinds.count("contested") == 1 and kinds.count("episode") == 1 and kinds.count("memory") == 5

    first = await import_records(read_records(lines), second_store, ConstantEmbedder())
    again = await import_records(read_records(lines), second_store, ConstantEmbedder())

    assert await lines_of(second_store, tenant) == lines
    assert (first.memories, first.contested, first.episodes, first.skipped) == (5, 1, 1, 0)
    assert (again.memories, again.contested, again.episodes, again.skipped) == (0, 0, 0, 7)
    [slot] = await second_store.list_contested(tenant, "u1")
    assert slot.is_open  # still awaiting a person's decision, resolvable on the target
    points = [p.id for kind in ("memory", "episode") for p in await second_store.vector_points(kind, None, 100)]
    assert len(points) == 6  # every imported row has its embedding again


async def test_the_export_pages_through_a_user_without_changing_a_line(store, tenant, monkeypatch):
    await oscillate(store, tenant)
    for text in ("I like tea", "I like coffee", "I like water"):
        turn = said_turn(tenant, text)
        await store.write([kept(turn, mem(turn, text=f"User likes {text[7:]}"))])
    whole = await lines_of(store, tenant)
    monkeypatch.setattr(portability, "PAGE", 2)
    assert await lines_of(store, tenant) == whole and len(whole) == 1 + 7 + 1 + 3 + 1


async def test_rows_of_two_users_in_one_call_are_refused(second_store, tenant):
    a, b = said_turn(tenant, "x", user="a"), said_turn(tenant, "y", user="b")
    with pytest.raises(ValueError, match="one user"):
        await second_store.import_user([(mem(a), None), (mem(b), None)], [])


def test_the_sql_store_is_an_export_source_and_an_import_target():
    store = SqlMemoryStore("sqlite+aiosqlite://")
    assert isinstance(store, ExportSource) and isinstance(store, ImportTarget)
