"""Recall's audit rows written to a SQLite file on connections of their own, on the event loop when the lock is free.

Through the async engine an audit transaction is some eight trips between the event loop and
aiosqlite's thread (connect, BEGIN IMMEDIATE, the erasure receipts, the insert, COMMIT, close),
each a wake-up of the loop with SQLAlchemy's execution around it. One trip to a thread of its own
costs the loop about what SQLite's own work on the small transaction does (the hand-over, the
wake-up, the GIL hand-backs), and puts two thread wake-ups in every answer's path, which on a busy
machine wait for a core (`docs/benchmarks.md`, recall at 100k). So the transaction runs where the
recall does, on a connection of the loop's own, when it gets the write lock at once (busy timeout
0): BEGIN IMMEDIATE, the erasure receipts of the batch's users (`erasure_guard.RECEIPTS`), the
insert of the records `beliefs.erasure.split_audits` keeps, COMMIT (or ROLLBACK). When another
process holds the lock, the same transaction goes to the writer's thread, which waits for it (the
engine's busy timeout) without stalling the loop.

Either way it first waits for the process's turn at the engine's `WriteGate` and reports to its
`WriteHealth` (`engine.write_turn`), so it yields to the write path as before, and its statements
are SQLAlchemy's own compiled once (`sqlite_reads.CompiledRead`), so the rows are those the engine
would write. The records are stored when `write` returns: WAL with `synchronous=NORMAL`, as the
engine's connections. The loop's connection never checkpoints the WAL (`wal_autocheckpoint=0`: a
checkpoint copies pages and may sync, too slow for the loop); every `CHECKPOINT_EVERY` commits of
its own a passive checkpoint goes to the writer's thread instead, as SQLite's automatic one would.
"""

from __future__ import annotations

import asyncio
import logging
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

logger = logging.getLogger(__name__)

_INSERT = sqlite.insert(recall_audit).on_conflict_do_nothing(index_elements=[recall_audit.c.id])

#: Commits on the loop's connection between two passive checkpoints on the writer's thread: a
#: one-record audit commit appends about four pages to the WAL (273 in 64), so about SQLite's own
#: default of a checkpoint at 1000 pages.
CHECKPOINT_EVERY = 224


class SqliteAuditWriter:
    def __init__(self, url: str, engine: AsyncEngine, *, busy_timeout_ms: int = 5000) -> None:
        dialect = SQLiteDialect_pysqlite()
        self._engine = engine
        self._args, self._kwargs = dialect.create_connect_args(make_url(url).set(drivername="sqlite"))
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._insert = CompiledRead(_INSERT, dialect)
        self._receipts = CompiledRead(erasure_guard.RECEIPTS, dialect)
        self._conn: sqlite3.Connection | None = None  # opened and used on the writer's thread only
        self._loop_conn: sqlite3.Connection | None = None  # opened and used on the event loop only
        self._executor: ThreadPoolExecutor | None = None
        self._uncheckpointed = 0  # commits on the loop's connection since the last checkpoint was asked
        self._closed = False

    async def write(self, records: Sequence[RecallAudit]) -> list[RecallAudit]:
        """Store `records` but those naming a user erased since (`split_audits`); the kept ones."""
        if self._closed:
            raise RuntimeError("the SQL store is closed")
        records = list(records)
        async with unavailable_on_outage("write_audit"), write_turn(self._engine, yielding=True):
            kept = self._write_on_loop(records)
            if kept is not None:
                return kept
            done = asyncio.get_running_loop().run_in_executor(self._writer(), self._write, records)
            try:
                return await asyncio.shield(done)
            except asyncio.CancelledError:  # keep the turn until the transaction has ended
                await asyncio.wait([done])
                raise

    def close(self) -> None:
        self._closed = True
        conn, self._loop_conn = self._loop_conn, None
        if conn is not None:
            conn.close()
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.submit(self._close_connection)
            executor.shutdown(wait=True)

    def _write_on_loop(self, records: list[RecallAudit]) -> list[RecallAudit] | None:
        """The transaction on the loop's connection; None (nothing done) when another holds the lock."""
        conn = self._loop_connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_BUSY:
                return None
            raise
        kept = self._transaction(conn, records)
        self._uncheckpointed += 1
        if self._uncheckpointed >= CHECKPOINT_EVERY:
            self._uncheckpointed = 0
            self._writer().submit(self._checkpoint)
        return kept

    def _write(self, records: list[RecallAudit]) -> list[RecallAudit]:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        return self._transaction(conn, records)

    def _transaction(self, conn: sqlite3.Connection, records: list[RecallAudit]) -> list[RecallAudit]:
        """The begun transaction's reads and insert, committed; rolled back on any error."""
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

    def _checkpoint(self) -> None:
        """A passive checkpoint of the WAL (on the writer's thread): it copies what no reader needs."""
        try:
            self._connection().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:  # the next one tries again; SQLite's own checkpoints go on too
            logger.warning("recall audit: WAL checkpoint failed: %s", exc)

    def _writer(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="beliefstream-sql-audit")
        return self._executor

    def _open(self, busy_timeout_ms: int) -> sqlite3.Connection:
        conn = sqlite3.connect(*self._args, **(self._kwargs | {"check_same_thread": False}))
        conn.isolation_level = None  # BEGIN and COMMIT are ours
        conn.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open(self._busy_timeout_ms)
        return self._conn

    def _loop_connection(self) -> sqlite3.Connection:
        if self._loop_conn is None:
            conn = self._open(0)  # the lock at once, or the writer's thread waits for it
            conn.execute("PRAGMA wal_autocheckpoint=0")  # never a checkpoint on the loop
            self._loop_conn = conn
        return self._loop_conn

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
