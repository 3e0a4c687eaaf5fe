"""The reads the console is built on, over HTTP and the real store: user search, a user's overview,
the audit of reads, a memory's source turns, and the narrowed, newest-first listings. Each is scoped
like its neighbours: tenant from the key, another agent's private state out of reach, `recall` needed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from beliefs.records import RecallAudit, Visibility, utcnow
from sidecar.app import create_app
from sinks.sql.admin import AdminStore
from streams.settings import Settings
from tests.sidecar.bodies import ACME, BOT, OTHER
from tests.sidecar.conftest import API_KEYS
from tests.sinks.episode_builders import kept, said

WRITER = {"Authorization": "Bearer key-writer"}  # acme, `retain` only


@pytest.fixture
def settings() -> Settings:
    return Settings(api_keys=API_KEYS + ",key-writer=acme/retain")


@pytest.fixture
async def http(settings, store, publisher) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, store, publisher, admin=AdminStore.of(store))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as client:
        yield client


async def _told(store, memory_factory, user: str, text: str, minute: int, **fields):
    """A user turn kept as an episode with the memory it gave, as the write path stores them."""
    turn = said("acme", text, user=user, minute=minute, speaker=fields.pop("speaker", None))
    given = {name: fields.pop(name) for name in ("topic", "agent_id", "visibility") if name in fields}
    memory = memory_factory("acme", user, turn.turn_id, f"User said: {text}", minutes=minute, **fields)
    memory = memory.model_copy(update={"created_at": turn.ts, "valid_from": turn.ts, **given})
    await store.write([kept(turn, memory)])
    return memory, turn


async def test_users_are_searched_and_a_users_overview_counts_by_state_type_and_topic(
    http, store, memory_factory
):
    await _told(store, memory_factory, "u-ada", "I use vim.", 1)
    await _told(store, memory_factory, "u-ada", "I live in Porto.", 2, attribute="lives_in", value="Porto",
                topic="home")  # fmt: skip
    await _told(store, memory_factory, "u-bob", "I use emacs.", 3)
    found = (await http.get("/v1/users", params={"q": "ADA"}, headers=ACME)).json()["users"]
    assert [u["user_id"] for u in found] == ["u-ada"]
    assert (await http.get("/v1/users", params={"q": "ada"}, headers=OTHER)).json()["users"] == []

    overview = (await http.get("/v1/users/u-ada", headers=ACME)).json()
    assert overview["memories"]["active"] == 2 and overview["total"] == 2
    assert overview["current_by_type"] == {"preference": 2}
    assert overview["current_by_topic"] == {"home": 1, "tech": 1}
    assert overview["episodes"] == {"active": 2, "revoked": 0} and overview["open_contested"] == 0
    nobody = (await http.get("/v1/users/u-ada", headers=OTHER)).json()  # another tenant sees nothing
    assert (nobody["total"], nobody["episodes"]["active"], nobody["last_said_at"]) == (0, 0, None)
    refused = await http.get("/v1/users/u-ada", headers=WRITER)
    assert refused.status_code == 403 and "recall" in refused.json()["error"]["message"]


async def test_a_memory_cites_its_source_turns_with_their_words_when_and_who(http, store, memory_factory):
    memory, turn = await _told(store, memory_factory, "u-ada", "I moved to <b>Lisbon</b>.", 5, speaker="Ada")
    sources = (await http.get(f"/v1/memories/{memory.id}/sources", headers=ACME)).json()
    [source] = sources["sources"]
    assert (source["turn_id"], sources["total"]) == (turn.turn_id, 1)
    episode = source["episode"]
    assert (episode["text"], episode["speaker"], episode["role"]) == ("I moved to <b>Lisbon</b>.", "Ada", "user")
    assert episode["said_at"].startswith(turn.ts.strftime("%Y-%m-%dT%H:%M"))

    direct = memory_factory("acme", "u-ada", "no-episode-turn", "User uses helix.", value="helix")
    await store.insert_memory(direct, None)
    cited = (await http.get(f"/v1/memories/{direct.id}/sources", headers=ACME)).json()["sources"]
    assert cited == [{"turn_id": "no-episode-turn", "episode": None}]
    assert (await http.get(f"/v1/memories/{memory.id}/sources", headers=OTHER)).status_code == 404
    assert (await http.get(f"/v1/memories/{memory.id}/sources", headers=WRITER)).status_code == 403


async def test_another_agents_private_memory_has_no_sources_for_a_bound_key(http, store, memory_factory):
    memory, _ = await _told(store, memory_factory, "u-ada", "I use vim.", 1, agent_id="other-bot",
                            visibility=Visibility.AGENT)  # fmt: skip
    assert (await http.get(f"/v1/memories/{memory.id}/sources", headers=BOT)).status_code == 404
    assert (await http.get(f"/v1/memories/{memory.id}/sources", headers=ACME)).status_code == 200


def _read(minute: int, agent: str | None = None) -> RecallAudit:
    return RecallAudit(
        id=str(uuid.uuid4()), tenant_id="acme", user_id="u-ada", agent_id=agent, key_id="f1ngerprint",
        at=utcnow() + timedelta(minutes=minute), query_digest="a" * 64, memory_ids=[f"m{minute}"],
    )  # fmt: skip


async def test_the_audit_of_reads_is_paged_newest_first_and_scoped(http, store):
    await store.write_audit([_read(1), _read(2), _read(3, agent="other-bot"), _read(4, agent="bot")])
    first = (await http.get("/v1/users/u-ada/reads", params={"limit": 2}, headers=ACME)).json()
    assert [r["memory_ids"] for r in first["reads"]] == [["m4"], ["m3"]]  # a tenant key reaches every agent
    rest = await http.get("/v1/users/u-ada/reads", params={"limit": 2, "cursor": first["next_cursor"]}, headers=ACME)
    assert [r["memory_ids"] for r in rest.json()["reads"]] == [["m2"], ["m1"]]
    assert set(first["reads"][0]) == {
        "id", "at", "agent_id", "key_id", "query_digest", "memory_ids", "episode_ids", "returned", "withheld",
    }  # fmt: skip
    bot = (await http.get("/v1/users/u-ada/reads", headers=BOT)).json()["reads"]
    assert [r["memory_ids"] for r in bot] == [["m4"], ["m2"], ["m1"]]  # not another agent's reads
    assert (await http.get("/v1/users/u-ada/reads", headers=OTHER)).json()["reads"] == []
    assert (await http.get("/v1/users/u-ada/reads", headers=WRITER)).status_code == 403
    bad = await http.get("/v1/users/u-ada/reads", params={"cursor": "nope"}, headers=ACME)
    assert bad.status_code == 400


async def test_listings_narrow_by_type_and_topic_and_read_newest_first(http, store, memory_factory):
    for minute, topic in ((1, "tech"), (2, "home"), (3, "tech")):
        await _told(store, memory_factory, "u-ada", f"turn {minute}", minute, topic=topic, value=f"v{minute}",
                    attribute=f"likes_{minute}")
    listed = (await http.get("/v1/users/u-ada/memories", params={"topic": "tech", "order": "newest"},
                             headers=ACME)).json()["memories"]  # fmt: skip
    assert [m["value"] for m in listed] == ["v3", "v1"]
    none = await http.get("/v1/users/u-ada/memories", params={"type": "fact"}, headers=ACME)
    assert none.json()["memories"] == []
    assert (await http.get("/v1/users/u-ada/memories", params={"type": "opinion"}, headers=ACME)).status_code == 422
    episodes = (await http.get("/v1/users/u-ada/episodes", params={"order": "newest", "limit": 2},
                               headers=ACME)).json()  # fmt: skip
    assert [e["text"] for e in episodes["episodes"]] == ["turn 3", "turn 2"]
    more = await http.get("/v1/users/u-ada/episodes", params={"order": "newest", "cursor": episodes["next_cursor"]},
                          headers=ACME)  # fmt: skip
    assert [e["text"] for e in more.json()["episodes"]] == ["turn 1"]
