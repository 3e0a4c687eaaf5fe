"""Episodes over HTTP: listing, one episode, revocation and erasure with their vector points."""

from __future__ import annotations

import json

import sqlalchemy as sa

from beliefs.episodes import episode_id_for
from beliefs.records import job_id_for
from sinks.base import VectorFilter, VectorPoint, episode_payload
from sinks.sql.tables import outbox
from sinks.sql.vector_outbox import SqlVectorOutbox
from tests.sidecar.bodies import ACME, BOT, OTHER
from tests.sinks.episode_builders import kept, said

EVERY_STATE = ("active", "revoked")


async def seed(store, vectors, minilm, *turns) -> list[str]:
    """Write the turns as the pipeline does (kept as episodes) and sync their points."""
    embeddings = await minilm.aembed([t.text for t in turns])
    outcomes = [kept(t, embedding=e.tolist()) for t, e in zip(turns, embeddings, strict=True)]
    result = await store.write(outcomes)
    by_id = {o.episode.id: o.episode_embedding for o in outcomes}
    await vectors.write([VectorPoint(e.id, by_id[e.id], episode_payload(e)) for e in result.episodes])
    await SqlVectorOutbox.of(store).mark_episode_vectors_synced([e.id for e in result.episodes])
    return [episode_id_for(t.tenant_id, t.turn_id) for t in turns]


async def episode_hits(vectors, minilm, text: str, tenant: str = "acme", user: str = "u-1", **scope) -> list[str]:
    [query] = await minilm.aembed([text])
    found = await vectors.search(query.tolist(), VectorFilter(tenant, user, kinds=("episode",), **scope), limit=10)
    return [hit.id for hit in found]


async def test_listing_pages_the_users_episodes_in_the_order_they_were_said(governed, store, edge_vectors, minilm):
    turns = [said("acme", f"Day {i}: we hiked the ridge trail.", user="u-1", minute=10 - i) for i in range(3)]
    ids = await seed(store, edge_vectors, minilm, *turns)
    await seed(store, edge_vectors, minilm, said("acme", "A private plan.", user="u-1", agent="other-bot", private=True, minute=100))

    first = await governed.get("/v1/users/u-1/episodes", params={"limit": 2}, headers=ACME)
    rest = await governed.get(
        "/v1/users/u-1/episodes", params={"limit": 2, "cursor": first.json()["next_cursor"]}, headers=ACME
    )
    as_bot = await governed.get("/v1/users/u-1/episodes", headers=BOT)

    listed = [e["id"] for e in first.json()["episodes"] + rest.json()["episodes"]]
    assert listed[:3] == list(reversed(ids)) and len(listed) == 4
    assert rest.json()["next_cursor"] is None
    assert [e["id"] for e in as_bot.json()["episodes"]] == list(reversed(ids))  # not other-bot's private one
    one = await governed.get(f"/v1/episodes/{ids[0]}", headers=ACME)
    assert (one.json()["text"], one.json()["role"], one.json()["trust"]) == (turns[0].text, "user", "trusted")
    assert (await governed.get(f"/v1/episodes/{ids[0]}", headers=OTHER)).status_code == 404
    bad = await governed.get("/v1/users/u-1/episodes", params={"state": "gone"}, headers=ACME)
    assert bad.status_code == 400


async def test_revoking_an_episode_takes_it_out_of_every_active_search(governed, store, edge_vectors, minilm):
    [episode_id] = await seed(store, edge_vectors, minilm, said("acme", "I used to work at Initech.", user="u-1"))
    assert await episode_hits(edge_vectors, minilm, "where did I work?") == [episode_id]

    response = await governed.post(f"/v1/episodes/{episode_id}/revoke", headers=ACME)
    again = await governed.post(f"/v1/episodes/{episode_id}/revoke", headers=ACME)

    assert response.status_code == 200 and response.json()["state"] == "revoked"
    assert again.json() == response.json()
    assert await episode_hits(edge_vectors, minilm, "where did I work?") == []
    assert await episode_hits(edge_vectors, minilm, "where did I work?", states=EVERY_STATE) == [episode_id]
    async with store._engine.connect() as conn:
        values = (await conn.execute(sa.select(outbox.c.value))).scalars().all()
    kinds = [json.loads(bytes(v))["kind"] for v in values]
    assert kinds.count("episode_revoked") == 1
    assert (await governed.post(f"/v1/episodes/{episode_id}/revoke", headers=OTHER)).status_code == 404
    assert (await governed.get("/v1/users/u-1/episodes", headers=ACME)).json()["episodes"] == []


async def test_erasure_deletes_the_users_episodes_and_their_points(governed, store, edge_vectors, minilm):
    mine = await seed(store, edge_vectors, minilm, said("acme", "My daughter starts school in September.", user="u-1"))
    theirs = await seed(store, edge_vectors, minilm, said("acme", "My son starts school in September.", user="u-2"))

    response = await governed.delete("/v1/users/u-1", headers=ACME)

    assert response.json()["episodes_deleted"] == 1
    assert await episode_hits(edge_vectors, minilm, "school", states=EVERY_STATE) == []
    assert await episode_hits(edge_vectors, minilm, "school", user="u-2") == theirs
    assert await store.get_episode("acme", mine[0]) is None


async def test_the_job_of_a_turn_without_memories_names_its_episode(governed, store, edge_vectors, minilm):
    question = said("acme", "What should I cook tonight?", user="u-1")
    [episode_id] = await seed(store, edge_vectors, minilm, question)

    response = await governed.get(f"/v1/jobs/{job_id_for('acme', question.turn_id)}", headers=ACME)

    body = response.json()
    assert (body["state"], body["reason"], body["memory_ids"]) == ("skipped", "no_memory_extracted", [])
    assert body["episode_id"] == episode_id
