"""Migrations: idempotent, independent of the working directory, and in step with `tables.py`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from beliefs.records import Polarity
from sinks.reach import SHARED_ONLY
from sinks.recall import Currency, RecallScope
from sinks.sql import SqlMemoryStore
from sinks.sql.convert import encode_embedding, memory_row
from sinks.sql.engine import create_engine
from sinks.sql.migrate import VERSION_TABLE, alembic_config, upgrade
from sinks.sql.tables import contested_slots, include_name, jobs, memories, metadata, recall_audit
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.recall.seeding import NOW, mem

OPTS = {"version_table": VERSION_TABLE, "include_name": include_name}
DDL = ("CREATE", "ALTER", "DROP")
CURRENT = Currency(now=NOW, confidence_floor=0.4)


def head() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


async def _current_revision(url: str) -> str | None:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda sync: MigrationContext.configure(sync, opts=OPTS).get_current_revision()
            )
    finally:
        await engine.dispose()


async def test_migrating_twice_is_a_no_op(sql_url: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # the scripts are found next to the package, not in the cwd
    engine = create_engine(sql_url)
    statements: list[str] = []
    try:
        await upgrade(engine)
        sa.event.listen(
            engine.sync_engine, "before_cursor_execute", lambda *args: statements.append(args[2].upper())
        )
        await upgrade(engine)
    finally:
        await engine.dispose()

    assert [s for s in statements if s.lstrip().startswith(DDL)] == []
    assert await _current_revision(sql_url) == head()


async def test_the_migrated_schema_matches_the_tables(sql_url: str) -> None:
    engine = create_engine(sql_url)
    try:
        await upgrade(engine)
        async with engine.connect() as conn:
            diff = await conn.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync, opts=OPTS), metadata)
            )
            tables = await conn.run_sync(lambda sync: set(sa.inspect(sync).get_table_names()))
            indexes = await conn.run_sync(
                lambda sync: {i["name"] for i in sa.inspect(sync).get_indexes("memories")}
            )
            episode_indexes = await conn.run_sync(
                lambda sync: {i["name"] for i in sa.inspect(sync).get_indexes("episodes")}
            )
    finally:
        await engine.dispose()

    assert diff == []
    assert {"memories", "jobs", "outbox", "episodes", "episode_embeddings", VERSION_TABLE} <= tables
    assert {"ix_episodes_session", "ix_episodes_listing", "ix_episodes_vector_dirty", "ix_episodes_expires"} <= (
        episode_indexes
    )
    assert {
        "ix_memories_active_slot",
        "ix_memories_listing",
        "ix_memories_active_text",
        "ix_memories_vector_dirty",
        "ix_memories_superseded_by",
    } <= indexes


async def test_setup_creates_the_sqlite_directory(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "memory.db"
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{path.as_posix()}")
    try:
        await store.setup()
        await store.setup()
        async with store._engine.connect() as conn:
            journal = (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar_one()
            busy = (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar_one()
    finally:
        await store.close()
    assert path.exists()
    assert (journal, busy) == ("wal", 5000)


def test_downgrade_and_the_alembic_cli_path(tmp_path: Path) -> None:
    """env.py also runs without a handed-over connection (the alembic CLI), from a URL."""
    url = f"sqlite+aiosqlite:///{(tmp_path / 'cli.db').as_posix()}"
    config = alembic_config()
    config.set_main_option("sqlalchemy.url", url)

    command.upgrade(config, "head")
    assert asyncio.run(_current_revision(url)) == head()
    command.downgrade(config, "base")
    assert asyncio.run(_current_revision(url)) is None
    command.upgrade(config, "head")
    assert asyncio.run(_current_revision(url)) == head()


async def test_0004_moves_embeddings_out_of_memories_and_keeps_keyword_search(isolated_sql_url: str, tenant: str) -> None:
    """A database written before 0004 keeps its embeddings (now in memory_embeddings), its pending
    vector points and, on SQLite, its FTS5 rows (keyed by rowid, which the column drop keeps)."""
    engine = create_engine(isolated_sql_url)
    await upgrade(engine, "0003")
    row = _without_later_columns(memory_row(mem(tenant, "u1", "The user paddles a kayak on weekends."), [0.25, -0.5, 1.0]))
    async with engine.begin() as conn:
        await conn.execute(sa.insert(_pre_0004_memories()), [{**row, "embedding": encode_embedding([0.25, -0.5, 1.0])}])
    await upgrade(engine)
    async with engine.connect() as conn:
        columns = await conn.run_sync(lambda sync: {c["name"] for c in sa.inspect(sync).get_columns("memories")})
    await engine.dispose()
    assert "embedding" not in columns

    store = SqlMemoryStore(isolated_sql_url)
    try:
        pending = {p.memory.id: p.embedding for p in await SqlVectorOutbox.of(store).pending_vectors(limit=100_000)}
        hits = await store.keyword_candidates(RecallScope(tenant, "u1"), CURRENT, ["kayak"], 10)
    finally:
        await store.close()
    assert pending[row["id"]] == [0.25, -0.5, 1.0]
    assert [hit.id for hit in hits] == [row["id"]]


#: Columns of `memories` added after 0004 (0006: polarity and sensitivity; 0011: vector_dirty_at;
#: 0013: the possibly-superseded link).
LATER_COLUMNS = frozenset(
    {"polarity", "sensitivity", "vector_dirty_at", "possibly_superseded_by", "possibly_superseded_at"}
)


def _without_later_columns(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in LATER_COLUMNS}


def _pre_0004_memories() -> sa.Table:
    """`memories` as revisions 0001-0003 left it: the columns of 0004 plus `embedding`."""
    return sa.Table(
        "memories",
        sa.MetaData(),
        *(sa.Column(c.name, c.type) for c in memories.columns if c.name not in LATER_COLUMNS),
        sa.Column("embedding", sa.LargeBinary),
    )


def _pre_0006_memories() -> sa.Table:
    return sa.Table(
        "memories",
        sa.MetaData(),
        *(sa.Column(c.name, c.type) for c in memories.columns if c.name not in LATER_COLUMNS),
    )


async def test_0006_reads_existing_memories_as_positive_and_ordinary(isolated_sql_url: str, tenant: str) -> None:
    """A memory written before 0006 comes back with polarity `positive` and no sensitivity, and on
    SQLite keeps its FTS5 row (plain ADD COLUMN keeps every rowid); a new one keeps both fields."""
    engine = create_engine(isolated_sql_url)
    await upgrade(engine, "0004")
    row = _without_later_columns(memory_row(mem(tenant, "u1", "The user paddles a kayak on weekends."), None))
    async with engine.begin() as conn:
        await conn.execute(sa.insert(_pre_0006_memories()), [row])
    await upgrade(engine)
    await engine.dispose()

    store = SqlMemoryStore(isolated_sql_url)
    try:
        old = await store.get_memory(tenant, row["id"])
        hits = await store.keyword_candidates(RecallScope(tenant, "u1"), CURRENT, ["kayak"], 10)
        fresh = mem(tenant, "u1", "The user no longer lives in Berlin.").model_copy(
            update={"polarity": Polarity.NEGATIVE, "sensitivity": "location", "entity": "user"}
        )
        await store.insert_memory(fresh, None)
        back = await store.get_memory(tenant, fresh.id)
    finally:
        await store.close()
    assert old is not None and (old.polarity, old.sensitivity) == (Polarity.POSITIVE, None)
    assert [hit.id for hit in hits] == [row["id"]]
    assert back is not None and (back.polarity, back.sensitivity) == (Polarity.NEGATIVE, "location")


async def test_0009_keeps_older_jobs_and_slots_readable_as_shared(isolated_sql_url: str, tenant: str) -> None:
    """Jobs and contested slots written before 0009 have no agent scope: they read as shared."""
    engine = create_engine(isolated_sql_url)
    await upgrade(engine, "0007")  # the revision before 0009
    job = {"job_id": "j-1", "tenant_id": tenant, "user_id": "u1", "turn_id": "t-1", "state": "done",
           "memory_ids": [], "reason": None, "created_at": NOW, "updated_at": NOW}  # fmt: skip
    slot = {"id": "s-1", "tenant_id": tenant, "user_id": "u1", "entity": "user", "attribute": "preferred_theme",
            "status": "open", "value_history": [], "opened_at": NOW}  # fmt: skip
    async with engine.begin() as conn:
        await conn.execute(sa.insert(_columns_before_0009(jobs, "agent_id", "visibility")), [job])
        await conn.execute(sa.insert(_columns_before_0009(contested_slots, "agent_id")), [slot])
    await upgrade(engine)
    await engine.dispose()

    store = SqlMemoryStore(isolated_sql_url)
    try:
        stored = await store.get_job(tenant, "j-1")
        slots = await store.list_contested(tenant, "u1", reach=SHARED_ONLY)
    finally:
        await store.close()
    assert stored is not None and stored.private_to is None
    assert [s.id for s in slots] == ["s-1"] and slots[0].agent_id is None


def _columns_before_0009(table: sa.Table, *added: str) -> sa.Table:
    return sa.Table(table.name, sa.MetaData(), *(sa.Column(c.name, c.type) for c in table.columns if c.name not in added))


async def test_0012_reads_older_audit_rows_as_quoting_no_episode(isolated_sql_url: str, tenant: str) -> None:
    """Recall audit rows written before 0012 have no `episode_ids`: they read as an empty list."""
    engine = create_engine(isolated_sql_url)
    await upgrade(engine, "0011")
    row = {"id": "a-1", "tenant_id": tenant, "user_id": "u1", "agent_id": None, "key_id": "k", "at": NOW,
           "query_digest": "0" * 64, "memory_ids": ["m-1"]}  # fmt: skip
    async with engine.begin() as conn:
        await conn.execute(sa.insert(_columns_before_0009(recall_audit, "episode_ids")), [row])
    await upgrade(engine)
    try:
        async with engine.connect() as conn:
            [stored] = (await conn.execute(sa.select(recall_audit).where(recall_audit.c.tenant_id == tenant))).mappings().all()
        assert (stored["memory_ids"], stored["episode_ids"]) == (["m-1"], [])
    finally:
        await engine.dispose()
