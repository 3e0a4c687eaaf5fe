"""`SqlMemoryStore`: the SQL authority on the belief state (SQLite or PostgreSQL).

A write is one transaction: refuse the turns their user's erasure overtook (`sinks.sql.erasure_guard`),
load what the batch can collide with, plan in memory (`beliefs.write_plan`), then write rows,
episodes, job states and outbox events in bulk. Replays are
no-ops: finished jobs are skipped and memory and episode ids are deterministic. Every user-facing
read is scoped by tenant in the query itself. Episode reads and revocation: `episode_store`; import
and the scans of export and reindex: `transfer_store`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

import sqlalchemy as sa

from beliefs import loops
from beliefs.erasure import Erasures, split_audits, split_erased
from beliefs.records import Job, JobState, Memory, MemoryState, RecallAudit, Turn, utcnow
from beliefs.write_plan import BeliefView, TurnOutcome, WritePlan, plan_write, slot_key, text_key
from sinks.base import ErasureReport, PendingEvent, WriteResult
from sinks.contracts import ANY_CONTEXT, EVERY_MEMORY, ConversationContext, MemoryListing
from sinks.reach import EVERY_AGENT, Reach
from sinks.recall import Currency, KeywordHit, OpenContest, QueryLinks, RecallScope
from sinks.sql import (
    contested_queries,
    currency_queries,
    episode_queries,
    erasure_guard,
    governance,
    intake,
    queries,
    recall_queries,
    webhooks,
)
from sinks.sql.contested_store import ContestedStoreMixin
from sinks.sql.convert import (
    job_row,
    memory_changes,
    row_job,
)
from sinks.sql.engine import (
    create_engine,
    is_sqlite,
    read_snapshot,
    sqlite_path,
    unavailable_on_outage,
    write_health,
    write_transaction,
)
from sinks.sql.episode_store import EpisodeStoreMixin
from sinks.sql.errors import InvalidRequestError
from sinks.sql.migrate import probe_write, upgrade
from sinks.sql.outcome import check_outcome
from sinks.sql.reader import READERS, RecallReader
from sinks.sql.sqlite_writes import SqliteAuditWriter
from sinks.sql.tables import jobs, memories, outbox
from sinks.sql.transfer_store import TransferStoreMixin

#: Longest supersession chain `memory_history` follows (a guard against a corrupt cycle).
MAX_HISTORY = 1000



class SqlMemoryStore(EpisodeStoreMixin, ContestedStoreMixin, TransferStoreMixin):
    """Every store contract (`sinks.contracts.MemoryStore`, `sinks.recall.RecallStore`) on
    SQLAlchemy's async engine; the manage phase's go through `MaintenanceStore.of(store)`, the vector
    outbox's through `SqlVectorOutbox.of(store)`."""

    def __init__(
        self,
        url: str,
        events_topic: str = "beliefstream.memory.events",
        escalations_topic: str = "beliefstream.escalations",
        loop_threshold: int = loops.DEFAULT_THRESHOLD,
        loop_window_days: float = loops.DEFAULT_WINDOW_DAYS,
        sqlite_read_threads: int = READERS,
        webhook_urls: Sequence[str] = (),
    ) -> None:
        self.url = url
        self.webhook_urls = list(webhook_urls)  # each acknowledged memory event is owed to these
        self.events_topic = events_topic
        self.escalations_topic = escalations_topic
        self.loop_threshold = loop_threshold
        self.loop_window_days = loop_window_days
        self._engine = create_engine(url)
        self._reader = RecallReader(url, self._engine, readers=sqlite_read_threads)  # recall's reads
        on_file = is_sqlite(url) and sqlite_path(url) is not None
        self._audit_writer = SqliteAuditWriter(url, self._engine) if on_file else None  # recall's audit rows

    async def setup(self) -> None:
        """Create the database file's directory and migrate the schema to head."""
        path = sqlite_path(self.url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        async with unavailable_on_outage("migration"):
            await upgrade(self._engine)

    async def close(self) -> None:
        self._reader.close()
        if self._audit_writer is not None:
            self._audit_writer.close()
        await self._engine.dispose()

    async def ping(self) -> bool:
        try:
            async with self._engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
        except Exception:  # readiness answers "no" for any failure, never raises
            return False
        return True

    async def writable(self) -> bool:
        """Do writes go through? Yes at once unless the last write failed on the storage (a full disk,
        an I/O error, a read-only database); then a write that changes nothing decides. Never raises."""
        health = write_health(self._engine)
        if health.failure is None:
            return True
        try:
            await probe_write(self._engine)  # its commit clears the failure
        except Exception:
            return False
        return True

    # -- the write path ---------------------------------------------------------------------------

    async def write(self, outcomes: Sequence[TurnOutcome]) -> WriteResult:
        for outcome in outcomes:
            check_outcome(outcome)
        if not outcomes:
            return WriteResult()
        async with unavailable_on_outage("write"), write_transaction(self._engine) as conn:
            erasures = await erasure_guard.latest_erasures(conn, [(o.turn.tenant_id, o.turn.user_id) for o in outcomes])
            outcomes, erased = split_erased(outcomes, erasures)
            await erasure_guard.forget_overtaken(conn, erased, erasures)
            plan = await self._plan(conn, outcomes) if outcomes else WritePlan()
            await self._apply(conn, plan)
            await intake.remove(conn, [job.job_id for job in plan.jobs] + plan.replayed_job_ids)
        return WriteResult(
            inserted=[memory for memory, _ in plan.inserts.values()],
            changed=list(plan.updates.values()),
            events=plan.events,
            jobs=plan.jobs,
            replayed_job_ids=plan.replayed_job_ids,
            episodes=[episode for episode, _ in plan.episodes.values()],
            episode_events=plan.episode_events,
            erased_job_ids=[outcome.job_id for outcome in erased],
        )

    async def preview(self, outcomes: Sequence[TurnOutcome]) -> WritePlan:
        """What `write` would do with `outcomes` (the same loads and reconcile), writing nothing."""
        for outcome in outcomes:
            check_outcome(outcome)
        if not outcomes:
            return WritePlan()
        async with unavailable_on_outage("preview"), read_snapshot(self._engine) as conn:
            return await self._plan(conn, outcomes)

    async def _plan(self, conn, outcomes: Sequence[TurnOutcome]) -> WritePlan:
        """Load what the outcomes can collide with and plan the write in memory."""
        known_jobs = await queries.load_jobs(conn, [(o.turn.tenant_id, o.job_id) for o in outcomes])
        batch = [m for o in outcomes if _unfinished(o, known_jobs) for m in o.memories]
        existing = await queries.existing_memory_ids(conn, [(m.tenant_id, m.id) for m in batch])
        todo = [m for m in batch if m.id not in existing]
        slots = list(dict.fromkeys(key for m in todo if (key := slot_key(m)) is not None))
        texts = list(dict.fromkeys(text_key(m) for m in todo))
        view = BeliefView(await queries.load_active(conn, slots, texts))
        book = await contested_queries.load_loop_book(conn, todo, self.loop_threshold, self.loop_window_days)
        updates = [o for o in outcomes if _unfinished(o, known_jobs)]
        currency = await currency_queries.load_currency_book(conn, updates, view)
        return plan_write(
            outcomes, known_jobs=known_jobs, existing_ids=existing, view=view, now=utcnow(), book=book, currency=currency
        )

    async def _apply(self, conn, plan: WritePlan) -> None:
        now = utcnow()
        await queries.insert_memories(conn, plan.inserts.values())
        await queries.update_memories(conn, [dict(memory_changes(m), id=i) for i, m in plan.updates.items()])
        await episode_queries.insert_episodes(conn, plan.episodes.values())
        await currency_queries.update_links(conn, list(plan.episode_updates.values()))
        events = [*plan.events, *plan.episode_events]
        await queries.insert_outbox(conn, [governance.event_row(self.events_topic, event, now) for event in events])
        await queries.upsert_jobs(conn, [job_row(job) for job in plan.jobs])
        await contested_queries.upsert_slots(conn, list(plan.contested.values()))
        await queries.insert_outbox(
            conn,
            [contested_queries.escalation_row(self.escalations_topic, e, now) for e in plan.escalations],
        )

    # -- governance: direct insert, revocation, erasure (sinks.sql.governance) ---------------------

    async def insert_memory(self, memory: Memory, embedding: Sequence[float] | None) -> WriteResult:
        """One fully specified memory through the same reconcile as the write path; no job row."""
        async with unavailable_on_outage("insert_memory"), write_transaction(self._engine) as conn:
            book = await contested_queries.load_loop_book(conn, [memory], self.loop_threshold, self.loop_window_days)
            plan = await governance.plan_direct_insert(conn, memory, embedding, utcnow(), book)
            await self._apply(conn, plan)
        return WriteResult(
            inserted=[m for m, _ in plan.inserts.values()],
            changed=list(plan.updates.values()),
            events=plan.events,
        )

    async def revoke(self, tenant_id: str, memory_id: str, at: datetime) -> Memory | None:
        async with unavailable_on_outage("revoke"), write_transaction(self._engine) as conn:
            memory, event = await governance.revoke_memory(conn, tenant_id, memory_id, at)
            if event is not None:
                await queries.insert_outbox(conn, [governance.event_row(self.events_topic, event, utcnow())])
        return memory

    async def erase_user(self, tenant_id: str, user_id: str, key_id: str | None = None) -> ErasureReport:
        """Every row of the user goes in one transaction; the deletion receipt is what stays."""
        async with unavailable_on_outage("erase_user"), write_transaction(self._engine) as conn:
            await erasure_guard.hold_users(conn, [(tenant_id, user_id)], exclusive=True)  # no write in between
            pending = await intake.erase_user(conn, tenant_id, user_id)
            episode_ids = await episode_queries.erase_user(conn, tenant_id, user_id)
            removed = {"episodes": len(episode_ids), "intake_turns": pending}
            report = await governance.erase_user(conn, tenant_id, user_id, utcnow(), key_id, removed)
        return replace(report, episode_ids=episode_ids)

    async def latest_erasures(self, users: Sequence[tuple[str, str]]) -> Erasures:
        if not users:
            return {}
        async with unavailable_on_outage("latest_erasures"), self._engine.connect() as conn:
            return await erasure_guard.latest_erasures(conn, users, lock=False)

    async def done_job_ids(self, job_ids: Sequence[str]) -> set[str]:
        finished = [s.value for s in (JobState.DONE, JobState.SKIPPED, JobState.FAILED)]
        found: set[str] = set()
        async with unavailable_on_outage("done_job_ids"), self._engine.connect() as conn:
            for part in queries.chunked(list(dict.fromkeys(job_ids))):
                stmt = sa.select(jobs.c.job_id).where(jobs.c.job_id.in_(part), jobs.c.state.in_(finished))
                found |= set((await conn.scalars(stmt)).all())
        return found

    async def enqueue_jobs(self, jobs_: Sequence[Job], turns: Sequence[Turn] = ()) -> None:
        """Queued jobs and, in the same transaction, their turns into the intake (`sinks.sql.intake`)."""
        if not jobs_ and not turns:
            return
        async with unavailable_on_outage("enqueue_jobs"), write_transaction(self._engine) as conn:
            await intake.accept(conn, [job_row(job) for job in jobs_], turns, utcnow())

    # -- the event outbox (the vector outbox is `sinks.sql.vector_outbox.SqlVectorOutbox`) ------------

    async def pending_events(self, limit: int = 1000) -> list[PendingEvent]:
        stmt = (
            sa.select(outbox.c.seq, outbox.c.topic, outbox.c.key, outbox.c.value)
            .order_by(outbox.c.seq)
            .limit(limit)
        )
        async with unavailable_on_outage("pending_events"), self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [PendingEvent(seq=r.seq, topic=r.topic, key=r.key, value=bytes(r.value)) for r in rows]

    async def ack_events(self, seqs: Sequence[int]) -> None:
        if not seqs:
            return
        async with unavailable_on_outage("ack_events"), write_transaction(self._engine) as conn:
            await webhooks.acknowledge(conn, seqs, self.events_topic, self.webhook_urls, utcnow())

    # -- reads, always scoped by tenant -------------------------------------------------------------

    async def get_job(self, tenant_id: str, job_id: str) -> Job | None:
        stmt = sa.select(jobs).where(jobs.c.tenant_id == tenant_id, jobs.c.job_id == job_id)
        async with unavailable_on_outage("get_job"), self._engine.connect() as conn:
            row = (await conn.execute(stmt)).mappings().first()
        return row_job(row) if row is not None else None

    async def get_memory(self, tenant_id: str, memory_id: str) -> Memory | None:
        async with unavailable_on_outage("get_memory"), self._engine.connect() as conn:
            found = await queries.memories_where(
                conn, memories.c.tenant_id == tenant_id, memories.c.id == memory_id
            )
        return found[0] if found else None

    async def memory_history(self, tenant_id: str, memory_id: str) -> list[Memory]:
        """Follow `superseded_by` both ways from the memory; the chain, oldest first."""
        chain: dict[str, Memory] = {}
        explored: set[str] = set()
        frontier = {memory_id}
        async with unavailable_on_outage("memory_history"), self._engine.connect() as conn:
            while frontier and len(chain) < MAX_HISTORY:
                found = await queries.memories_where(
                    conn,
                    memories.c.tenant_id == tenant_id,
                    sa.or_(memories.c.id.in_(frontier), memories.c.superseded_by.in_(frontier)),
                )
                explored |= frontier
                chain.update((m.id, m) for m in found)
                linked = {m.id for m in found} | {m.superseded_by for m in found if m.superseded_by}
                frontier = linked - explored
        if memory_id not in chain:
            return []
        return sorted(chain.values(), key=lambda m: (m.valid_from, m.created_at, m.id))

    async def list_memories(
        self,
        tenant_id: str,
        user_id: str,
        state: MemoryState | None = MemoryState.ACTIVE,
        limit: int = 100,
        cursor: str | None = None,
        narrowing: MemoryListing = EVERY_MEMORY,
        reach: Reach = EVERY_AGENT,
        context: ConversationContext = ANY_CONTEXT,
    ) -> tuple[list[Memory], str | None]:
        """One page of a user's memories within `reach` in (created_at, id) order (or newest first), and
        the next cursor."""
        if limit < 1:
            raise InvalidRequestError(f"limit must be at least 1, got {limit}")
        async with unavailable_on_outage("list_memories"), self._engine.connect() as conn:
            return await queries.list_page(
                conn, tenant_id, user_id, state, min(limit, queries.MAX_PAGE), cursor, narrowing, reach, context
            )

    # -- recall (sinks.sql.recall_queries): scope and currency in every query ------------------------

    async def keyword_candidates(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        return await self._reader.keyword_candidates(scope, currency, terms, limit)

    async def hydrate(
        self, scope: RecallScope, currency: Currency, ids: Sequence[str], slot_attributes: Sequence[str] = ()
    ) -> list[Memory]:
        return await self._reader.hydrate(scope, currency, ids, slot_attributes)

    async def pinned_memories(self, scope: RecallScope, currency: Currency, limit: int) -> list[Memory]:
        return await self._reader.pinned_memories(scope, currency, limit)

    async def safety_memories(
        self, scope: RecallScope, currency: Currency, attributes: Sequence[str], limit: int
    ) -> list[Memory]:
        return await self._reader.safety_memories(scope, currency, attributes, limit)

    async def linked_candidates(
        self, scope: RecallScope, currency: Currency, links: QueryLinks, limit: int
    ) -> list[str]:
        return await self._reader.linked_candidates(scope, currency, links, limit)

    async def pinned_and_linked(
        self, scope: RecallScope, currency: Currency, pinned_limit: int, links: QueryLinks, linked_limit: int
    ) -> tuple[list[Memory], list[str]]:
        return await self._reader.pinned_and_linked(scope, currency, pinned_limit, links, linked_limit)

    async def open_contests(self, scope: RecallScope, currency: Currency, limit: int) -> list[OpenContest]:
        return await self._reader.open_contests(scope, currency, limit)

    async def record_access(self, counts: Mapping[str, int], at: datetime) -> None:
        if not counts:
            return
        async with unavailable_on_outage("record_access"), write_transaction(self._engine, yielding=True) as conn:
            await recall_queries.record_access(conn, counts, at)

    async def write_audit(self, records: Sequence[RecallAudit]) -> list[RecallAudit]:
        if not records:
            return []
        if self._audit_writer is not None:  # a SQLite file: one trip to the writer's thread
            return await self._audit_writer.write(records)
        async with unavailable_on_outage("write_audit"), write_transaction(self._engine, yielding=True) as conn:
            users = [(r.tenant_id, r.user_id) for r in records]
            kept, _ = split_audits(records, await erasure_guard.latest_erasures(conn, users))
            await recall_queries.insert_audit(conn, kept)
        return kept


def _unfinished(outcome: TurnOutcome, known_jobs) -> bool:
    known = known_jobs.get(outcome.job_id)
    return known is None or known.state is JobState.QUEUED
