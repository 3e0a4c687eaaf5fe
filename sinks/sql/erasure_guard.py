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


#: The latest erasure of each of one tenant's user digests (`tenant_id`, `digests`): one indexed lookup.
RECEIPTS = (
    sa.select(erasure_receipts.c.user_digest, sa.func.max(erasure_receipts.c.erased_at))
    .where(
        erasure_receipts.c.tenant_id == sa.bindparam("tenant_id"),
        erasure_receipts.c.user_digest.in_(sa.bindparam("digests", expanding=True)),
    )
    .group_by(erasure_receipts.c.user_digest)
)


def receipt_lookups(users: Iterable[User]) -> list[tuple[dict[str, object], dict[str, User]]]:
    """`RECEIPTS`' parameters that read `users`' receipts (per tenant, chunked), each with the user
    each of its digests names; the rows of each go to `erasures_of`."""
    by_tenant: dict[str, dict[str, User]] = {}
    for tenant_id, user_id in users:
        by_tenant.setdefault(tenant_id, {})[user_digest(tenant_id, user_id)] = (tenant_id, user_id)
    return [
        ({"tenant_id": tenant_id, "digests": list(part)}, {digest: named[digest] for digest in part})
        for tenant_id, named in by_tenant.items()
        for part in chunked(list(named))
    ]


def erasures_of(named: dict[str, User], rows: Iterable[Sequence[object]]) -> Erasures:
    """The erasures that `RECEIPTS`' rows (digest, latest erasure) give for the users `named`."""
    return {named[digest]: erased_at for digest, erased_at in rows}


async def latest_erasures(conn: AsyncConnection, users: Iterable[User], *, lock: bool = True) -> Erasures:
    """When each of `users` that was ever erased was erased last (the users locked first, unless
    `lock` is off: a check outside a write, such as the dead letters')."""
    users = list(dict.fromkeys(users))
    if lock:
        await hold_users(conn, users)
    found: dict[User, datetime] = {}
    for params, named in receipt_lookups(users):
        found |= erasures_of(named, (await conn.execute(RECEIPTS, params)).all())
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
