"""The Message Batches jobs of Claude extraction, kept in SQL so a restarted process resumes them.

A job is written when its batch is submitted, moves to `ended` when the API says it ended, and to
`collected` (or `failed`) once its results were read; `open_jobs` lists what a restart must finish.
A finished job keeps its state and counts only: the turn ids and offered beliefs go with it (a
batch lives at most a day, so an open job holds them no longer).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from beliefs.records import utcnow
from sinks.sql.engine import unavailable_on_outage, write_transaction
from sinks.sql.tables import extraction_batches

SUBMITTED, ENDED, COLLECTED, FAILED = "submitted", "ended", "collected", "failed"
#: States a restart must still finish.
OPEN_STATES = (SUBMITTED, ENDED)


@dataclass(frozen=True)
class ExtractionBatchJob:
    """One job: the API's batch id, its state, and per request what reading its result needs."""

    id: str
    state: str
    requests: dict[str, Any]
    tenant_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    created_at: datetime | None = None
    updated_at: datetime | None = None


def _job(row: Mapping[str, Any]) -> ExtractionBatchJob:
    return ExtractionBatchJob(
        id=row["id"], state=row["state"], requests=row["requests"], tenant_id=row["tenant_id"],
        counts=row["counts"] or {}, created_at=row["created_at"], updated_at=row["updated_at"],
    )  # fmt: skip


class SqlExtractionBatches:
    """The jobs table over an async engine (usually a `SqlMemoryStore`'s: `.of(store)`)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @classmethod
    def of(cls, store: Any) -> SqlExtractionBatches:
        return cls(store._engine)

    async def add(self, job: ExtractionBatchJob) -> None:
        """Record a submitted job."""
        now = utcnow()
        async with unavailable_on_outage("extraction batch add"), write_transaction(self._engine) as conn:
            await conn.execute(
                sa.insert(extraction_batches).values(
                    id=job.id, tenant_id=job.tenant_id, state=job.state, requests=job.requests,
                    counts=job.counts or None, created_at=now, updated_at=now,
                )
            )  # fmt: skip

    async def move(self, job_id: str, state: str, counts: Mapping[str, int] | None = None) -> None:
        """Set a job's state (and the API's request counts, when known)."""
        values: dict[str, Any] = {"state": state, "updated_at": utcnow()}
        if state in (COLLECTED, FAILED):
            values["requests"] = {}  # what reading needed (turn ids, offered beliefs) is not kept after
        if counts is not None:
            values["counts"] = dict(counts)
        async with unavailable_on_outage("extraction batch move"), write_transaction(self._engine) as conn:
            await conn.execute(
                sa.update(extraction_batches).where(extraction_batches.c.id == job_id).values(**values)
            )

    async def get(self, job_id: str) -> ExtractionBatchJob | None:
        async with unavailable_on_outage("extraction batch read"), self._engine.connect() as conn:
            row = (
                (await conn.execute(sa.select(extraction_batches).where(extraction_batches.c.id == job_id)))
                .mappings()
                .first()
            )
        return _job(row) if row is not None else None

    async def open_jobs(self) -> list[ExtractionBatchJob]:
        """Jobs submitted or ended but not collected, oldest first."""
        statement = (
            sa.select(extraction_batches)
            .where(extraction_batches.c.state.in_(OPEN_STATES))
            .order_by(extraction_batches.c.created_at, extraction_batches.c.id)
        )
        async with unavailable_on_outage("extraction batch read"), self._engine.connect() as conn:
            return [_job(row) for row in (await conn.execute(statement)).mappings()]
