"""Issue 25, item 6: on SQLite, recall's writes (audit rows, access counts) yield to the write path.

Write transactions of one process pass `WriteGate` in turn: a transaction that yields waits while
any other writer holds the gate or waits for it, so the intake and the pipeline never queue behind
a recall flush, and no writer polls SQLite's busy handler against another of the same process.
"""

from __future__ import annotations

import asyncio

import sqlalchemy as sa

from beliefs.records import utcnow
from sinks.sql.engine import write_transaction
from sinks.sql.store import SqlMemoryStore


async def test_a_yielding_write_waits_for_every_write_that_does_not(tmp_path) -> None:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}")
    await store.setup()
    order: list[str] = []
    release = asyncio.Event()

    async def write(name: str, *, yielding: bool = False, hold: asyncio.Event | None = None) -> None:
        async with write_transaction(store._engine, yielding=yielding) as conn:
            await conn.execute(sa.text("SELECT 1"))
            order.append(name)
            if hold is not None:
                await hold.wait()

    try:
        first = asyncio.create_task(write("intake-1", hold=release))
        await asyncio.sleep(0.05)
        audit = asyncio.create_task(write("audit", yielding=True))  # recall's flush comes first...
        await asyncio.sleep(0.05)
        intake = [asyncio.create_task(write(f"intake-{i}")) for i in (2, 3)]  # ...the write path after it
        await asyncio.sleep(0.05)
        assert order == ["intake-1"]  # one writer at a time
        release.set()
        await asyncio.wait_for(asyncio.gather(first, audit, *intake), 10)
        assert order == ["intake-1", "intake-2", "intake-3", "audit"]  # in turn, the write path first
    finally:
        await store.close()


async def test_recall_writes_go_through_when_the_write_path_is_idle(tmp_path) -> None:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{tmp_path / 'memory.db'}")
    await store.setup()
    try:
        await asyncio.wait_for(store.record_access({"m-1": 2}, utcnow()), 5)
        assert await asyncio.wait_for(store.write_audit([]), 5) == []
    finally:
        await store.close()
