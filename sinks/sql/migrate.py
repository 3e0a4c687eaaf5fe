"""Schema migrations run from code: `alembic upgrade head` over the store's own async engine.

The migration scripts are located next to this module, never relative to the working directory,
so an installed package migrates the same way as a checkout.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from sinks.sql.engine import write_transaction

HERE = Path(__file__).parent
#: Our own version table, so a database shared with another Alembic project is not confused.
VERSION_TABLE = "beliefstream_alembic_version"

#: Key of the PostgreSQL advisory lock that serializes concurrent migrations (several workers starting).
_PG_MIGRATION_LOCK = 0x62656C6965660001


def alembic_config(connection: Connection | None = None) -> Config:
    """The Alembic config of the store, with `connection` handed to env.py when given."""
    config = Config(str(HERE / "alembic.ini"))
    config.set_main_option("script_location", str(HERE / "migrations"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection, revision: str) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_MIGRATION_LOCK})
    command.upgrade(alembic_config(connection), revision)


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Bring the schema to `revision`; a schema already there is left untouched."""
    async with write_transaction(engine) as conn:
        await conn.run_sync(_upgrade, revision)


async def probe_write(engine: AsyncEngine) -> None:
    """A write that changes nothing (the schema version row rewritten) and commits, or raises: on a
    full disk or a read-only database it fails like any write."""
    async with write_transaction(engine) as conn:
        await conn.execute(text(f"UPDATE {VERSION_TABLE} SET version_num = version_num"))
