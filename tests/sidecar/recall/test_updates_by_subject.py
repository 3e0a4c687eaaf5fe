"""Updates by subject, from raw turns through the real write pipeline to recall (SQLite and PostgreSQL).

A later statement that corrects, changes or ends an earlier one, in words no attribute rule knows,
makes the earlier quote and its beliefs stale: they are never presented as current again. Weak
claims (hypothetical, the assistant's, quoted) change nothing.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from projection import projector_of
from recording_producer import RecordingProducer

from agents.pipeline import WritePipeline
from beliefs.episodes import episode_id_for
from beliefs.records import MemoryState
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest
from streams.settings import Settings
from tests.sidecar.recall.seeding import NOW

USER = "u-upd"


def turn(tenant: str, turn_id: str, text: str, days_ago: float, role: str = "user", session: str = "s1") -> RawTurn:
    value = {
        "tenant_id": tenant, "user_id": USER, "session_id": session, "turn_id": turn_id, "role": role,
        "text": text, "ts": (NOW - timedelta(days=days_ago)).isoformat(),
    }  # fmt: skip
    return RawTurn(json.dumps(value).encode(), f"{tenant}:{USER}".encode(), "beliefstream.turns", 0, 0)


async def retain(world, tmp_path, *batches: list[RawTurn]) -> WritePipeline:
    settings = Settings(data_dir=tmp_path)
    pipeline = WritePipeline(
        settings, world.store, projector_of(world.store, world.index), world.embedder, RulesExtractor(),
        RecordingProducer(),
    )  # fmt: skip
    for batch in batches:
        await pipeline.persist(await pipeline.prepare(batch))
    await pipeline.projector.drain()
    return pipeline


async def recall(world, tenant: str, query: str, **body):
    request = RecallRequest(user_id=USER, query=query, diagnostics=True, **body)
    return await world.service.recall(Principal(tenant, None, key_id="k"), request)


def presented_as_current(result, word: str) -> list:
    """Items that say `word` and do not say of themselves that they are stale."""
    return [
        m for m in result.memories
        if word.lower() in m.text.lower() and not m.superseded and not m.possibly_superseded
    ]  # fmt: skip


async def test_a_change_of_plan_in_a_later_session_makes_the_earlier_quote_stale(world, tenant, tmp_path) -> None:
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "We booked the Lisbon venue for the retreat.", 9, session="s1")],
        [turn(tenant, "t2", "Scratch that, the retreat is in Valencia now.", 2, session="s2")],
    )  # fmt: skip
    old = await world.store.get_episode(tenant, episode_id_for(tenant, "t1"))
    assert old.superseded_by == episode_id_for(tenant, "t2") and old.superseded_at == NOW - timedelta(days=2)

    result = await recall(world, tenant, "Where is the retreat?")
    assert presented_as_current(result, "Valencia")
    assert presented_as_current(result, "Lisbon") == []
    assert episode_id_for(tenant, "t1") in {s.id for s in result.suppressed}  # never silently
    labelled = await recall(world, tenant, "Where is the retreat?", superseded_episodes="label")
    [quote] = [m for m in labelled.memories if "Lisbon" in m.text]
    assert quote.superseded and quote.superseded_by == episode_id_for(tenant, "t2") and "replaced" in quote.note


async def test_a_corrected_number_supersedes_the_belief_and_the_correction_is_recalled(world, tenant, tmp_path) -> None:
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "My rail pass costs 90 euros.", 20, session="s1")],
        [turn(tenant, "t2", "Sorry, it's 120 euros, not 90.", 19, session="s2")],
    )  # fmt: skip
    old = await world.store.get_episode(tenant, episode_id_for(tenant, "t1"))
    assert old.superseded_by == episode_id_for(tenant, "t2")
    memories, _ = await world.store.list_memories(tenant, USER, state=None)
    assert all(m.state is MemoryState.SUPERSEDED for m in memories if "90" in m.text and "120" not in m.text)

    result = await recall(world, tenant, "How much is my rail pass?")
    assert presented_as_current(result, "120")
    assert [m for m in presented_as_current(result, "90") if "not 90" not in m.text] == []


async def test_a_new_employer_in_a_new_phrasing_supersedes_the_old_one(world, tenant, tmp_path) -> None:
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "I work at Vandelay Industries.", 40, session="s1")],
        [turn(tenant, "t2", "I've just joined Acme as a designer.", 3, session="s2")],
    )  # fmt: skip
    result = await recall(world, tenant, "Where do I work?")
    assert presented_as_current(result, "Acme")
    assert presented_as_current(result, "Vandelay") == []


async def test_within_one_batch_the_later_turn_wins_too(world, tenant, tmp_path) -> None:
    await retain(
        world, tmp_path,
        [
            turn(tenant, "t1", "Our team offsite is in Porto this spring.", 5),
            turn(tenant, "t2", "Change of plan: the team offsite moved to Seville, Porto was fully booked.", 4),
        ],
    )  # fmt: skip
    result = await recall(world, tenant, "Where is the team offsite?")
    assert presented_as_current(result, "Seville")
    assert [m for m in presented_as_current(result, "Porto") if "Seville" not in m.text] == []


async def test_an_undecided_update_is_labelled_and_dated_beside_the_newer(world, tenant, tmp_path) -> None:
    """A new start may replace the old (another school) or add to it (a second one): not decided."""
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "My daughter takes piano lessons at the Riverside Music School.", 30, session="s1")],
        [turn(tenant, "t2", "My daughter just started piano lessons at the Conservatory Academy.", 1, session="s2")],
    )  # fmt: skip
    old = await world.store.get_episode(tenant, episode_id_for(tenant, "t1"))
    assert old.superseded_by is None and old.possibly_superseded_by == episode_id_for(tenant, "t2")
    result = await recall(world, tenant, "When are the piano lessons?")
    older_text = "My daughter takes piano lessons at the Riverside Music School."
    newer_text = "My daughter just started piano lessons at the Conservatory Academy."
    # the older turn: a quote of its own, or carried on the labelled belief drawn from it (one item per fact)
    [older] = [m for m in result.memories if m.text == older_text or older_text in [e.text for e in m.evidence]]
    # the newer turn: a quote of its own, or carried on the belief drawn from it (one item per fact)
    [newer] = [m for m in result.memories if m.text == newer_text or newer_text in [e.text for e in m.evidence]]
    # it names the newer turn, or (a belief) the belief drawn from it
    assert older.possibly_superseded and older.superseded_by in (episode_id_for(tenant, "t2"), newer.id)
    assert older.superseded_at == NOW - timedelta(days=1) and "may have replaced" in older.note
    assert not newer.possibly_superseded and newer.said_at > older.said_at


async def test_weak_claims_never_make_a_belief_stale(world, tenant, tmp_path) -> None:
    await retain(
        world, tmp_path,
        [turn(tenant, "t1", "I live in Lisbon, near the river.", 30, session="s1")],
        [
            turn(tenant, "t2", "What if I moved to Berlin instead, would that be smart?", 3, session="s2"),
            turn(tenant, "t3", "Maybe I'll switch to Berlin now, I'm not sure yet.", 3, session="s2"),
            turn(tenant, "t4", "You switched cities to Berlin now, right?", 3, role="assistant", session="s2"),
            turn(tenant, "t5", 'My friend wrote: "I moved to Berlin now, scratch Lisbon."', 3, session="s2"),
        ],
    )  # fmt: skip
    old = await world.store.get_episode(tenant, episode_id_for(tenant, "t1"))
    assert (old.superseded_by, old.possibly_superseded_by) == (None, None)
    memories, _ = await world.store.list_memories(tenant, USER)
    assert any("Lisbon" in m.text and m.possibly_superseded_by is None for m in memories)


async def test_a_replayed_update_changes_nothing(world, tenant, tmp_path) -> None:
    first = [turn(tenant, "t1", "My gym locker is number 113.", 10, session="s1")]
    second = [turn(tenant, "t2", "My mistake, the locker is 131, not 113.", 9, session="s2")]
    await retain(world, tmp_path, first, second)
    before, _ = await world.store.list_memories(tenant, USER, state=None)
    old = await world.store.get_episode(tenant, episode_id_for(tenant, "t1"))

    await retain(world, tmp_path, first, second)

    after, _ = await world.store.list_memories(tenant, USER, state=None)
    assert [(m.id, m.state, m.superseded_by) for m in after] == [(m.id, m.state, m.superseded_by) for m in before]
    assert await world.store.get_episode(tenant, episode_id_for(tenant, "t1")) == old
    assert isinstance(old.superseded_at, datetime)


async def test_a_plain_new_count_right_after_is_possibly_superseding_and_comes_first(world, tenant, tmp_path) -> None:
    """No update cue ("Make it 9 for the dinner"): the count of the same thing, said right after, may
    replace the earlier one; the earlier is never presented as current, and the newer comes first."""
    await retain(
        world, tmp_path,
        [
            turn(tenant, "t1", "The dinner at Lupa is a table for 7 people.", 2, session="s1"),
            turn(tenant, "t2", "Make it 9 people, the neighbours are joining.", 2 - 1 / 1440, session="s1"),
        ],
    )  # fmt: skip
    old = await world.store.get_episode(tenant, episode_id_for(tenant, "t1"))
    assert old.possibly_superseded_by == episode_id_for(tenant, "t2") and old.superseded_by is None

    result = await recall(world, tenant, "How many people is the dinner at Lupa for?")
    assert presented_as_current(result, "9 people")
    assert presented_as_current(result, "7 people") == []
    texts = [m.text for m in result.memories]
    newer = next(i for i, t in enumerate(texts) if "9 people" in t)
    assert all(newer < i for i, t in enumerate(texts) if "7 people" in t), texts
