"""Recall's reads (keyword, pinned, hydrate, open contests, episodes) of a SQLite file, without aiosqlite's hops.

Why not the async engine: through it every DBAPI call of aiosqlite is its own trip to the
connection's thread and back to the event loop (checkout, BEGIN, execute, fetch, cursor close,
rollback), and on two busy cores each trip waits for the GIL and a core. A SQLite file is therefore
read through pysqlite connections of the reader's own, one per thread that reads, each statement
compiled once and run on the cursor (`sqlite_reads`): statement, fetch and row conversion in one
call. WAL lets these reads run beside the writer; `query_only` makes sure they never write.

Where that call runs is `readers`:
- 0 (the default): on the event loop itself. A recall's statements take little SQLite time each
  once the file is in the page cache, and a reader thread pays more than that in GIL hand-offs:
  pysqlite releases the GIL for every row it steps, and each time the thread waits for the event
  loop's Python to give the GIL back (up to the switch interval). Reads on the loop served more
  recalls per second (`docs/benchmarks.md`, "Recall latency and throughput"; its history in git).
- n > 0: on a pool of n threads, so that page-cache misses of a file much larger than memory wait
  beside each other instead of stalling the loop.

PostgreSQL and in-memory SQLite (one shared connection) keep the async engine. Either way the
converters receive the rows as sequences of column values, typed as the columns' types give them.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from beliefs.episodes import Episode
from beliefs.records import Memory
from sinks.concurrency import gather_all
from sinks.recall import Currency, KeywordHit, OpenContest, QueryLinks, RecallScope
from sinks.sql import episode_recall, hydration, linked_queries, recall_queries
from sinks.sql.engine import is_sqlite, sqlite_path, unavailable_on_outage
from sinks.sql.sqlite_reads import CompiledRead

T = TypeVar("T")

#: Reader threads for a SQLite file; 0 reads on the event loop (see above).
READERS = 0
#: Prepared statements each SQLite connection keeps (recall's statements and their padded IN lengths).
STATEMENT_CACHE = 256
#: Statements kept compiled; the builders' own caches may rebuild a statement, so the oldest make way.
COMPILED_READS = 512

#: What hears each statement recall runs: its SQL and parameters (tests, tracing).
StatementListener = Callable[[str, Sequence[Any]], None]


class RecallReader:
    def __init__(self, url: str, engine: AsyncEngine, *, readers: int = READERS, busy_timeout_ms: int = 5000):
        self._engine = engine
        self._dialect = engine.dialect.name
        self._sqlite: _SqliteConnections | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._listeners: list[StatementListener] = []
        if readers < 0:
            raise ValueError("readers must be 0 (read on the event loop) or more")
        self._closed = False
        if is_sqlite(url) and sqlite_path(url) is not None:
            self._sqlite = _SqliteConnections(url, busy_timeout_ms)
            if readers:
                self._executor = ThreadPoolExecutor(readers, thread_name_prefix="beliefstream-sql-read")

    def on_statement(self, listener: StatementListener) -> None:
        """Have `listener(sql, parameters)` called before each statement recall runs.

        On the async engine (PostgreSQL, in-memory SQLite) it hears every statement of that engine.
        """
        self._listeners.append(listener)
        if self._sqlite is None:

            def heard(_conn, _cursor, statement, parameters, _context, _executemany) -> None:
                listener(statement, parameters)

            event.listen(self._engine.sync_engine, "before_cursor_execute", heard)

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
        plan = hydration.hydrate_plan(self._dialect, scope, currency, ids, slot_attributes)
        if plan is None:
            return []
        return await self._read("hydrate", plan, hydration.hydrated)

    async def pinned_memories(self, scope: RecallScope, currency: Currency, limit: int) -> list[Memory]:
        plan = recall_queries.pinned_plan(scope, currency, limit)
        return await self._read("pinned_memories", plan, recall_queries.memories_of)

    async def safety_memories(
        self, scope: RecallScope, currency: Currency, attributes: Sequence[str], limit: int
    ) -> list[Memory]:
        plan = recall_queries.safety_plan(scope, currency, attributes, limit)
        if plan is None:
            return []
        return await self._read("safety_memories", plan, recall_queries.memories_of)

    async def linked_candidates(
        self, scope: RecallScope, currency: Currency, links: QueryLinks, limit: int
    ) -> list[str]:
        plan = linked_queries.linked_plan(scope, currency, links, limit)
        if plan is None:
            return []
        return await self._read("linked_candidates", plan, recall_queries.ids_of)

    async def pinned_and_linked(
        self, scope: RecallScope, currency: Currency, pinned_limit: int, links: QueryLinks, linked_limit: int
    ) -> tuple[list[Memory], list[str]]:
        plan = linked_queries.pinned_linked_plan(scope, currency, pinned_limit, links, linked_limit)
        if plan is None:
            return await self.pinned_memories(scope, currency, pinned_limit), []
        if self._sqlite is None:  # the async engine: the two statements beside each other, both to the end
            pinned, linked = await gather_all(
                self.pinned_memories(scope, currency, pinned_limit),
                self.linked_candidates(scope, currency, links, linked_limit),
            )
            return pinned, linked
        return await self._read("pinned_and_linked", plan, linked_queries.pinned_and_linked)

    async def open_contests(self, scope: RecallScope, currency: Currency, limit: int) -> list[OpenContest]:
        plan = recall_queries.open_contests_plan(scope, currency, limit)
        return await self._read("open_contests", plan, recall_queries.open_contests_of)

    async def episode_keyword_candidates(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        plan = episode_recall.keyword_plan(self._dialect, scope, currency, terms, limit)
        if plan is None:
            return []
        read = episode_recall.keyword_and_adjacent(limit)
        hits, around = await self._read("episode_keyword_candidates", plan, read)
        if not hits:
            return hits
        shares = episode_recall.NEIGHBOUR_SHARES
        if around is None:  # too many hits for the statement to read around each: around the best
            seeds = [hit.id for hit in hits[: episode_recall.SPREAD_SEEDS]]
            adjacent = episode_recall.adjacent_plan(self._dialect, scope, currency, seeds, len(shares))
            around = {}
            if adjacent is not None:
                around = await self._read("episode_adjacent", adjacent, episode_recall.adjacent_of)
        return episode_recall.spread_to_neighbours(hits, around, shares, limit)

    async def hydrate_episodes(self, scope: RecallScope, currency: Currency, ids: Sequence[str]) -> list[Episode]:
        plan = episode_recall.hydrate_plan(scope, currency, ids)
        if plan is None:
            return []
        return await self._read("hydrate_episodes", plan, episode_recall.hydrated_in_order(ids))

    async def episode_neighbours(
        self, scope: RecallScope, currency: Currency, ids: Sequence[str], window: int
    ) -> dict[str, list[Episode]]:
        plan = episode_recall.neighbours_plan(self._dialect, scope, currency, ids, window)
        if plan is None:
            return {}
        return await self._read("episode_neighbours", plan, episode_recall.neighbours_of(ids))

    def close(self) -> None:
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        if self._sqlite is not None:
            self._sqlite.close()

    async def _read(self, what: str, plan: tuple[Any, dict[str, Any]], convert: Callable[[Any], T]) -> T:
        async with unavailable_on_outage(what):
            if self._sqlite is None:
                async with self._engine.connect() as conn:
                    return convert((await conn.execute(*plan)).all())
            if self._closed:
                raise RuntimeError("the SQL store is closed")
            if self._executor is None:
                await asyncio.sleep(0)  # work already due first, e.g. a recall's query embedding call
                return self._run(plan, convert)
            return await asyncio.get_running_loop().run_in_executor(self._executor, self._run, plan, convert)

    def _run(self, plan: tuple[Any, dict[str, Any]], convert: Callable[[Any], T]) -> T:
        assert self._sqlite is not None
        statement, params = plan
        compiled = self._sqlite.compiled(statement)
        sql, args = compiled.bind(params)
        for listener in self._listeners:
            listener(sql, args)
        cursor = self._sqlite.connection().cursor()
        try:
            fetched = cursor.execute(sql, args).fetchall()
        finally:
            cursor.close()
        return convert(compiled.rows(fetched))


class _SqliteConnections:
    """A SQLite file's read connections, one per thread that reads, and the statements compiled for them."""

    def __init__(self, url: str, busy_timeout_ms: int) -> None:
        self._dialect = SQLiteDialect_pysqlite()
        self._args, self._kwargs = self._dialect.create_connect_args(make_url(url).set(drivername="sqlite"))
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[sqlite3.Connection] = []
        self._compiled: dict[int, CompiledRead] = {}

    def compiled(self, statement: Any) -> CompiledRead:
        """`statement` compiled once (the cache holds it, so its id names no other statement); at most
        `COMPILED_READS` are kept, the oldest dropped first (a dropped one is compiled again if it comes back)."""
        found = self._compiled.get(id(statement))
        if found is None or found.statement is not statement:
            found = CompiledRead(statement, self._dialect)
            with self._lock:
                while len(self._compiled) >= COMPILED_READS:
                    del self._compiled[next(iter(self._compiled))]
                self._compiled[id(statement)] = found
        return found

    def connection(self) -> sqlite3.Connection:
        """This thread's connection: autocommit reads (each SELECT its own snapshot), never a write."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                *self._args, **(self._kwargs | {"check_same_thread": False}), cached_statements=STATEMENT_CACHE
            )
            conn.isolation_level = None
            conn.execute(f"PRAGMA busy_timeout={self._busy_timeout_ms}")
            conn.execute("PRAGMA query_only=ON")
            with self._lock:
                self._opened.append(conn)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()
