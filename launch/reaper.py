"""Turns in the intake back onto the broker: all of them at start, stragglers periodically.

At start of a worker on the embedded broker (whose log died with the previous process) every
pending turn is re-published, in acceptance order. Then `IntakeReaper` runs in the worker's
process: each pass reads the consumer group's committed offsets against the end offsets it saw
at the previous pass (`agents.reaping`), re-publishes turns the consumer went past without
finishing, fails them with a reason after `intake_max_attempts`, and drops turns whose job is
finished. Re-publishing is harmless: the write path skips finished jobs by turn id.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from datetime import datetime

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import KafkaError

from agents.reaping import OffsetSnapshot, failure_reason, plan_reap, processed_before
from agents.webhook_signing import retry_delay_s
from beliefs.records import utcnow
from sinks.contracts import IntakeQueue, IntakeRow
from sinks.errors import SinkUnavailableError
from sinks.producer import OutRecord, RecordProducer
from streams.settings import Settings

log = logging.getLogger(__name__)

PAGE = 1000
#: Snapshots of end offsets the reaper keeps (one per pass): a consumer that lags by up to this many
#: passes still lets the reaper find the turns it went past.
SNAPSHOTS = 20
#: Tries of the re-publication at start (0.5 s apart, doubling to 5 s) before the reaper is left to it.
START_ATTEMPTS = 6


def records_of(topic: str, rows: list[IntakeRow]) -> list[OutRecord]:
    return [OutRecord(topic, row.key, row.value) for row in rows]


async def republish_pending(
    intake: IntakeQueue, producer: RecordProducer, topic: str, before: datetime, skip: frozenset[str] = frozenset()
) -> set[str]:
    """Publish again every pending turn last published before `before` (this process's start: the
    turns it accepted itself are on the broker already), oldest first, but those in `skip`;
    answers the job ids published."""
    published: set[str] = set()
    after = None
    while rows := await intake.page(after, PAGE, published_before=before):
        rows_out = [row for row in rows if row.job_id not in skip]
        if rows_out:
            await producer.send_many(records_of(topic, rows_out))
            await intake.mark_published([row.job_id for row in rows_out], utcnow(), attempt=False)
            published.update(row.job_id for row in rows_out)
        after = (rows[-1].accepted_at, rows[-1].job_id)
        if len(rows) < PAGE:
            break
    return published


def replays_intake(settings: Settings) -> bool:
    """Does a worker re-publish the intake at start? With the embedded broker (which lost it) or
    when `intake_republish_on_start` says so."""
    wanted = settings.intake_republish_on_start
    return bool(wanted or (wanted is None and not settings.broker))


async def republish_at_start(
    settings: Settings, intake: IntakeQueue, producer: RecordProducer, started: datetime
) -> set[str]:
    """Accepted turns a previous run (or a previous broker) did not finish go out again, when
    `replays_intake`; answers the job ids published."""
    if not replays_intake(settings):
        return set()
    for attempt in range(1, START_ATTEMPTS + 1):  # a broker just restarted may refuse the first sends
        try:
            republished = await republish_pending(intake, producer, settings.turns_topic, started)
            break
        except SinkUnavailableError as exc:
            if attempt == START_ATTEMPTS:
                log.warning("re-publishing the intake at start failed (%s); the reaper will re-publish it", exc)
                return set()
            await asyncio.sleep(retry_delay_s(attempt, 0.5, 5.0))
    if republished:
        log.warning("re-published %d accepted turn(s) that the previous run had not processed", len(republished))
    return republished


async def republish_caught_up(
    settings: Settings, intake: IntakeQueue, producer: RecordProducer, before: datetime, done: set[str]
) -> None:
    """After the sidecar publishes again (`before`): the turns it kept in the intake only meanwhile
    (accepted while the broker was away or the worker starting) go out, those of `done` excepted."""
    if not replays_intake(settings):
        return
    try:
        republished = await republish_pending(intake, producer, settings.turns_topic, before, frozenset(done))
    except SinkUnavailableError as exc:
        log.warning("publishing the turns kept while the broker was away failed (%s); the reaper will", exc)
        return
    if republished:
        log.warning("published %d turn(s) accepted while the broker was away", len(republished))


class ConsumerOffsets:
    """End offsets of the turns topic and the worker group's committed offsets, read without joining
    the group (a consumer that never subscribes does not take part in its rebalances)."""

    def __init__(self, bootstrap: str, group_id: str, topic: str) -> None:
        self.topic = topic
        self.bootstrap = bootstrap
        self.group_id = group_id
        self._consumer: AIOKafkaConsumer | None = None  # made at first use, inside the event loop

    async def _partitions(self) -> list[TopicPartition]:
        if self._consumer is None:
            consumer = AIOKafkaConsumer(
                bootstrap_servers=self.bootstrap, group_id=self.group_id, enable_auto_commit=False
            )
            try:
                await consumer.start()
            except BaseException:
                await consumer.stop()
                raise
            self._consumer = consumer
        await self._consumer.topics()  # refreshes the metadata
        return [TopicPartition(self.topic, p) for p in sorted(self._consumer.partitions_for_topic(self.topic) or ())]

    async def ends(self) -> dict[int, int]:
        partitions = await self._partitions()
        ends = await self._consumer.end_offsets(partitions) if partitions else {}
        return {tp.partition: offset for tp, offset in ends.items()}

    async def starts(self) -> dict[int, int]:
        """The first offset still on each partition (retention may have deleted older ones)."""
        partitions = await self._partitions()
        starts = await self._consumer.beginning_offsets(partitions) if partitions else {}
        return {tp.partition: offset for tp, offset in starts.items()}

    async def committed(self) -> dict[int, int | None]:
        return {tp.partition: await self._consumer.committed(tp) for tp in await self._partitions()}

    async def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            await consumer.stop()


class IntakeReaper:
    """One pass per call: re-publish or fail turns the consumer went past; drop finished ones."""

    def __init__(
        self, intake: IntakeQueue, producer: RecordProducer, offsets: ConsumerOffsets, settings: Settings
    ) -> None:
        self.intake = intake
        self.producer = producer
        self.offsets = offsets
        self.settings = settings
        self._snapshots: deque[OffsetSnapshot] = deque(maxlen=SNAPSHOTS)

    async def __call__(self) -> tuple[int, int]:
        """(re-published, failed) in this pass."""
        await self.intake.purge_finished()
        processed_before = await self._processed_before()
        republished = failed = 0
        if processed_before is None:
            return republished, failed
        now = utcnow()
        after = None
        while rows := await self.intake.page(after, PAGE, published_before=processed_before):
            plan = plan_reap(
                rows,
                now=now,
                processed_before=processed_before,
                requeue_after_s=self.settings.intake_requeue_after_s,
                max_attempts=self.settings.intake_max_attempts,
            )
            by_id = {row.job_id: row for row in rows}
            for job_id in plan.fail:
                await self.intake.fail([job_id], failure_reason(by_id[job_id].attempts), now)
            if plan.republish:
                await self.producer.send_many(records_of(self.settings.turns_topic, [by_id[i] for i in plan.republish]))
                await self.intake.mark_published(plan.republish, utcnow(), attempt=True)
            republished, failed = republished + len(plan.republish), failed + len(plan.fail)
            after = (rows[-1].accepted_at, rows[-1].job_id)
            if len(rows) < PAGE:
                break
        if republished or failed:
            log.warning("intake reaper: %d turn(s) re-published, %d job(s) failed", republished, failed)
        return republished, failed

    async def _processed_before(self) -> datetime | None:
        """The moment before which every published record was processed, if the consumer caught up
        with one of the earlier snapshots; takes the next snapshot."""
        try:
            committed = await self.offsets.committed() if self._snapshots else {}
            before = processed_before(list(self._snapshots), committed)
            self._snapshots.append(OffsetSnapshot(utcnow(), await self.offsets.ends()))
        except (KafkaError, OSError) as exc:
            raise SinkUnavailableError(f"reading the turns topic's offsets failed: {exc}") from exc
        return before
