"""A turn still in flight when its user is erased is refused by the store's write, on both backends:
nothing of it lands (rows, episodes, jobs, intake, events), replays stay refused, a turn accepted
after the erasure is written, and an erasure never interleaves with a write of its user."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import sqlalchemy as sa

from beliefs.records import Turn, job_id_for
from sinks.sql import SqlMemoryStore
from sinks.sql.engine import write_transaction
from sinks.sql.erasure_guard import latest_erasures
from sinks.sql.intake import queued_job
from sinks.sql.tables import episodes, intake, jobs, memories, outbox
from tests.sinks.store_builders import done, meeting, turn

SECOND = timedelta(seconds=1)


def accepted(t: Turn, at: datetime | None) -> Turn:
    return t.model_copy(update={"accepted_at": at})


async def rows_of(store: SqlMemoryStore, tenant: str, user: str) -> dict[str, int]:
    """Every row that names the user, by table (the erasure receipt names a digest only)."""
    async with store._engine.connect() as conn:
        found = {
            table.name: (
                await conn.execute(
                    sa.select(sa.func.count()).where(table.c.tenant_id == tenant, table.c.user_id == user)
                )
            ).scalar_one()
            for table in (memories, episodes, jobs, intake)
        }
        events = sa.select(sa.func.count()).where(outbox.c.key == f"{tenant}:{user}")
        found["outbox"] = (await conn.execute(events)).scalar_one()
    return {name: n for name, n in found.items() if n}


async def erased_at(store: SqlMemoryStore, tenant: str, user: str) -> datetime:
    report = await store.erase_user(tenant, user)
    assert report.erased_at is not None
    return report.erased_at


async def test_a_turn_accepted_before_the_erasure_leaves_nothing_even_replayed(store, tenant: str) -> None:
    first = turn(tenant, "gone")
    await store.write([done(first, meeting(first, "morning"))])
    erased = await erased_at(store, tenant, "gone")
    in_flight = accepted(turn(tenant, "gone"), erased - SECOND)
    other = accepted(turn(tenant, "stays"), erased - SECOND)
    batch = [done(in_flight, meeting(in_flight, "evening")), done(other, meeting(other, "noon"))]

    for _ in range(2):  # the batch delivered again after a crash: refused again, nothing doubles
        result = await store.write(batch)
        assert result.erased_job_ids == [job_id_for(tenant, in_flight.turn_id)]
        assert {m.user_id for m in result.inserted} <= {"stays"}
        assert await rows_of(store, tenant, "gone") == {}
    assert (await rows_of(store, tenant, "stays"))["memories"] == 1


async def test_a_turn_without_a_known_acceptance_is_not_kept_for_an_erased_user(store, tenant: str) -> None:
    await erased_at(store, tenant, "gone")
    unknown = accepted(turn(tenant, "gone"), None)
    result = await store.write([done(unknown, meeting(unknown, "evening"))])
    assert result.erased_job_ids == [job_id_for(tenant, unknown.turn_id)]
    assert await rows_of(store, tenant, "gone") == {}


async def test_a_user_who_comes_back_after_the_erasure_is_written(store, tenant: str) -> None:
    erased = await erased_at(store, tenant, "back")
    again = accepted(turn(tenant, "back"), erased + SECOND)
    result = await store.write([done(again, meeting(again, "morning"))])
    assert result.erased_job_ids == []
    rows = await rows_of(store, tenant, "back")
    assert rows["memories"] == 1 and rows["jobs"] == 1


async def test_the_latest_erasure_decides(store, tenant: str) -> None:
    first = await erased_at(store, tenant, "twice")
    between = accepted(turn(tenant, "twice"), first + timedelta(milliseconds=1))
    await asyncio.sleep(0.05)
    await erased_at(store, tenant, "twice")  # the user came back, then was erased again
    result = await store.write([done(between, meeting(between, "morning"))])
    assert result.erased_job_ids == [job_id_for(tenant, between.turn_id)]
    assert await rows_of(store, tenant, "twice") == {}


async def test_a_retained_turn_the_erasure_overtook_loses_its_job_and_intake_turn(store, tenant: str) -> None:
    erased = await erased_at(store, tenant, "gone")
    raced = accepted(turn(tenant, "gone"), erased - SECOND)  # accepted, then its intake commit lost the race
    await store.enqueue_jobs([queued_job(raced, erased - SECOND)], [raced])
    assert (await rows_of(store, tenant, "gone")) == {"jobs": 1, "intake": 1}

    await store.write([done(raced, meeting(raced, "evening"))])

    assert await rows_of(store, tenant, "gone") == {}


async def test_an_erasure_waits_for_a_write_of_its_user_and_the_next_write_sees_it(store, tenant: str) -> None:
    user = [(tenant, "busy")]
    async with write_transaction(store._engine) as conn:
        assert await latest_erasures(conn, user) == {}  # the write holds its users
        erasing = asyncio.create_task(store.erase_user(tenant, "busy"))
        await asyncio.sleep(0.5)
        assert not erasing.done()  # the erasure waits for the write to commit
    report = await asyncio.wait_for(erasing, timeout=10)
    async with write_transaction(store._engine) as conn:
        assert await latest_erasures(conn, user) == {user[0]: report.erased_at}
