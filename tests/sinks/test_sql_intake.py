"""The intake: an accepted turn is in SQL with its queued job, and leaves in the transaction that
finishes the job (write path, reaper failure, erasure); nothing in between, on both backends."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from beliefs.records import JobState, Turn, job_id_for, utcnow
from beliefs.write_plan import TurnOutcome
from sinks.sql import SqlMemoryStore
from sinks.sql.intake import SqlIntake, queued_job
from sinks.sql.tables import intake
from tests.conftest import unique_tenant
from tests.sinks.store_builders import T0, done, meeting, turn


async def accept(store: SqlMemoryStore, *turns: Turn) -> None:
    await store.enqueue_jobs([queued_job(t, T0) for t in turns], list(turns))


async def pending(store: SqlMemoryStore, tenant: str) -> dict[str, bytes]:
    """{turn_id: record value} of the tenant's pending turns (PostgreSQL tests share a database)."""
    async with store._engine.connect() as conn:
        rows = await conn.execute(sa.select(intake.c.turn_id, intake.c.value).where(intake.c.tenant_id == tenant))
        return {r.turn_id: bytes(r.value) for r in rows}


async def test_accepted_turns_are_kept_with_their_queued_jobs(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    first, second = turn(tenant, text="I live in Oslo."), turn(tenant, user="u2", text="I use vim.")
    await accept(store, first, second)
    await accept(store, first)  # a retried request: nothing doubles

    kept = await pending(store, tenant)
    assert sorted(kept) == [first.turn_id, second.turn_id]
    record = Turn.model_validate_json(kept[first.turn_id])  # the record, as it is published again
    assert record.accepted_at is not None  # stamped, so that an erasure in between overtakes it
    assert record.model_copy(update={"accepted_at": None}) == first
    job = await store.get_job(tenant, job_id_for(tenant, first.turn_id))
    assert job.state is JobState.QUEUED


async def test_finishing_the_job_removes_the_turn_in_the_same_write(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    kept, skipped, other = turn(tenant), turn(tenant), turn(tenant)
    await accept(store, kept, skipped, other)
    skip = TurnOutcome(skipped, job_id_for(tenant, skipped.turn_id), JobState.SKIPPED, "greeting")

    await store.write([done(kept, meeting(kept, "morning")), skip])

    assert list(await pending(store, tenant)) == [other.turn_id]


async def test_a_finished_turn_accepted_again_is_not_kept(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    t = turn(tenant)
    await store.write([done(t, meeting(t, "morning"))])

    await accept(store, t)  # the client retries after the job finished

    assert await pending(store, tenant) == {}
    assert (await store.get_job(tenant, job_id_for(tenant, t.turn_id))).state is JobState.DONE


async def test_failing_a_job_drops_its_turn_and_never_touches_a_finished_one(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    lost, finished = turn(tenant), turn(tenant)
    await accept(store, lost, finished)
    await store.write([done(finished, meeting(finished, "noon"))])
    side = SqlIntake.of(store)

    at = utcnow()
    await side.fail([job_id_for(tenant, lost.turn_id), job_id_for(tenant, finished.turn_id)], "not_processed: x", at)

    failed = await store.get_job(tenant, job_id_for(tenant, lost.turn_id))
    assert (failed.state, failed.reason) == (JobState.FAILED, "not_processed: x")
    assert (await store.get_job(tenant, job_id_for(tenant, finished.turn_id))).state is JobState.DONE
    assert await pending(store, tenant) == {}


async def test_pages_come_in_acceptance_order_with_publication_marks(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    turns = [turn(tenant) for _ in range(5)]
    side = SqlIntake.of(store)
    for i, t in enumerate(turns):
        await store.enqueue_jobs([queued_job(t, T0)], [t])
        async with store._engine.begin() as conn:  # acceptance times one second apart
            await conn.execute(
                sa.update(intake)
                .where(intake.c.turn_id == t.turn_id, intake.c.tenant_id == tenant)
                .values(accepted_at=T0 + timedelta(seconds=i), published_at=T0 + timedelta(seconds=i))
            )

    mine = [r for r in await side.page(limit=100_000) if r.tenant_id == tenant]
    assert [r.turn_id for r in mine] == [t.turn_id for t in turns]
    assert all(r.key == f"{tenant}:u1".encode() and r.attempts == 0 for r in mine)
    rest = [r for r in await side.page(after=(mine[1].accepted_at, mine[1].job_id)) if r.tenant_id == tenant]
    assert [r.turn_id for r in rest] == [t.turn_id for t in turns[2:]]
    early = [r for r in await side.page(published_before=T0 + timedelta(seconds=2)) if r.tenant_id == tenant]
    assert [r.turn_id for r in early] == [t.turn_id for t in turns[:2]]

    later = T0 + timedelta(hours=1)
    await side.mark_published([mine[0].job_id], later, attempt=True)
    await side.mark_published([mine[1].job_id], later, attempt=False)
    marked = {r.turn_id: r for r in await side.page(limit=100_000) if r.tenant_id == tenant}
    assert (marked[turns[0].turn_id].attempts, marked[turns[0].turn_id].published_at) == (1, later)
    assert (marked[turns[1].turn_id].attempts, marked[turns[1].turn_id].published_at) == (0, later)


async def test_purge_drops_turns_of_finished_or_erased_jobs(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    waiting, finished = turn(tenant), turn(tenant)
    await accept(store, waiting, finished)
    async with store._engine.begin() as conn:  # finished by a path that did not touch the intake
        await conn.execute(
            sa.text("UPDATE jobs SET state = 'done' WHERE job_id = :j"), {"j": job_id_for(tenant, finished.turn_id)}
        )

    await SqlIntake.of(store).purge_finished()

    assert list(await pending(store, tenant)) == [waiting.turn_id]


async def test_erasure_removes_the_users_pending_turns(store: SqlMemoryStore) -> None:
    tenant = unique_tenant()
    erased, kept = turn(tenant, user="gone"), turn(tenant, user="stays")
    await accept(store, erased, kept)

    await store.erase_user(tenant, "gone")

    assert list(await pending(store, tenant)) == [kept.turn_id]
