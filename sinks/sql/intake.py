"""The intake: accepted turns kept in SQL until the write path finishes their job.

Why: the embedded broker keeps its log in memory only, so "202 Accepted" can only mean durable if
the turn is in SQL before the answer. `accept` writes the queued jobs and the turns in one
transaction; the write path's transaction that finishes a job removes its turn (`remove`), so
there is no moment at which a turn is in neither place. `SqlIntake` serves the re-publication at
start and the reaper (`launch/reaper.py`): pages of pending turns, publication marks, and failing
a job that was published too often, with its reason, in the same transaction as dropping the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from beliefs.records import Job, JobState, Turn, job_id_for
from sinks.contracts import IntakeRow
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.queries import chunked, dialect_insert, insert_jobs_if_absent
from sinks.sql.tables import intake, jobs


def queued_job(turn: Turn, now: datetime) -> Job:
    """The queued job of a turn, its id derived from (tenant, turn id)."""
    return Job(
        job_id=job_id_for(turn.tenant_id, turn.turn_id),
        tenant_id=turn.tenant_id,
        user_id=turn.user_id,
        turn_id=turn.turn_id,
        state=JobState.QUEUED,
        created_at=now,
        updated_at=now,
    )


async def accept(conn: AsyncConnection, job_rows: Sequence[dict], turns: Sequence[Turn], now: datetime) -> None:
    """Queued jobs (an existing job is left alone) and, for each job still queued, its turn."""
    await insert_jobs_if_absent(conn, job_rows)
    by_job = {job_id_for(t.tenant_id, t.turn_id): t for t in turns}
    queued: set[str] = set()
    for part in chunked(list(by_job)):
        stmt = sa.select(jobs.c.job_id).where(jobs.c.job_id.in_(part), jobs.c.state == JobState.QUEUED.value)
        queued |= set((await conn.scalars(stmt)).all())
    rows = [_row(job_id, turn, now) for job_id, turn in by_job.items() if job_id in queued]
    if rows:
        stmt = dialect_insert(conn, intake).on_conflict_do_nothing(index_elements=[intake.c.job_id])
        await conn.execute(stmt, rows)


def _row(job_id: str, turn: Turn, now: datetime) -> dict:
    if turn.accepted_at is None:  # re-published later, the turn still says when it was accepted
        turn = turn.model_copy(update={"accepted_at": now})
    return {
        "job_id": job_id,
        "tenant_id": turn.tenant_id,
        "user_id": turn.user_id,
        "turn_id": turn.turn_id,
        "record_key": turn.key,
        "value": turn.model_dump_json().encode(),
        "accepted_at": turn.accepted_at,
        "published_at": now,
        "attempts": 0,
    }


async def remove(conn: AsyncConnection, job_ids: Sequence[str]) -> None:
    """Drop the turns of jobs that are finished (called in the transaction that finishes them)."""
    for part in chunked(list(dict.fromkeys(job_ids))):
        await conn.execute(sa.delete(intake).where(intake.c.job_id.in_(part)))


async def erase_user(conn: AsyncConnection, tenant_id: str, user_id: str) -> int:
    """Drop a user's pending turns (erasure); answers how many."""
    result = await conn.execute(sa.delete(intake).where(intake.c.tenant_id == tenant_id, intake.c.user_id == user_id))
    return result.rowcount


class SqlIntake:
    """`IntakeQueue` (`sinks.contracts`): re-publication and the reaper, over the store's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @classmethod
    def of(cls, store) -> SqlIntake:
        """The intake side of a started `SqlMemoryStore` (same engine, same SQLite lock)."""
        return cls(store._engine)

    async def page(
        self, after: tuple[datetime, str] | None = None, limit: int = 1000, published_before: datetime | None = None
    ) -> list[IntakeRow]:
        """Pending turns in acceptance order (one user's turns keep their order), after a keyset cursor."""
        stmt = sa.select(intake).order_by(intake.c.accepted_at, intake.c.job_id).limit(limit)
        if after is not None:
            at, job_id = after
            stmt = stmt.where(
                sa.or_(intake.c.accepted_at > at, sa.and_(intake.c.accepted_at == at, intake.c.job_id > job_id))
            )
        if published_before is not None:
            stmt = stmt.where(intake.c.published_at < published_before)
        async with unavailable_on_outage("intake page"), self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).mappings().all()
        return [
            IntakeRow(
                job_id=r["job_id"],
                tenant_id=r["tenant_id"],
                turn_id=r["turn_id"],
                key=r["record_key"].encode(),
                value=bytes(r["value"]),
                accepted_at=r["accepted_at"],
                published_at=r["published_at"],
                attempts=r["attempts"],
            )
            for r in rows
        ]

    async def count(self) -> int:
        async with unavailable_on_outage("intake count"), self._engine.connect() as conn:
            return int((await conn.execute(sa.select(sa.func.count()).select_from(intake))).scalar_one())

    async def mark_published(self, job_ids: Sequence[str], at: datetime, *, attempt: bool) -> None:
        """Record a publication; `attempt` counts it against the job (the reaper's, not a restart's)."""
        values: dict = {"published_at": at}
        if attempt:
            values["attempts"] = intake.c.attempts + 1
        async with unavailable_on_outage("intake mark"), write_transaction(self._engine) as conn:
            for part in chunked(list(job_ids)):
                await conn.execute(sa.update(intake).where(intake.c.job_id.in_(part)).values(values))

    async def fail(self, job_ids: Sequence[str], reason: str, at: datetime) -> None:
        """Fail the jobs still queued, with `reason`, and drop their turns: one transaction."""
        async with unavailable_on_outage("intake fail"), write_transaction(self._engine) as conn:
            for part in chunked(list(job_ids)):
                await conn.execute(
                    sa.update(jobs)
                    .where(jobs.c.job_id.in_(part), jobs.c.state == JobState.QUEUED.value)
                    .values(state=JobState.FAILED.value, reason=reason, updated_at=at)
                )
            await remove(conn, job_ids)

    async def purge_finished(self) -> int:
        """Drop turns whose job is finished or gone (erased); answers how many."""
        unfinished = sa.select(jobs.c.job_id).where(
            jobs.c.job_id == intake.c.job_id, jobs.c.state == JobState.QUEUED.value
        )
        async with unavailable_on_outage("intake purge"), write_transaction(self._engine) as conn:
            result = await conn.execute(sa.delete(intake).where(~sa.exists(unfinished)))
        return result.rowcount
