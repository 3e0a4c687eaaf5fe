"""Fixtures of the agents' tests that need the SQL store (decay and consolidation)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sinks.sql.store import SqlMemoryStore


@pytest.fixture
async def store(sql_url: str) -> AsyncIterator[SqlMemoryStore]:
    """The SQL store on each backend (`sql_url`), migrated."""
    sql = SqlMemoryStore(sql_url, events_topic="test.memory.events")
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()
