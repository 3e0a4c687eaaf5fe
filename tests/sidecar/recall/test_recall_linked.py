"""Candidates by entity and by time, end to end: real SQL store (both backends), Qdrant Edge, the
real embedder. A belief linked to what a question names (the user's sister, last March) is found
though it shares no word with the question; one of another user, agent or workspace never is."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from beliefs.records import MemoryType, Visibility
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest
from tests.sidecar.recall.seeding import mem

SISTER = {"entity": "user's sister", "type": MemoryType.FACT, "topic": "family"}
MARCH = datetime(2026, 3, 12, 9, 30, tzinfo=UTC)
ANCHOR = datetime(2026, 5, 20, tzinfo=UTC)  # "last March" said on this day is March 2026
_PASTIMES = ("pottery", "yoga", "rock climbing", "chess", "salsa dancing", "bouldering", "karaoke", "sourdough baking",
             "birdwatching", "fencing", "archery", "calligraphy", "knitting", "sailing", "surfing", "trail running",
             "swimming", "tennis", "painting", "gardening")  # fmt: skip
_WHEN = ("on Mondays", "on weekends", "after work", "with friends")


async def ask(world, tenant: str, query: str, agent: str | None = None, **body):
    principal = Principal(tenant, agent, key_id="key-fingerprint")
    request = RecallRequest(user_id=body.pop("user_id", "u1"), query=query, diagnostics=True, **body)
    return await world.service.recall(principal, request)


def found(result) -> dict[str, bool]:
    """{id: whether it came (also) by a link} of the returned memories."""
    return {m.id: bool(m.sources and m.sources.linked) for m in result.memories}


@pytest.mark.parametrize(
    "question",
    ["what does my sister do?", "What does my sister do for a living?", "remind me about my sister", "my sister?"],
)
async def test_a_belief_about_the_sister_is_found_by_its_entity(world, tenant, question) -> None:
    bass = mem(tenant, "u1", "Plays bass in a jazz trio.", **SISTER)  # no word of the question, a low cosine
    # the user's own pastimes: each closer to the question than the sister's belief, more of them
    # than the dense search returns for a small answer, so similarity alone never reaches hers
    pastimes = [mem(tenant, "u1", f"Does {what} {when}.") for what in _PASTIMES for when in _WHEN]
    await world.seed(bass, *pastimes)
    got = found(await ask(world, tenant, question, limit=5))
    assert got.get(bass.id) is True


@pytest.mark.parametrize(
    "question",
    ["what did I decide last March?", "What did we settle on in March 2026?", "anything I chose last march"],
)
async def test_a_belief_of_last_march_is_found_by_its_time(world, tenant, question) -> None:
    ledger = mem(tenant, "u1", "Moved the billing ledger onto Postgres.", type=MemoryType.DECISION,
                 topic="work", created_at=MARCH, valid_from=MARCH)  # fmt: skip
    got = found(await ask(world, tenant, question, dates_relative_to=ANCHOR))
    assert ledger.id not in got  # not seeded yet: nothing is invented
    await world.seed(ledger)
    got = found(await ask(world, tenant, question, dates_relative_to=ANCHOR))
    assert got.get(ledger.id) is True


async def test_linked_candidates_never_leave_the_scope(world, tenant) -> None:
    other_user = mem(tenant, "u2", "Ana works night shifts at the children's hospital.", **SISTER)
    private = mem(tenant, "u1", "Ana is training for a marathon in Lisbon.", visibility=Visibility.AGENT,
                  agent_id="other-bot", **SISTER)  # fmt: skip
    elsewhere = mem(tenant, "u1", "Ana adopted a grey cat called Pixel.", workspace_id="ws-b", **SISTER)
    in_march = [
        mem(tenant, "u2", "Moved the billing ledger onto Postgres.", created_at=MARCH, valid_from=MARCH),
        mem(tenant, "u1", "Signed the lease for the Porto flat.", created_at=MARCH, valid_from=MARCH,
            visibility=Visibility.AGENT, agent_id="other-bot"),
        mem(tenant, "u1", "Dropped the Kafka migration.", created_at=MARCH, valid_from=MARCH, workspace_id="ws-b"),
    ]  # fmt: skip
    await world.seed(other_user, private, elsewhere, *in_march)
    outside = {other_user.id, private.id, elsewhere.id, *(m.id for m in in_march)}
    for agent, workspace in ((None, None), ("bot", None), ("bot", "ws-a"), (None, "ws-a")):
        for question in ("what does my sister do?", "what did I decide last March?", "Ana"):
            result = await ask(world, tenant, question, agent=agent, workspace_id=workspace, dates_relative_to=ANCHOR)
            assert not outside & set(found(result))
