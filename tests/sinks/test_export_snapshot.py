"""An export reads one snapshot of the store, on both backends: a write committed while it runs,
between two of its statements, is not in the file, and the file is the state of one moment."""

from __future__ import annotations

import json

from sinks import portability
from sinks.portability import export
from sinks.reach import EVERY_AGENT
from tests.sinks.episode_builders import kept, said
from tests.sinks.store_builders import meeting, mem


async def exported(store, tenant: str) -> list[str]:
    return [line async for line in export(store, EVERY_AGENT, tenant)]


def consistent(lines: list[str]) -> None:
    """Every supersession in the file points at a memory in the file, in the state it says; the end
    line counts the records."""
    records = [json.loads(line) for line in lines]
    memories = {r["id"]: r for r in records if r["kind"] == "memory"}
    for memory in memories.values():
        if memory["superseded_by"] is not None:
            assert memory["state"] == "superseded" and memory["superseded_by"] in memories
    assert records[-1] == {"kind": "end", "records": len(records) - 2}


async def test_a_write_committed_during_an_export_is_not_in_it(store, tenant, monkeypatch):
    monkeypatch.setattr(portability, "PAGE", 1)  # a statement per row: every row is read after the write
    for text, value in (("I prefer morning meetings", "morning"), ("I prefer short meetings", None)):
        turn = said(tenant, text)
        await store.write([kept(turn, meeting(turn, value) if value else mem(turn, text="User likes short meetings"))])
    before = await exported(store, tenant)

    lines = export(store, EVERY_AGENT, tenant)
    during = [await anext(lines), await anext(lines)]  # the header and the first memory: the export is open
    later = said(tenant, "I prefer evening meetings")  # supersedes the morning, adds a memory and an episode
    await store.write([kept(later, meeting(later, "evening"))])
    during += [line async for line in lines]

    after = await exported(store, tenant)
    assert during == before
    assert len(after) == len(before) + 2 and '"state":"superseded"' in "".join(after)  # the write did commit
    consistent(during)
    consistent(after)
