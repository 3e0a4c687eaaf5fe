"""Statements run on the DBAPI cursor (`sinks.sql.sqlite_reads`) give the values SQLAlchemy gives."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite

from sinks.sql.column_types import UtcDateTime
from sinks.sql.sqlite_reads import PADDED_LENGTHS, CompiledRead, padded_length

things = sa.Table(
    "things",
    sa.MetaData(),
    sa.Column("id", sa.String, primary_key=True),
    sa.Column("at", UtcDateTime),
    sa.Column("tags", sa.JSON),
    sa.Column("flag", sa.Boolean),
    sa.Column("score", sa.Double),
)
AT = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)


@pytest.fixture
def db(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'things.db'}")
    things.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(
            things.insert(),
            [
                {"id": "a", "at": AT, "tags": ["x", "y"], "flag": True, "score": 0.5},
                {"id": "b", "at": AT.astimezone(timezone(timedelta(hours=2))), "tags": [], "flag": False, "score": 1},
                {"id": "c", "at": None, "tags": {"k": "v"}, "flag": None, "score": None},
                {"id": "d", "at": AT, "tags": None, "flag": True, "score": 2.0},
            ],
        )
        # written by hand, not by SQLAlchemy: an offset in the text, JSON with spaces around it
        conn.exec_driver_sql("INSERT INTO things VALUES ('e', '2026-03-01T11:30:00+02:00', ' [1, 2] ', 1, 3)")
        conn.exec_driver_sql("INSERT INTO things VALUES ('f', '2026-03-01', '\"word\"', 0, 4)")
    yield engine
    engine.dispose()


def by_sqlalchemy(engine: sa.Engine, statement, params) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(row) for row in conn.execute(statement, params)]


def by_cursor(engine: sa.Engine, statement, params) -> list[tuple]:
    compiled = CompiledRead(statement, SQLiteDialect_pysqlite())
    sql, args = compiled.bind(params)
    conn = sqlite3.connect(engine.url.database)
    try:
        return [tuple(row) for row in compiled.rows(conn.execute(sql, args).fetchall())]
    finally:
        conn.close()


def test_rows_are_the_values_sqlalchemy_gives(db) -> None:
    statement = sa.select(things).where(things.c.id.in_(sa.bindparam("ids", expanding=True))).order_by(things.c.id)
    params = {"ids": ["a", "b", "c", "d", "e", "f", "missing"]}
    rows = by_cursor(db, statement, params)
    assert rows == by_sqlalchemy(db, statement, params)
    assert [row[0] for row in rows] == ["a", "b", "c", "d", "e", "f"]
    assert all(row[1].tzinfo == UTC for row in rows if isinstance(row[1], datetime))
    assert rows[0][1:4] == (AT, ["x", "y"], True) and rows[1][1:3] == (AT, [])


def test_bound_values_are_processed_as_sqlalchemy_does(db) -> None:
    """`:after` is a UtcDateTime compared with the stored text; a literal and a limit bind too."""
    after = sa.bindparam("after", type_=things.c.at.type)
    statement = (
        sa.select(things.c.id, sa.literal(7, sa.Integer).label("seven"))
        .where(things.c.at > after, things.c.flag.is_(True), things.c.id.in_(sa.bindparam("ids", expanding=True)))
        .order_by(things.c.id)
        .limit(sa.bindparam("limit", type_=sa.Integer))
    )
    params = {"after": AT - timedelta(seconds=1), "ids": ["a", "d"], "limit": 5}
    assert by_cursor(db, statement, params) == by_sqlalchemy(db, statement, params) == [("a", 7), ("d", 7)]
    with pytest.raises(KeyError, match="limit"):
        CompiledRead(statement, SQLiteDialect_pysqlite()).bind({"after": AT, "ids": ["a"]})
    with pytest.raises(ValueError, match="empty"):
        CompiledRead(statement, SQLiteDialect_pysqlite()).bind(params | {"ids": []})


def test_in_lists_are_padded_to_few_lengths_with_the_same_answer(db) -> None:
    """A statement's SQL text depends on its IN list's padded length only, so few texts are prepared."""
    statement = sa.select(things.c.id).where(things.c.id.in_(sa.bindparam("ids", expanding=True))).order_by("id")
    compiled = CompiledRead(statement, SQLiteDialect_pysqlite())
    texts = {compiled.bind({"ids": ["a"] * n})[0] for n in range(1, 129)}
    assert len(texts) == len(PADDED_LENGTHS)
    for ids in (["c"], ["a", "b", "c"], ["f", "e", "d", "c", "b"]):
        sql, args = compiled.bind({"ids": ids})
        assert len(args) == padded_length(len(ids)) and args[len(ids) :] == [ids[-1]] * (len(args) - len(ids))
        assert by_cursor(db, statement, {"ids": ids}) == by_sqlalchemy(db, statement, {"ids": ids})
    assert all(padded_length(n) >= n for n in range(1, 1000))
    assert padded_length(129) == 256 and padded_length(300) == 384


def test_compiled_statements_are_kept_within_a_bound(tmp_path, monkeypatch) -> None:
    from sinks.sql import reader

    monkeypatch.setattr(reader, "COMPILED_READS", 4)
    connections = reader._SqliteConnections(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}", 1000)
    statements = [sa.select(things.c.id).where(things.c.score > n) for n in range(10)]  # rebuilt, as an evicted builder's would be
    try:
        compiled = [connections.compiled(statement) for statement in statements]
        assert len(connections._compiled) == 4
        assert connections.compiled(statements[-1]) is compiled[-1]  # the newest are still kept
        assert connections.compiled(statements[0]).statement is statements[0]  # an old one is compiled again
    finally:
        connections.close()
