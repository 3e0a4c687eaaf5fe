"""The oscillation story through the broker: a preference that keeps flipping is escalated, not
auto-resolved, and the person's answer (a value per context plus a default) is what recall proposes."""

from __future__ import annotations

import json

import pytest
from integration.harness import publish, read_topic, running_worker, wait_for

from beliefs.records import JobState, MemoryState, job_id_for
from launch.sidecar_serving import recall_service
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest

pytestmark = pytest.mark.integration

USER = "u-osc"

STORY = [  # about two weeks of one user's life
    ("t-1", "2026-03-02T09:00:00Z", "I prefer morning meetings."),
    ("t-2", "2026-03-05T15:00:00Z", "These days I prefer afternoon meetings."),
    ("t-3", "2026-03-09T09:00:00Z", "My consulting work is back, so I prefer morning meetings again."),
    ("t-4", "2026-03-14T14:00:00Z", "Actually afternoon meetings work best for my main job."),
]


def turn(tenant: str, turn_id: str, ts: str, text: str) -> dict:
    return {"turn_id": turn_id, "tenant_id": tenant, "user_id": USER, "agent_id": "assistant",
            "session_id": "s-1", "role": "user", "text": text, "ts": ts}  # fmt: skip


async def finished(store, tenant: str, turn_id: str) -> bool:
    job = await store.get_job(tenant, job_id_for(tenant, turn_id))
    return job is not None and job.state is not JobState.QUEUED


async def meeting_memories(store, tenant: str, state: MemoryState):
    memories, _ = await store.list_memories(tenant, USER, state=state)
    return [m for m in memories if m.attribute == "preferred_meeting_time"]


async def proposed(service, tenant: str, query: str, **request) -> list[str]:
    result = await service.recall(Principal(tenant), RecallRequest(user_id=USER, query=query, **request))
    return [m.text for m in result.memories if "meetings" in m.text]


async def test_an_oscillating_preference_is_escalated_and_resolved_by_context(settings, tenant):
    async with running_worker(settings) as worker:
        store = worker.clients.store
        for turn_id, ts, text in STORY:  # one at a time: each turn is said days after the last
            await publish(settings, [turn(tenant, turn_id, ts, text)])
            await wait_for(lambda t=turn_id: finished(store, tenant, t), what=f"job {turn_id}")

        # morning → afternoon → morning again was auto-resolved; the third flip is a loop
        assert await meeting_memories(store, tenant, MemoryState.ACTIVE) == []
        contested = await meeting_memories(store, tenant, MemoryState.CONTESTED)
        assert sorted((m.value, m.context) for m in contested) == [("afternoon", "main"), ("morning", None)]
        (slot,) = await store.list_contested(tenant, USER)
        assert [e["value"] for e in slot.value_history] == ["morning", "afternoon", "morning", "afternoon"]

        records = await read_topic(settings, settings.escalations_topic, expect=1)
        events = [json.loads(value) for _, value in records]
        mine = [e for e in events if e["tenant_id"] == tenant]
        assert [e["kind"] for e in mine] == ["input_required"]
        assert (mine[0]["contested_id"], mine[0]["attribute"]) == (slot.id, "preferred_meeting_time")
        assert records[0][0] == f"{tenant}:{USER}".encode()

        # while open, recall proposes no meeting time and reports the loop instead
        service = recall_service(settings, worker.clients)
        await service.start()
        try:
            waiting = await service.recall(
                Principal(tenant), RecallRequest(user_id=USER, query="schedule my team sync")
            )
        finally:
            await service.close()
        assert not [m for m in waiting.memories if "meetings" in m.text]
        [loop] = [c for c in waiting.conflicts if c.kind == "contested"]
        assert (loop.contested_id, loop.attribute) == (slot.id, "preferred_meeting_time")
        assert sorted((v.value, v.context) for v in loop.values) == [("afternoon", "main"), ("morning", None)]
        assert {v.memory_id for v in loop.values} == {m.id for m in contested}
        assert loop.kept_id is None and loop.why.startswith("contested: awaiting a decision")

        # the person decides: mornings only for consulting, afternoons otherwise
        texts = [
            "User prefers afternoon meetings (default).",
            "User prefers morning meetings for consulting.",
        ]
        vectors = [v.tolist() for v in await worker.clients.embedder.aembed(texts)]
        resolved, result = await store.resolve_contested(
            tenant, slot.id, by_context={"consulting": "morning"}, default="afternoon",
            resolved_by=USER, embeddings=dict(zip(texts, vectors, strict=True)),
        )  # fmt: skip
        assert resolved.status == "resolved"
        assert result.inserted and await worker.clients.projector.settle(30.0)  # the resolution's points

        service = recall_service(settings, worker.clients)
        await service.start()
        try:
            assert await proposed(service, tenant, "schedule my team sync") == [texts[0]]
            assert await proposed(service, tenant, "when should meetings for my main job be?") == [texts[0]]
            consulting = texts[1:]
            assert await proposed(
                service, tenant, "schedule a meeting", live_intent={"context": "consulting"}
            ) == (consulting)
            assert await proposed(service, tenant, "schedule my consulting meeting") == consulting
        finally:
            await service.close()
