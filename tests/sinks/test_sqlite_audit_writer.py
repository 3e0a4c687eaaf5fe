"""Recall's audit rows on a SQLite file go through `SqliteAuditWriter` (on the event loop when the lock
is free, else one trip to its thread): the same rows as the engine would write, in the process's
write turn after the write path, a user erased since left out, a failure reported as the store's
outage and to its write health; the loop's connection never checkpoints the WAL."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from beliefs.records import AuditedRead, RecallAudit, WithheldRead, utcnow
from sinks.errors import SinkUnavailableError
from sinks.sql import sqlite_writes
from sinks.sql.engine import write_health, write_transaction
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import recall_audit

AT = datetime(2026, 11, 3, 9, 30, 15, 123456, tzinfo=UTC)


def _record(user: str = "u1", at: datetime = AT, **fields) -> RecallAudit:
    return RecallAudit(
        id=uuid.uuid4().hex, tenant_id="t1", user_id=user, agent_id="bot", key_id="k" * 16, at=at,
        query_digest="a" * 64, **fields,
    )


@pytest.fixture
async def store(tmp_path):
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'memory.db').as_posix()}")
    await store.setup()
    try:
        yield store
    finally:
        await store.close()


async def _rows(store: SqlMemoryStore) -> list[tuple]:
    """The stored rows as SQLite holds them (no type processing), by id."""
    async with store._engine.connect() as conn:
        result = await conn.exec_driver_sql("SELECT * FROM recall_audit ORDER BY id")
        return [tuple(row) for row in result.all()]


async def test_the_rows_are_those_the_engine_writes_and_read_back_the_same(tmp_path, store) -> None:
    records = [
        _record(
            memory_ids=["m1", "m2"], episode_ids=["e1"],
            returned=[AuditedRead(id="m1", kind="memory", score=0.8125, reason="asked: «it» ✓"),
                      AuditedRead(id="e1", kind="episode", score=0.5, reason="quote")],
            withheld=[WithheldRead(id="m3", why="sensitive (health) outside this request's domain")],
        ),
        _record(user="u2", at=AT + timedelta(microseconds=1)),
    ]
    by_engine = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'engine.db').as_posix()}")
    await by_engine.setup()
    on_thread: list[RecallAudit] = []
    write = store._audit_writer._write

    def traced(batch):
        on_thread.extend(batch)
        return write(batch)

    store._audit_writer._write = traced
    try:
        by_engine._audit_writer = None  # the engine's transaction, as on PostgreSQL
        assert await store.write_audit(records) == records
        assert await by_engine.write_audit(records) == records
        assert await store.write_audit(records) == records  # idempotent by id, as the engine's insert
        assert await _rows(store) == await _rows(by_engine)
        assert len(await _rows(store)) == 2
        async with store._engine.connect() as conn:
            read = (await conn.execute(sa.select(recall_audit).where(recall_audit.c.user_id == "u1"))).one()
        assert RecallAudit.model_validate(read._mapping) == records[0]
    finally:
        await by_engine.close()
    assert on_thread == []  # the lock was free: written on the loop, no trip to the writer's thread


async def test_a_lock_another_process_holds_sends_the_write_to_the_thread_which_waits_for_it(tmp_path, store) -> None:
    other = sqlite3.connect(tmp_path / "memory.db", isolation_level=None, check_same_thread=False)
    ran_on: list[str] = []
    write = store._audit_writer._write

    def traced(batch):
        ran_on.append(threading.current_thread().name)
        return write(batch)

    store._audit_writer._write = traced
    try:
        other.execute("BEGIN IMMEDIATE")  # as the pipeline's process would
        audit = asyncio.create_task(store.write_audit([_record()]))
        await asyncio.sleep(0.2)
        assert not audit.done() and len(ran_on) == 1  # waiting on the writer's thread, the loop free
        other.execute("COMMIT")
        assert len(await asyncio.wait_for(audit, 10)) == 1
    finally:
        other.close()
    assert len(await _rows(store)) == 1
    assert ran_on[0].startswith("beliefstream-sql-audit") and ran_on[0] != threading.current_thread().name
    assert await store.write_audit([_record()]) and len(ran_on) == 1  # the lock free again: on the loop


async def test_the_loops_connection_never_checkpoints_the_writer_thread_does(monkeypatch, store) -> None:
    monkeypatch.setattr(sqlite_writes, "CHECKPOINT_EVERY", 3)
    checkpoints: list[str] = []
    checkpoint = store._audit_writer._checkpoint

    def traced() -> None:
        checkpoints.append(threading.current_thread().name)
        checkpoint()

    store._audit_writer._checkpoint = traced
    for _ in range(7):
        await store.write_audit([_record()])
    assert store._audit_writer._loop_conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    store._audit_writer._writer().submit(lambda: None).result()  # what was handed to the thread has run
    assert len(checkpoints) == 2 and all(name.startswith("beliefstream-sql-audit") for name in checkpoints)
    assert len(await _rows(store)) == 7


async def test_a_user_erased_since_is_left_out_in_the_same_transaction(store) -> None:
    before = utcnow()
    report = await store.erase_user("t1", "gone")
    after = report.erased_at + timedelta(seconds=1)
    overtaken, empty_after = _record("gone", before, memory_ids=["m1"]), _record("gone", after)
    came_back, other = _record("gone", after, memory_ids=["m2"]), _record("kept", before)
    kept = await store.write_audit([overtaken, empty_after, came_back, other])
    assert kept == [came_back, other]
    assert {row[0] for row in await _rows(store)} == {came_back.id, other.id}


async def test_the_audit_waits_for_the_write_path_to_finish(store) -> None:
    release, holding = asyncio.Event(), asyncio.Event()

    async def write_path() -> None:
        async with write_transaction(store._engine) as conn:
            await conn.execute(sa.text("SELECT 1"))
            holding.set()
            await release.wait()

    first = asyncio.create_task(write_path())
    await holding.wait()
    audit = asyncio.create_task(store.write_audit([_record()]))
    await asyncio.sleep(0.1)
    assert not audit.done()  # its turn comes after the write path's transaction
    release.set()
    await asyncio.wait_for(asyncio.gather(first, audit), 10)
    assert len(await _rows(store)) == 1


async def test_a_failed_write_is_an_outage_and_the_next_write_goes_through(store) -> None:
    async with write_transaction(store._engine) as conn:
        await conn.execute(sa.text("ALTER TABLE recall_audit RENAME TO recall_audit_away"))
    with pytest.raises(SinkUnavailableError, match="write_audit"):
        await store.write_audit([_record()])
    async with write_transaction(store._engine) as conn:  # the turn was given back
        await conn.execute(sa.text("ALTER TABLE recall_audit_away RENAME TO recall_audit"))
    assert await store.write_audit([_record()]) and len(await _rows(store)) == 1
    assert write_health(store._engine).failure is None


async def test_a_closed_store_writes_no_audit(tmp_path) -> None:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(tmp_path / 'closed.db').as_posix()}")
    await store.setup()
    await store.write_audit([_record()])
    await store.close()
    with pytest.raises(RuntimeError, match="closed"):
        await store.write_audit([_record()])
