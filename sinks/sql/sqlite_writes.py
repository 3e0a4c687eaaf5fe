"""Recall's audit rows written to a SQLite file on a connection of their own: one trip to its thread.

Through the async engine an audit transaction is some eight trips between the event loop and
aiosqlite's thread (connect, BEGIN IMMEDIATE, the erasure receipts, the insert, COMMIT, close),
each a wake-up of the loop with SQLAlchemy's execution around it: at one client the audit written
before the answer leaves cost the loop more than all the recall's reads (`docs/benchmarks.md`,
recall at 100k). Here the whole transaction is one call on the writer's thread: BEGIN IMMEDIATE,
the erasure receipts of the batch's users (`erasure_guard.RECEIPTS`), the insert of the records
`beliefs.erasure.split_audits` keeps, COMMIT (or ROLLBACK). It still waits for the process's turn
at the engine's `WriteGate` and reports to its `WriteHealth` (`engine.write_turn`), so it yields to
the write path as before, and its statements are SQLAlchemy's own compiled once
(`sqlite_reads.CompiledRead`), so the rows are those the engine would write. The records are
stored when `write` returns: WAL with `synchronous=NORMAL`, as the engine's connections.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from beliefs.erasure import split_audits
from beliefs.records import RecallAudit
from sinks.sql import erasure_guard
from sinks.sql.engine import unavailable_on_outage, write_turn
from sinks.sql.sqlite_reads import CompiledRead
from sinks.sql.tables import recall_audit

_INSERT = sqlite.insert(recall_audit).on_conflict_do_nothing(index_elements=[recall_audit.c.id])


class SqliteAuditWriter:
    def __init__(self, url: str, engine: AsyncEngine, *, busy_timeout_ms: int = 5000) -> None:
        dialect = SQLiteDialect_pysqlite()
        self._engine = engine
        self._args, self._kwargs = dialect.create_connect_args(make_url(url).set(drivername="sqlite"))
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._insert = CompiledRead(_INSERT, dialect)
        self._receipts = CompiledRead(erasure_guard.RECEIPTS, dialect)
        self._conn: sqlite3.Connection | None = None  # opened and used on the writer's thread only
        self._executor: ThreadPoolExecutor | None = None
        self._closed = False

    async def write(self, records: Sequence[RecallAudit]) -> list[RecallAudit]:
        """Store `records` but those naming a user erased since (`split_audits`); the kept ones."""
        if self._closed:
            raise RuntimeError("the SQL store is closed")
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="beliefstream-sql-audit")
        async with unavailable_on_outage("write_audit"), write_turn(self._engine, yielding=True):
            done = asyncio.get_running_loop().run_in_executor(self._executor, self._write, list(records))
            try:
                return await asyncio.shield(done)
            except asyncio.CancelledError:  # keep the turn until the transaction has ended
                await asyncio.wait([done])
                raise

    def close(self) -> None:
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.submit(self._close_connection)
            executor.shutdown(wait=True)

    def _write(self, records: list[RecallAudit]) -> list[RecallAudit]:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            found = {}
            for params, named in erasure_guard.receipt_lookups((r.tenant_id, r.user_id) for r in records):
                sql, args = self._receipts.bind(params)
                found |= erasure_guard.erasures_of(named, self._receipts.rows(conn.execute(sql, args).fetchall()))
            kept, _ = split_audits(records, found)
            if kept:
                rows = [self._insert.bind(record.model_dump(mode="python")) for record in kept]
                conn.executemany(rows[0][0], [args for _, args in rows])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
        return kept

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(*self._args, **(self._kwargs | {"check_same_thread": False}))
            conn.isolation_level = None  # BEGIN and COMMIT are ours
            conn.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conn = conn
        return self._conn

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
