"""The async engine, tuned per backend, and the one place driver outages become `SinkUnavailableError`.

SQLite runs in WAL mode (readers never block the writer) with `synchronous=NORMAL` and a busy
timeout. Its driver's implicit transactions are switched off so that beliefstream emits BEGIN
itself: write transactions take the write lock up front (`BEGIN IMMEDIATE`), which a deferred
transaction that read first could not get without failing at once.

On SQLite (one writer at a time) a process's write transactions also pass one `WriteGate`, in
turn instead of through SQLite's busy-wait polling, where a waiting writer can miss the lock past
its timeout: the write path (intake, pipeline, reaper) first, and writes that can wait (`yielding`:
recall's audit rows and access counts) only when no other writer holds or wants the lock.

Every write transaction reports to the engine's `WriteHealth`: a failure of the storage itself (a
full disk, an I/O error, a read-only database or file system) marks writes as failing until a
write commits again, so readiness can say so (`SqlMemoryStore.writable`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import sqlalchemy.exc as sa_exc
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from sinks.errors import SinkUnavailableError

log = logging.getLogger(__name__)

#: Execution option that makes a SQLite transaction take the write lock when it begins.
SQLITE_BEGIN = "beliefstream_sqlite_begin"

_OUTAGES: tuple[type[BaseException], ...] = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,
    OSError,
    asyncio.TimeoutError,
    sqlite3.OperationalError,  # recall's reads run on pysqlite itself (`reader`): what SQLAlchemy would wrap
    sqlite3.InterfaceError,
)
try:  # asyncpg raises its own errors for refused or dropped connections
    import asyncpg

    _OUTAGES += (asyncpg.PostgresConnectionError, asyncpg.InterfaceError)
except ImportError:  # pragma: no cover - asyncpg is a dependency
    pass


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL, None for an in-memory database."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file::memory:"):
        return None
    return Path(database)


def create_engine(url: str, *, busy_timeout_ms: int = 5000, connect_timeout_s: float = 10.0) -> AsyncEngine:
    """An async engine for `url`; no connection is opened until first use."""
    if not is_sqlite(url):
        return create_async_engine(url, pool_pre_ping=True, connect_args={"timeout": connect_timeout_s})
    in_memory = sqlite_path(url) is None
    engine = create_async_engine(url, poolclass=StaticPool) if in_memory else create_async_engine(url)
    _tune_sqlite(engine, busy_timeout_ms, wal=not in_memory)
    return engine


def _tune_sqlite(engine: AsyncEngine, busy_timeout_ms: int, wal: bool) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see the module docstring)
        cursor = dbapi_connection.cursor()
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


#: SQLite's result codes for a storage that cannot take a write (sqlite3 exceptions name them).
_SQLITE_STORAGE = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN")
_SQLITE_STORAGE_TEXT = ("disk is full", "disk i/o error", "readonly database", "unable to open database")
#: PostgreSQL's SQLSTATE classes and codes for the same: insufficient resources (53: disk full, out of
#: memory), system errors (58: I/O), a read-only transaction (25006: a standby, a read-only database).
_PG_STORAGE = ("53", "58", "25006")


def storage_failure(exc: BaseException) -> str | None:
    """What the storage said, if `exc` (or what it wraps) means the database cannot take a write."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        name = getattr(error, "sqlite_errorname", None) or ""
        sqlstate = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None) or ""
        text = str(error).lower()
        if (
            name.startswith(_SQLITE_STORAGE)
            or any(part in text for part in _SQLITE_STORAGE_TEXT)
            or (isinstance(sqlstate, str) and sqlstate.startswith(_PG_STORAGE))
        ):
            return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}".strip()
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    return None


class WriteHealth:
    """Whether this engine's writes go through: the last storage failure, cleared by the next commit."""

    def __init__(self) -> None:
        self.failure: str | None = None

    def failed(self, exc: BaseException) -> None:
        reason = storage_failure(exc)
        if reason is not None:
            if self.failure is None:
                log.error("SQL writes are failing: %s", reason)
            self.failure = reason

    def committed(self) -> None:
        if self.failure is not None:
            log.warning("SQL writes go through again")
        self.failure = None


class WriteGate:
    """One write transaction at a time in this process, handed over in turn (not through SQLite's
    busy-wait polling, which can leave one writer without the lock past its timeout); those that
    yield go only when no other writer holds the gate or waits for it."""

    def __init__(self) -> None:
        self._held = False
        self._urgent_waiting = 0
        self._changed: asyncio.Condition | None = None  # made in the running loop, at first use

    @asynccontextmanager
    async def hold(self, *, yielding: bool = False) -> AsyncIterator[None]:
        if self._changed is None:
            self._changed = asyncio.Condition()
        changed = self._changed
        async with changed:
            if yielding:
                await changed.wait_for(lambda: not self._held and self._urgent_waiting == 0)
            else:
                self._urgent_waiting += 1
                try:
                    await changed.wait_for(lambda: not self._held)
                finally:
                    self._urgent_waiting -= 1
            self._held = True
        try:
            yield
        finally:
            async with changed:
                self._held = False
                changed.notify_all()


_HEALTH: weakref.WeakKeyDictionary[object, WriteHealth] = weakref.WeakKeyDictionary()
_GATES: weakref.WeakKeyDictionary[object, WriteGate] = weakref.WeakKeyDictionary()


def write_health(engine: AsyncEngine) -> WriteHealth:
    """The engine's one `WriteHealth` (made at first use)."""
    return _HEALTH.setdefault(engine.sync_engine, WriteHealth())


@asynccontextmanager
async def _gate(engine: AsyncEngine, yielding: bool) -> AsyncIterator[None]:
    if engine.dialect.name != "sqlite":  # PostgreSQL locks rows, not the database: no gate
        yield
        return
    async with _GATES.setdefault(engine.sync_engine, WriteGate()).hold(yielding=yielding):
        yield


@asynccontextmanager
async def write_turn(engine: AsyncEngine, *, yielding: bool = False) -> AsyncIterator[None]:
    """This process's turn to write to the engine's database: its `WriteGate` on SQLite (`yielding`:
    after every writer that does not yield), the outcome of what is written meanwhile reported to its
    `WriteHealth`. For `write_transaction`, and for a write on a connection of its own (`sqlite_writes`)."""
    health = write_health(engine)
    try:
        async with _gate(engine, yielding):
            yield
    except Exception as exc:
        health.failed(exc)
        raise
    health.committed()


@asynccontextmanager
async def write_transaction(engine: AsyncEngine, *, yielding: bool = False) -> AsyncIterator[AsyncConnection]:
    """A transaction that will write: on SQLite it holds the write lock from its first statement,
    taken in the process's turn (`write_turn`)."""
    async with write_turn(engine, yielding=yielding), engine.connect() as conn:
        await conn.execution_options(**{SQLITE_BEGIN: "IMMEDIATE"})
        async with conn.begin():
            yield conn


@asynccontextmanager
async def read_snapshot(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A read-only transaction whose statements all see one committed state, whatever commits meanwhile.

    PostgreSQL: REPEATABLE READ (the snapshot is taken at its first statement). SQLite: a deferred
    transaction, whose first read fixes its view of the WAL; writers go on, unseen by it.
    """
    async with engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            await conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        async with conn.begin():
            yield conn


@asynccontextmanager
async def unavailable_on_outage(what: str) -> AsyncIterator[None]:
    """Turn a driver's connection failure, or a storage that cannot take a write, into
    `SinkUnavailableError`; other errors pass through."""
    try:
        yield
    except _OUTAGES as exc:
        raise SinkUnavailableError(f"SQL store unavailable during {what}: {_describe(exc)}") from exc
    except sa_exc.DBAPIError as exc:  # PostgreSQL's disk full or read-only is no OperationalError
        if storage_failure(exc) is None:
            raise
        raise SinkUnavailableError(f"SQL store cannot write during {what}: {_describe(exc)}") from exc


def _describe(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    return f"{type(original).__name__}: {original}".strip()
