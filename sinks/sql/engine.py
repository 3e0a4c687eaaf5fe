"""The async engine, tuned per backend, and the one place driver outages become `SinkUnavailableError`.

SQLite runs in WAL mode (readers never block the writer) with `synchronous=NORMAL` and a busy
timeout. Its driver's implicit transactions are switched off so that beliefstream emits BEGIN
itself: write transactions take the write lock up front (`BEGIN IMMEDIATE`), which a deferred
transaction that read first could not get without failing at once.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import sqlalchemy.exc as sa_exc
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from sinks.errors import SinkUnavailableError

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


@asynccontextmanager
async def write_transaction(engine: AsyncEngine) -> AsyncIterator[AsyncConnection]:
    """A transaction that will write: on SQLite it holds the write lock from its first statement."""
    async with engine.connect() as conn:
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
    """Turn a driver's connection failure into `SinkUnavailableError`; other errors pass through."""
    try:
        yield
    except _OUTAGES as exc:
        raise SinkUnavailableError(f"SQL store unavailable during {what}: {_describe(exc)}") from exc


def _describe(exc: BaseException) -> str:
    original = getattr(exc, "orig", None) or exc
    return f"{type(original).__name__}: {original}".strip()
