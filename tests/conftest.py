"""Shared fixtures: SQL URLs for both backends (SQLite file, a fresh PostgreSQL database)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator

import pytest

PG_ADMIN_DSN = os.environ.get("BELIEFSTREAM_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_host_url() -> str:
    """`postgresql+asyncpg://user@host:port` of the test server, without a database."""
    return PG_ADMIN_DSN.replace("postgresql://", "postgresql+asyncpg://", 1).rsplit("/", 1)[0]


async def _pg_admin(statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_DSN)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A fresh database on the PostgreSQL server for this test session, dropped at the end."""
    name = f"bs_test_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    except OSError as exc:  # pragma: no cover - the server is down
        pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN_DSN}: {exc}")
    yield f"{_pg_host_url()}/{name}"
    asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def sql_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """A SQL URL for each backend; PostgreSQL tests share one database, so use unique tenants."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{(tmp_path / 'memory.db').as_posix()}"
    return request.getfixturevalue("postgres_database")


def unique_tenant() -> str:
    """A tenant id no other test uses (PostgreSQL tests share a database)."""
    return f"tenant-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def tenant() -> str:
    """A tenant of this test alone."""
    return unique_tenant()


def _own_database(backend: str, tmp_path, prefix: str) -> Iterator[str]:
    """A database of one test alone: a new SQLite file, or a PostgreSQL database dropped after."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{(tmp_path / f'{prefix}.db').as_posix()}"
        return
    name = f"bs_{prefix}_{uuid.uuid4().hex[:12]}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{_pg_host_url()}/{name}"
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def isolated_sql_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """Like `sql_url`, but PostgreSQL gets a database of this test alone: a worker's recovery reads
    every pending row in its database, so live tests must not see other tests' rows."""
    yield from _own_database(request.param, tmp_path, "memory" if request.param == "sqlite" else "it")


@pytest.fixture
def second_sql_url(sql_url: str, tmp_path) -> Iterator[str]:
    """An empty database on the backend of `sql_url`, of this test alone: a store to copy into."""
    yield from _own_database("sqlite" if sql_url.startswith("sqlite") else "postgres", tmp_path, "copy")


@pytest.fixture
async def second_store(second_sql_url: str):
    """A migrated store on `second_sql_url`."""
    from sinks.sql.store import SqlMemoryStore

    store = SqlMemoryStore(second_sql_url)
    await store.setup()
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture(scope="session")
def fake_anthropic_server():
    """One local fake of the Anthropic Messages API for the session (tests/llm/fake_anthropic.py)."""
    from tests.llm.fake_anthropic import FakeAnthropic

    with FakeAnthropic.running() as server:
        yield server


@pytest.fixture
def fake(fake_anthropic_server):
    """The fake API with an empty script and no recorded requests."""
    fake_anthropic_server.reset()
    return fake_anthropic_server
