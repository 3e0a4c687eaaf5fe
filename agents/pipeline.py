"""The write path over one micro-batch: decode → clean → extract → embed → SQL → events.

Every turn whose cleaned text says something is also kept as an episode, embedded in the same
model call as the batch's memories. The SQL store is the authority and writes first, in one
transaction with reconcile, the episodes, the event outbox and the vector outbox (each new or
changed row owes its point); the events topic follows from that transaction, and the vector index
from the projector (`agents.projector`), which the pipeline only nudges. `persist` returns only once
SQL, the events topic and the DLQ acknowledged, so the caller acks the offsets after it; an outage
of one is retried with backoff and the batch is neither lost nor acknowledged (the vector outbox
is in SQL, so an index outage never holds the batch back).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import numpy as np
import sqlalchemy.exc as sa_exc

from agents.batch import BatchReport, BatchTexts, PreparedBatch, ReadTurns, batch_attributes, dead_letter
from agents.batch_tally import tally
from agents.corrections import with_corrections
from agents.metrics import done_timer, ingest_metrics
from agents.overtaken import named_users, split_rejections
from agents.projector import VectorProjector
from agents.turn_outcome import failed_outcome, turn_outcomes
from beliefs.records import Claim, Turn, job_id_for, utcnow
from beliefs.write_plan import TurnOutcome
from embedding.embedder import Embedder
from embedding.errors import EmbedderUnavailableError
from reading.dead_letter import kafka_key
from reading.decode import RawTurn, Rejection, decode_turn
from reading.episode_text import SessionTails
from reading.extractor import Extractor
from reading.prepare import PreparedTurn, clean_turn, extract_claims, gate_outcome, memories_from_claims
from sinks.base import WriteResult
from sinks.contracts import IngestStore
from sinks.errors import BackpressureError, SinkError
from sinks.producer import OutRecord, RecordProducer
from streams.logs import bound_turn
from streams.settings import Settings
from streams.tracing import set_attributes, span, span_links

log = logging.getLogger(__name__)
T = TypeVar("T")


def _is_data_error(exc: Exception) -> bool:
    """An error the record itself causes (a value the database or an encoder refuses)."""
    return isinstance(exc, ValueError | TypeError | RecursionError | OverflowError | sa_exc.StatementError)


def _job_of(rejection: Rejection) -> str | None:
    if rejection.tenant_id is None or rejection.turn_id is None:
        return None
    return job_id_for(rejection.tenant_id, rejection.turn_id)


def _merged(results: Sequence[WriteResult]) -> WriteResult:
    merged = WriteResult()
    for result in results:
        merged.inserted.extend(result.inserted)
        merged.changed.extend(result.changed)
        merged.events.extend(result.events)
        merged.jobs.extend(result.jobs)
        merged.replayed_job_ids.extend(result.replayed_job_ids)
        merged.episodes.extend(result.episodes)
        merged.episode_events.extend(result.episode_events)
        merged.erased_job_ids.extend(result.erased_job_ids)
    return merged


class WritePipeline:
    """The steps of the write path, holding the clients they need."""

    def __init__(
        self,
        settings: Settings,
        store: IngestStore,
        projector: VectorProjector | None,
        embedder: Embedder,
        extractor: Extractor,
        producer: RecordProducer,
    ) -> None:
        self.settings = settings
        self.store = store
        self.projector = projector  # None: another process projects the vector outbox
        self.embedder = embedder
        self.extractor = extractor
        self.producer = producer
        # the last episode of each recent session, for the next one's vector
        self.episode_tails = SessionTails(settings.episode_context_sessions)
        self.stopping = False

    # -- the batch ---------------------------------------------------------------------------

    async def prepare(self, raws: Sequence[RawTurn]) -> PreparedBatch:
        """Decode, drop replays, run the text steps, and start the embedding without waiting for it.

        The model runs on its own thread while the caller reads the next batch and `persist` waits
        for it, so the embedder is never idle while there is text to encode.
        """
        started = time.perf_counter()
        turns, rejections = self._decode(raws)
        fresh, replayed = await self._drop_replays(turns)
        report = BatchReport(received=len(raws), rejected=len(rejections), replayed=replayed)
        try:
            with span("beliefstream.extract", batch_attributes(fresh), span_links(r.headers for r in raws)):
                read = await self._read(fresh)
        except SinkError:
            raise
        except Exception:
            log.exception("a batch of %d turns failed the text steps; retrying turn by turn", len(fresh))
            outcomes, poison = await self._isolated(fresh)
            return PreparedBatch(fresh, None, outcomes, rejections + poison, report, started)
        return PreparedBatch(fresh, read, [], rejections, report, started)

    async def persist(self, batch: PreparedBatch) -> BatchReport:
        """SQL (the authority, with both outboxes) first, then events and the DLQ, each retried until it
        succeeds; the projector is nudged to write the batch's vector points."""
        with span("beliefstream.write", batch_attributes(batch.turns)) as current:
            if batch.read is not None:
                await self._finish_embedding(batch)
            result = await self._write_sql(batch)
            report = batch.report
            self._forget_erased(batch, result)
            await self._forget_erased_rejections(batch)
            if self.projector is not None:
                self.projector.wake()
            await self._retrying("events", self._publish_events)
            await self._retrying("dlq", self.producer.send_many, [self._dlq_record(r) for r in batch.rejections])
            tally(report, batch.outcomes, result)
            written = {"beliefstream.memories_written": report.inserted, "beliefstream.episodes_written": report.episodes}
            set_attributes(current, written)
        for rejection in batch.rejections:
            report.dlq_reasons[rejection.reason] = report.dlq_reasons.get(rejection.reason, 0) + 1
        report.seconds = time.perf_counter() - batch.started
        return report

    async def _write_sql(self, batch: PreparedBatch) -> WriteResult:
        """The batch in one transaction; if the store refuses it (not an outage), turn by turn.

        A turn whose own write fails with a data error goes to the DLQ and its job fails; if every
        turn of the batch fails alike the fault is not in one record, and the batch is retried whole.
        """
        try:
            return await self._retrying("sql", self.store.write, batch.outcomes, outages_only=True)
        except Exception:
            if self.stopping:
                raise
            log.exception("the store refused a batch of %d turns; writing turn by turn", len(batch.outcomes))
        results: list[WriteResult] = []
        refused: list[tuple[TurnOutcome, Exception]] = []
        for outcome in batch.outcomes:
            try:
                results.append(await self._retrying("sql", self.store.write, [outcome], outages_only=True))
            except Exception as exc:  # noqa: BLE001 - judged below: one record, or the store
                refused.append((outcome, exc))
        systemic = bool(refused) and len(refused) == len(batch.outcomes) and (len(refused) > 1 or not _is_data_error(refused[0][1]))
        if refused and systemic:
            return await self._retrying("sql", self.store.write, batch.outcomes)  # loud retry, never dropped
        for outcome, exc in refused:
            with bound_turn(outcome.turn):
                log.error("turn %s of tenant %s refused by the store: %s", outcome.turn.turn_id,
                          outcome.turn.tenant_id, type(exc).__name__)
            detail = f"the store refused the turn: {type(exc).__name__}: {exc}"[:500]
            turn = outcome.turn
            accepted = turn.accepted_at.timestamp() if turn.accepted_at is not None else None
            raw = RawTurn(value=turn.model_dump_json().encode(), key=turn.key.encode(), timestamp=accepted)
            batch.rejections.append(Rejection(raw, "write_error", detail, turn.tenant_id, turn.user_id, turn.turn_id))
            failed = failed_outcome(turn, "write_error: the store refused this turn; see the DLQ")
            try:
                results.append(await self._retrying("sql", self.store.write, [failed], outages_only=True))
            except Exception:  # noqa: BLE001 - the DLQ still has the turn
                log.exception("could not record the failed job of turn %s", turn.turn_id)
        return _merged(results)

    @staticmethod
    def _forget_erased(batch: PreparedBatch, result: WriteResult) -> None:
        """Turns the store refused because their user was erased since: counted and logged without a
        word of their text, and kept out of the DLQ too (a turn that failed processing would be there)."""
        erased = set(result.erased_job_ids)
        if not erased:
            return
        batch.report.erased = len(erased)
        batch.rejections = [r for r in batch.rejections if _job_of(r) not in erased]
        tenants = sorted({o.turn.tenant_id for o in batch.outcomes if o.job_id in erased})
        log.info("dropped %d turn(s) accepted before their user's erasure (tenants %s); nothing of them is kept",
                 len(erased), ", ".join(tenants))

    async def _forget_erased_rejections(self, batch: PreparedBatch) -> None:
        """Rejected records their user's erasure overtook are not dead-lettered (`agents.overtaken`)."""
        users = named_users(batch.rejections)
        if not users:
            return
        erasures = await self._retrying("sql", self.store.latest_erasures, users)
        batch.rejections, dropped = split_rejections(batch.rejections, erasures)
        if dropped:
            batch.report.erased += len(dropped)
            log.info("dropped %d rejected record(s) accepted before their user's erasure (tenants %s)",
                     len(dropped), ", ".join(sorted({r.tenant_id for r in dropped})))

    def discard(self, batch: PreparedBatch) -> None:
        """Stop the embedding of a batch that will not be written (the worker is stopping)."""
        if batch.read is not None:
            batch.read.cancel()

    def _decode(self, raws: Sequence[RawTurn]) -> tuple[list[Turn], list[Rejection]]:
        turns: list[Turn] = []
        rejections: list[Rejection] = []
        for raw in raws:
            decoded = decode_turn(raw, self.settings.max_turn_bytes)
            (rejections if isinstance(decoded, Rejection) else turns).append(decoded)
        return turns, rejections

    async def _drop_replays(self, turns: Sequence[Turn]) -> tuple[list[Turn], int]:
        """Turns already processed (a producer retry, a consumer replay) are skipped before any work."""
        by_job: dict[str, Turn] = {}
        for turn in turns:
            by_job.setdefault(job_id_for(turn.tenant_id, turn.turn_id), turn)
        done = await self._retrying("sql", self.store.done_job_ids, list(by_job))
        fresh = [turn for job_id, turn in by_job.items() if job_id not in done]
        return fresh, len(turns) - len(fresh)

    async def _read(self, turns: Sequence[Turn], tails: SessionTails | None = None) -> ReadTurns:
        """The text steps and extraction, then one embedding call for every memory and episode of the
        batch; an episode is embedded with the turn before it in its session (`tails`, by default the
        worker's)."""
        prepared = [clean_turn(turn, self.settings.strip_patterns) for turn in turns]
        metrics = ingest_metrics()
        for p in prepared:
            metrics.extraction_gate.labels(gate_outcome(p)).inc()
        extracting = time.perf_counter()
        claims = await self._with_corrections(prepared, await extract_claims(prepared, self.extractor))
        metrics.extraction_seconds.observe(time.perf_counter() - extracting)
        now = utcnow()
        memories = [memories_from_claims(p.turn, c, now, p.text) for p, c in zip(prepared, claims, strict=True)]
        episodes = [p.episode(now, self.settings.episode_retention_days) for p in prepared]
        batch_texts = BatchTexts.of(
            memories, episodes, self.episode_tails if tails is None else tails, self.settings.episode_vector
        )
        texts = batch_texts.texts()
        embedding = None
        if texts:
            embedding = asyncio.ensure_future(self._embed(batch_texts, texts))
            metrics.embedding_texts.observe(len(texts))
            embedding.add_done_callback(done_timer(metrics.embedding_seconds, time.perf_counter()))
        return ReadTurns(prepared, memories, episodes, embedding)

    async def _embed(self, batch_texts: BatchTexts, texts: list[str]) -> np.ndarray:
        vectors = await self._retrying("embedder", self.embedder.aembed, texts, outages_only=True)
        return batch_texts.vectors_of(vectors)

    async def _with_corrections(
        self, prepared: Sequence[PreparedTurn], claims: list[list[Claim]]
    ) -> list[list[Claim]]:
        """Value-only corrections also claim the belief they correct (`agents.corrections`)."""
        return await with_corrections(self.store, prepared, claims)

    async def _finish_embedding(self, batch: PreparedBatch) -> None:
        """Wait for the batch's embedding; a failure there isolates the turn that causes it."""
        read, batch.read = batch.read, None
        try:
            vectors = await read.embedding if read.embedding is not None else []
        except Exception:
            log.exception("embedding a batch of %d turns failed; retrying turn by turn", len(batch.turns))
            batch.outcomes, poison = await self._isolated(batch.turns)
            batch.rejections = batch.rejections + poison
            return
        batch.outcomes = turn_outcomes(read, vectors)

    async def _isolated(self, turns: Sequence[Turn]) -> tuple[list[TurnOutcome], list[Rejection]]:
        """Turn by turn, so that the one turn that makes a step fail goes to the DLQ, not the batch."""
        outcomes: list[TurnOutcome] = []
        poison: list[Rejection] = []
        for turn in turns:
            try:
                # alone: a turn that broke the batch must not break its successor through its context
                read = await self._read([turn], SessionTails(sessions=0))
                vectors = await read.embedding if read.embedding is not None else []
                outcomes.extend(turn_outcomes(read, vectors))
            except SinkError:
                raise
            except Exception as exc:  # noqa: BLE001 - one bad turn must not stop the stream
                with bound_turn(turn):
                    log.exception("turn %s of tenant %s failed processing", turn.turn_id, turn.tenant_id)
                raw = RawTurn(value=turn.model_dump_json().encode(), key=turn.key.encode())
                detail = f"{type(exc).__name__}: {exc}"[:500]
                poison.append(Rejection(raw, "processing_error", detail, turn.tenant_id, turn.user_id, turn.turn_id))
                outcomes.append(failed_outcome(turn, f"processing_error: {detail}"))
        return outcomes, poison

    # -- after the SQL commit ----------------------------------------------------------------

    async def _publish_events(self) -> None:
        """Publish the event outbox (this batch's events and any a crash left behind), then ack it."""
        while pending := await self.store.pending_events(limit=1000):
            await self.producer.send_many([OutRecord(e.topic, e.key.encode(), e.value) for e in pending])
            await self.store.ack_events([e.seq for e in pending])
            if len(pending) < 1000:
                return

    def _dlq_record(self, rejection: Rejection) -> OutRecord:
        letter = dead_letter(rejection)
        return OutRecord(self.settings.dlq_topic, kafka_key(letter), letter.model_dump_json().encode())

    async def recover(self) -> None:
        """Finish what a crash interrupted: events committed in SQL but not sent (the projector
        finds the vector points on its own)."""
        await self._retrying("events", self._publish_events)

    # -- retries -------------------------------------------------------------------------------

    async def _retrying(
        self, sink: str, call: Callable[..., Awaitable[T]], *args: object, outages_only: bool = False
    ) -> T:
        """Call until it succeeds: sink outages are waited out, never turned into lost turns.

        A stop while waiting raises CancelledError, leaving the batch unacknowledged for a replay.
        With `outages_only`, any other error is the caller's to handle (a turn the model fails on).
        """
        delay = self.settings.sink_retry_initial_s
        metrics = ingest_metrics()
        while True:
            started = time.perf_counter()
            try:
                with span("beliefstream.sink", {"beliefstream.sink": sink}):
                    answer = await call(*args)
                metrics.sink_seconds.labels(sink).observe(time.perf_counter() - started)
                return answer
            except BackpressureError as exc:
                wait = max(exc.retry_after, 0.05)
                metrics.sink_retries.labels(sink, "backpressure").inc()
                log.warning("%s is applying backpressure; retrying in %.1fs: %s", sink, wait, exc)
            except (SinkError, EmbedderUnavailableError) as exc:
                wait = delay
                delay = min(delay * 2, self.settings.sink_retry_max_s)
                metrics.sink_retries.labels(sink, "outage").inc()
                log.warning("%s is unavailable; retrying the batch in %.1fs: %s", sink, wait, exc)
            except Exception:
                if outages_only:
                    raise
                metrics.sink_retries.labels(sink, "error").inc()
                # Not a known outage, maybe a bug: the batch is still never dropped. It is retried
                # (loudly) until it succeeds or the worker stops; a restart replays it.
                wait = delay
                delay = min(delay * 2, self.settings.sink_retry_max_s)
                log.exception("%s failed unexpectedly; retrying the batch in %.1fs", sink, wait)
            if self.stopping:
                raise asyncio.CancelledError(f"stopping while {sink} is unavailable")
            await asyncio.sleep(wait)
