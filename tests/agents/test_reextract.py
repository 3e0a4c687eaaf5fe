"""Re-extraction from stored episodes, on the real write path's store: the rules rebuild the same
belief state ingest made, a second run is a replay, a new reading updates through reconcile (dry
run first), and a revoked memory stays revoked."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from agents.pipeline import WritePipeline
from agents.reextract import reextract
from beliefs.records import Claim, EventKind, Turn, utcnow
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from sinks.portability import export
from sinks.reach import EVERY_AGENT

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
SAID = ["I live in Lisbon.", "I'm allergic to peanuts.", "thanks!", "I prefer Python over Java for scripts."]


def raw(tenant: str, n: int, text: str) -> RawTurn:
    value = {"tenant_id": tenant, "user_id": "ana", "session_id": "s1", "turn_id": f"t{n}", "role": "user",
             "text": text, "ts": (T0 + timedelta(minutes=n)).isoformat()}  # fmt: skip
    return RawTurn(json.dumps(value).encode(), f"{tenant}:ana".encode(), "beliefstream.turns", 0, n)


TIMESTAMPED = re.compile(r'"(?:created_at|updated_at|last_confirmed|last_accessed|valid_from|at)":"[^"]*"')


async def state(pipeline: WritePipeline, tenant: str) -> list[str]:
    """The user's export (`beliefstream export`'s lines: memories in every state, contested slots,
    episodes), its write times blanked."""
    lines = [line async for line in export(pipeline.store, EVERY_AGENT, tenant, "ana")]
    return [TIMESTAMPED.sub("", line) for line in lines[1:-1]]


class Porto(RulesExtractor):
    """The rules, except that Lisbon is now read as Porto (a better extractor, say)."""

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        found = await super().extract(turns)
        return [[c.model_copy(update={"value": "Porto", "text": "The user lives in Porto."}) if c.value == "Lisbon" else c
                 for c in claims] for claims in found]  # fmt: skip


async def ingest(pipeline: WritePipeline, tenant: str) -> None:
    await pipeline.persist(await pipeline.prepare([raw(tenant, n, text) for n, text in enumerate(SAID, 1)]))
    while await pipeline.store.pending_events(limit=1000):  # published
        await pipeline.store.ack_events([e.seq for e in await pipeline.store.pending_events(limit=1000)])


async def test_the_rules_rebuild_the_same_state_and_a_second_run_is_a_replay(pipeline: WritePipeline, tenant: str) -> None:
    await ingest(pipeline, tenant)
    before = await state(pipeline, tenant)
    assert before

    report = await reextract(pipeline.store, RulesExtractor(), tenant, ["ana"], tag="rules", dry_run=False)

    assert (report.added, report.updated, report.retracted) == ([], [], [])
    assert report.turns == 3  # "thanks!" was not kept as an episode
    assert await state(pipeline, tenant) == before
    assert await pipeline.store.pending_events(limit=10) == []
    again = await reextract(pipeline.store, RulesExtractor(), tenant, ["ana"], tag="rules", dry_run=False)
    assert again.replayed == 3


async def test_a_new_reading_is_previewed_then_written_through_reconcile(pipeline: WritePipeline, tenant: str) -> None:
    await ingest(pipeline, tenant)
    before = await state(pipeline, tenant)

    dry = await reextract(pipeline.store, Porto(), tenant, ["ana"], tag="porto", dry_run=True)
    assert [m.value for m in dry.updated] == ["Porto"] and dry.added == [] and dry.retracted == []
    assert await state(pipeline, tenant) == before  # nothing written
    assert any("would be updated" in line for line in dry.lines(dry_run=True))

    real = await reextract(pipeline.store, Porto(), tenant, ["ana"], tag="porto", dry_run=False)
    assert [m.value for m in real.updated] == ["Porto"]
    kinds = [json.loads(e.value)["kind"] for e in await pipeline.store.pending_events(limit=100)]
    assert EventKind.SUPERSEDED.value in kinds and EventKind.CREATED.value in kinds  # through the outbox
    active, _ = await pipeline.store.list_memories(tenant, "ana")
    assert "Porto" in {m.value for m in active} and "Lisbon" not in {m.value for m in active}
    assert (await reextract(pipeline.store, Porto(), tenant, ["ana"], tag="porto", dry_run=False)).updated == []


async def test_a_revoked_memory_stays_revoked(pipeline: WritePipeline, tenant: str) -> None:
    await ingest(pipeline, tenant)
    active, _ = await pipeline.store.list_memories(tenant, "ana")
    (peanuts,) = [m for m in active if "peanut" in m.text.lower()]
    await pipeline.store.revoke(tenant, peanuts.id, utcnow())

    report = await reextract(pipeline.store, RulesExtractor(), tenant, ["ana"], tag="rules-2", dry_run=False)

    assert report.added == []
    after, _ = await pipeline.store.list_memories(tenant, "ana")
    assert peanuts.id not in {m.id for m in after}
    assert (await pipeline.store.get_memory(tenant, peanuts.id)).state.value == "revoked"




class Reworded(RulesExtractor):
    """The rules with every claim reworded: another id for the same belief."""

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        return [[c.model_copy(update={"text": c.text.rstrip(".") + ", as they said."}) for c in claims]
                for claims in await super().extract(turns)]  # fmt: skip


async def test_a_revoked_belief_is_not_stated_again_by_a_new_reading(pipeline: WritePipeline, tenant: str) -> None:
    await ingest(pipeline, tenant)
    active, _ = await pipeline.store.list_memories(tenant, "ana")
    (peanuts,) = [m for m in active if "peanut" in m.text.lower()]
    await pipeline.store.revoke(tenant, peanuts.id, utcnow())

    report = await reextract(pipeline.store, Reworded(), tenant, ["ana"], tag="reworded", dry_run=False)

    after, _ = await pipeline.store.list_memories(tenant, "ana")
    assert not any("peanut" in m.text.lower() for m in after)
    assert report.kept_as_decided >= 1


async def test_an_edited_belief_is_not_overruled_by_its_turn(pipeline: WritePipeline, tenant: str) -> None:
    from sinks.sql.admin import AdminStore

    await ingest(pipeline, tenant)
    active, _ = await pipeline.store.list_memories(tenant, "ana")
    (lisbon,) = [m for m in active if m.value == "Lisbon"]
    now = utcnow()
    edited = lisbon.model_copy(update={"id": "edit-of-lisbon", "value": "Madrid", "text": "The user lives in Madrid.",
                                       "created_at": now, "valid_from": now})  # fmt: skip
    await AdminStore.of(pipeline.store).edit_memory(tenant, lisbon.id, edited, None, now)

    dry = await reextract(pipeline.store, Porto(), tenant, ["ana"], tag="porto", dry_run=True)
    assert dry.updated == [] and dry.kept_as_decided == 1
    await reextract(pipeline.store, Porto(), tenant, ["ana"], tag="porto", dry_run=False)
    after, _ = await pipeline.store.list_memories(tenant, "ana")
    assert {m.value for m in after if m.attribute == lisbon.attribute} == {"Madrid"}


async def test_a_value_only_correction_is_read_again_as_at_ingest(pipeline: WritePipeline, tenant: str) -> None:
    await pipeline.persist(await pipeline.prepare([raw(tenant, 1, "I live in Porto."), raw(tenant, 2, "Oops, I meant Braga, not Porto.")]))
    before = await state(pipeline, tenant)
    active, _ = await pipeline.store.list_memories(tenant, "ana")
    assert "Braga" in {m.value for m in active}

    report = await reextract(pipeline.store, RulesExtractor(), tenant, ["ana"], tag="rules", dry_run=False)

    assert (report.added, report.updated, report.retracted) == ([], [], [])
    assert await state(pipeline, tenant) == before
