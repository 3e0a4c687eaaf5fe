"""The write path's side of erasure: turns their user's erasure overtook are refused in the write.

The rule is `beliefs.erasure`; this module gives it what it reads, in the write's transaction:
the latest receipt of each user of the batch (`erasure_receipts`, by digest). On PostgreSQL each
transaction first takes a lock per user, shared by writes and exclusive for an erasure, so an
erasure either commits before a write reads its receipts (the write sees it) or waits for the
write to commit (the erasure deletes what it wrote). SQLite's write lock orders them already.
A refused turn leaves no row: its queued job and intake turn from before the erasure go too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from beliefs.erasure import Erasures
from beliefs.write_plan import TurnOutcome
from sinks.sql.governance import user_digest
from sinks.sql.queries import chunked
from sinks.sql.tables import erasure_receipts, intake, jobs

User = tuple[str, str]  # (tenant id, user id)

_SHARED = sa.text("SELECT pg_advisory_xact_lock_shared(k) FROM unnest(CAST(:keys AS bigint[])) AS k ORDER BY k")
_EXCLUSIVE = sa.text("SELECT pg_advisory_xact_lock(CAST(:key AS bigint))")


def lock_key(tenant_id: str, user_id: str) -> int:
    """The user's advisory lock: a signed 64-bit prefix of the digest its receipt keeps."""
    return int.from_bytes(bytes.fromhex(user_digest(tenant_id, user_id))[:8], "big", signed=True)


async def hold_users(conn: AsyncConnection, users: Iterable[User], *, exclusive: bool = False) -> None:
    """Lock the users until the transaction ends (PostgreSQL): shared to write, exclusive to erase."""
    if conn.dialect.name != "postgresql":
        return
    keys = sorted({lock_key(tenant_id, user_id) for tenant_id, user_id in users})
    if exclusive:
        for key in keys:
            await conn.execute(_EXCLUSIVE, {"key": key})
    elif keys:
        await conn.execute(_SHARED, {"keys": keys})


async def latest_erasures(conn: AsyncConnection, users: Iterable[User], *, lock: bool = True) -> Erasures:
    """When each of `users` that was ever erased was erased last (the users locked first, unless
    `lock` is off: a check outside a write, such as the dead letters')."""
    users = list(dict.fromkeys(users))
    if lock:
        await hold_users(conn, users)
    by_tenant: dict[str, dict[str, str]] = {}  # tenant → digest → user: one indexed lookup per tenant
    for tenant_id, user_id in users:
        by_tenant.setdefault(tenant_id, {})[user_digest(tenant_id, user_id)] = user_id
    found: dict[User, datetime] = {}
    for tenant_id, digests in by_tenant.items():
        for part in chunked(list(digests)):
            stmt = (
                sa.select(erasure_receipts.c.user_digest, sa.func.max(erasure_receipts.c.erased_at))
                .where(erasure_receipts.c.tenant_id == tenant_id, erasure_receipts.c.user_digest.in_(part))
                .group_by(erasure_receipts.c.user_digest)
            )
            for digest, erased_at in (await conn.execute(stmt)).all():
                found[(tenant_id, digests[digest])] = erased_at
    return found


async def forget_overtaken(conn: AsyncConnection, dropped: Sequence[TurnOutcome], erasures: Erasures) -> None:
    """Delete the queued jobs and intake turns of `dropped` that date from before their user's erasure
    (a `/v1/retain` racing the erasure); a later turn reusing the id keeps its own."""
    for outcome in dropped:
        turn = outcome.turn
        erased_at = erasures[(turn.tenant_id, turn.user_id)]
        await conn.execute(
            sa.delete(jobs).where(
                jobs.c.job_id == outcome.job_id, jobs.c.tenant_id == turn.tenant_id, jobs.c.created_at <= erased_at
            )
        )
        await conn.execute(
            sa.delete(intake).where(
                intake.c.job_id == outcome.job_id, intake.c.tenant_id == turn.tenant_id, intake.c.accepted_at <= erased_at
            )
        )
