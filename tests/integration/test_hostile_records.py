"""A bad record is one record, on the real broker: hostile values among three tenants' turns.

Every good turn is processed, every bad one is on the DLQ with its reason, later batches flow,
and a restarted worker does not see the bad records again (the offsets moved past them).
Issue 12 bug 1: one escaped lone surrogate or 100k-deep metadata stopped the stream. Issue 25: a
record keyed to one tenant whose value named another was written to the value's tenant.
"""

from __future__ import annotations

import json

import pytest
from aiokafka import AIOKafkaConsumer
from hostile_records import hostile_values
from integration.harness import publish, read_topic, running_worker, wait_for

from beliefs.records import DeadLetter, JobState, job_id_for
from streams.publish import publish_file, publish_records

pytestmark = pytest.mark.integration


def turn(tenant: str, user: str, turn_id: str, text: str) -> dict:
    return {"turn_id": turn_id, "tenant_id": tenant, "user_id": user, "role": "user", "text": text,
            "ts": "2026-11-21T10:00:00Z"}  # fmt: skip


async def all_done(store, turns: list[dict]) -> bool:
    for t in turns:
        job = await store.get_job(t["tenant_id"], job_id_for(t["tenant_id"], t["turn_id"]))
        if job is None or job.state is JobState.QUEUED:
            return False
    return True


async def dlq_letters(settings) -> list[DeadLetter]:
    consumer = AIOKafkaConsumer(settings.dlq_topic, bootstrap_servers=settings.broker.removeprefix("kafka://"),
                                auto_offset_reset="earliest", enable_auto_commit=False, group_id=None)  # fmt: skip
    await consumer.start()
    letters: list[DeadLetter] = []
    try:
        for _ in range(10):
            batch = await consumer.getmany(timeout_ms=300)
            letters += [DeadLetter.model_validate_json(m.value) for ms in batch.values() for m in ms]
    finally:
        await consumer.stop()
    return letters


async def test_hostile_corpus_among_three_tenants_loses_no_good_turn(settings, tenant):
    tenants = [f"{tenant}-a", f"{tenant}-b", f"{tenant}-c"]
    hostile = hostile_values(tenants[0], "mallory", settings.max_turn_bytes)
    goods: list[dict] = []
    records: list[tuple[bytes | None, bytes]] = []
    for i, (_, value, _) in enumerate(hostile):
        for t in tenants:
            good = turn(t, f"user-{i % 3}", f"g-{i}", f"I live in town {i} and I like tea number {i}.")
            goods.append(good)
            records.append((f"{t}:{good['user_id']}".encode(), json.dumps(good).encode()))
        records.append((f"{tenants[0]}:mallory".encode(), value))
    bootstrap = settings.broker.removeprefix("kafka://")

    async with running_worker(settings) as worker:
        store = worker.clients.store
        await publish_records(records, bootstrap, settings.turns_topic)
        await wait_for(lambda: all_done(store, goods), timeout=120, what="every good turn")
        later = [turn(tenants[1], "late", f"late-{i}", "I work at Initech.") for i in range(5)]
        await publish(settings, later)
        await wait_for(lambda: all_done(store, later), what="a later batch")
        states = {(await store.get_job(g["tenant_id"], job_id_for(g["tenant_id"], g["turn_id"]))).state
                  for g in goods}  # fmt: skip
        assert states == {JobState.DONE}
        letters = await dlq_letters(settings)
        assert sorted(letter.reason for letter in letters) == sorted(reason for _, _, reason in hostile)
        assert all(letter.detail and letter.source_topic == settings.turns_topic for letter in letters)
        # issue 25: a record keyed to one tenant whose value names another is written to neither
        other = f"{tenants[0]}-other"
        assert await store.get_job(other, job_id_for(other, "bad-other-tenant")) is None
        assert (await store.list_memories(other, "mallory", state=None))[0] == []
        assert await store.get_job(tenants[0], job_id_for(tenants[0], "bad-other-user")) is None

    # a restart reads on from the committed offsets: no bad record is delivered (and dead-lettered) again
    async with running_worker(settings) as worker:
        after = [turn(tenants[2], "after", "after-restart", "I work at Globex.")]
        await publish(settings, after)
        await wait_for(lambda: all_done(worker.clients.store, after), what="a turn after the restart")
    assert len(await dlq_letters(settings)) == len(hostile)


async def test_publish_sends_every_hostile_line_and_never_raises(settings, tmp_path):
    hostile = hostile_values("acme", "u-1", settings.max_turn_bytes)
    lines = [value for _, value, _ in hostile if b"\n" not in value and value.strip()]
    huge = json.dumps({"turn_id": "huge", "user_id": "u-1", "role": "user", "text": "x" * (2 * 1024 * 1024)})
    surrogate_without_tenant = b'{"turn_id": "s", "user_id": "u-1", "role": "user", "text": "I like \\ud800 tea."}'
    path = tmp_path / "turns.jsonl"
    path.write_bytes(b"\n".join([*lines, huge.encode(), surrogate_without_tenant]) + b"\n")

    result = await publish_file(path, settings, settings.broker, tenant="acme")  # --tenant rewrites lines

    assert (result.sent, result.dead_lettered) == (len(lines) + 1, 1)
    records = await read_topic(settings, settings.turns_topic, expect=result.sent)
    assert len(records) == result.sent
    assert any(b"\\ud800" in value and b'"tenant_id": "acme"' in value for _, value in records)
    (letter,) = [DeadLetter.model_validate_json(v) for _, v in await read_topic(settings, settings.dlq_topic, 1)]
    assert letter.reason == "too_large" and len(letter.raw) <= 4096
