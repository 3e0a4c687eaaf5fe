"""Recall's reads (keyword, pinned, hydrate, open contests), with one thread hop per query on a SQLite file.

Why: through the async engine every DBAPI call of aiosqlite is its own trip to the connection's
thread and back to the event loop (checkout, BEGIN, execute, fetch, cursor close, rollback), and on
two busy cores each trip waits for the GIL and a core: most of a recall's SQL time was hops, not
SQLite. A SQLite file is therefore read here through SQLAlchemy's synchronous pysqlite engine on a
small thread pool: statement, fetch and row conversion run in one worker call. WAL lets these
readers run beside each other and beside the writer; `query_only` makes sure they never write.

PostgreSQL and in-memory SQLite (one shared connection) keep the async engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from sinks.recall import Currency, KeywordHit, OpenContest, RecallScope
from sinks.sql import recall_queries
from sinks.sql.engine import is_sqlite, sqlite_path, unavailable_on_outage
from streams.records import Memory

T = TypeVar("T")

#: Reader connections (and threads) for a SQLite file: two cores gain nothing from more.
READERS = 4


class RecallReader:
    def __init__(self, url: str, engine: AsyncEngine, *, readers: int = READERS, busy_timeout_ms: int = 5000):
        self._engine = engine
        self._dialect = engine.dialect.name
        self._sync: Engine | None = None
        self._executor: ThreadPoolExecutor | None = None
        if is_sqlite(url) and sqlite_path(url) is not None:
            self._sync = _sqlite_reader(url, readers, busy_timeout_ms)
            self._executor = ThreadPoolExecutor(readers, thread_name_prefix="beliefstream-sql-read")

    @property
    def sync_engine(self) -> Engine:
        """The engine recall's statements run on (for event listeners, e.g. plan checks in tests)."""
        return self._sync if self._sync is not None else self._engine.sync_engine

    async def keyword_candidates(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        plan = recall_queries.keyword_plan(self._dialect, scope, currency, terms, limit)
        if plan is None:
            return []
        return await self._read("keyword_candidates", plan, recall_queries.keyword_converter(limit))

    async def hydrate(
        self, scope: RecallScope, currency: Currency, ids: Sequence[str], slot_attributes: Sequence[str]
    ) -> list[Memory]:
        plan = recall_queries.hydrate_plan(scope, currency, ids, slot_attributes)
        if plan is None:
            return []
        return await self._read("hydrate", plan, recall_queries.hydrated)

    async def pinned_memories(self, scope: RecallScope, currency: Currency, limit: int) -> list[Memory]:
        plan = recall_queries.pinned_plan(scope, currency, limit)
        return await self._read("pinned_memories", plan, recall_queries.memories_of)

    async def open_contests(self, scope: RecallScope, currency: Currency, limit: int) -> list[OpenContest]:
        plan = recall_queries.open_contests_plan(scope, currency, limit)
        return await self._read("open_contests", plan, recall_queries.open_contests_of)

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        if self._sync is not None:
            self._sync.dispose()

    async def _read(self, what: str, plan: tuple[Any, dict[str, Any]], convert: Callable[[Any], T]) -> T:
        async with unavailable_on_outage(what):
            if self._sync is None:
                async with self._engine.connect() as conn:
                    return convert(await conn.execute(*plan))
            if self._executor is None:
                raise RuntimeError("the SQL store is closed")
            return await asyncio.get_running_loop().run_in_executor(self._executor, self._run, plan, convert)

    def _run(self, plan: tuple[Any, dict[str, Any]], convert: Callable[[Any], T]) -> T:
        assert self._sync is not None
        with self._sync.connect() as conn:
            return convert(conn.execute(*plan))


def _sqlite_reader(url: str, size: int, busy_timeout_ms: int) -> Engine:
    """The same file through pysqlite: a fixed pool, autocommit reads (no BEGIN), never a write."""
    sync_url = make_url(url).set(drivername="sqlite")
    engine = sa.create_engine(
        sync_url,
        pool_size=size,
        max_overflow=0,
        pool_timeout=60,
        connect_args={"check_same_thread": False},  # pooled: used by whichever reader thread
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # each SELECT is its own snapshot; nothing to commit
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    return engine
