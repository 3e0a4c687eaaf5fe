"""Alembic environment of the SQL store.

`sinks.sql.migrate` hands over an open connection in `config.attributes["connection"]` (run from
an async engine through `connection.run_sync`). From the alembic CLI, the URL comes from
`-x url=...` or `sqlalchemy.url`, and an async engine is created here.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from sinks.sql.engine import create_engine
from sinks.sql.migrate import VERSION_TABLE
from sinks.sql.tables import include_name, metadata

config = context.config


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        include_name=include_name,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_from_url(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


def _main() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("no database: pass -x url=<sqlalchemy url> or set sqlalchemy.url")
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=metadata, version_table=VERSION_TABLE, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    asyncio.run(_run_from_url(url))


_main()
