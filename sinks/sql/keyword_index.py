"""SQLite's keyword indexes (FTS5) kept to few segments: an incremental merge, one step at a time.

FTS5 adds a segment for each flushed write and its automerge leaves several on each level, and a
MATCH looks every term up in every segment, so a store fed by many small writes searches slower
than the same rows merged. FTS5's 'merge' command merges up to N pages per call: the first call of
a pass (negative N) puts every segment on one level, the following ones (positive N) finish that
merge even while new segments arrive. A call that changes fewer than two rows did nothing, and the
pass is over. PostgreSQL's GIN indexes are kept by autovacuum; there is nothing to merge there.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncConnection

from sinks.sql.errors import InvalidRequestError

#: The FTS5 tables of the SQLite schema (migrations 0002 and 0005), memories' and episodes'.
KEYWORD_INDEXES = ("memories_fts", "episodes_fts")


def _checked(index: str) -> str:
    """The name is written into the statement, so only the schema's own tables pass."""
    if index not in KEYWORD_INDEXES:
        raise InvalidRequestError(f"not a keyword index: {index!r} (one of {', '.join(KEYWORD_INDEXES)})")
    return index


async def segments(conn: AsyncConnection, index: str) -> int:
    """How many segments (b-trees) `index` holds: each has at least one row in its `_idx` table."""
    table = _checked(index)
    return (await conn.exec_driver_sql(f"SELECT count(DISTINCT segid) FROM {table}_idx")).scalar_one()


async def merge_step(conn: AsyncConnection, index: str, pages: int, *, first: bool) -> bool:
    """Merge up to `pages` pages of `index`'s segments; whether there was anything to merge.

    `first` starts a pass (every segment onto one level); later steps continue it."""
    if pages < 1:
        raise InvalidRequestError(f"pages must be at least 1, got {pages}")
    table = _checked(index)
    before = (await conn.exec_driver_sql("SELECT total_changes()")).scalar_one()
    await conn.exec_driver_sql(
        f"INSERT INTO {table}({table}, rank) VALUES('merge', ?)", (-pages if first else pages,)
    )
    after = (await conn.exec_driver_sql("SELECT total_changes()")).scalar_one()
    return after - before >= 2
