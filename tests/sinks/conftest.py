"""The SQL store on each backend (`sql_url`: SQLite and PostgreSQL), for the store tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sinks.sql import SqlMemoryStore
from tests.sinks.store_builders import ESCALATIONS, EVENTS


@pytest.fixture
async def store(sql_url: str) -> AsyncIterator[SqlMemoryStore]:
    sql = SqlMemoryStore(sql_url, events_topic=EVENTS, escalations_topic=ESCALATIONS)
    await sql.setup()
    try:
        yield sql
    finally:
        await sql.close()
