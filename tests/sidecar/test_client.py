"""`MemoryClient` against the ASGI app in-process, `SyncMemoryClient` against a real uvicorn server."""

from __future__ import annotations

import json
import socket

import httpx
import pytest

from beliefs.records import JobState
from beliefs.write_plan import TurnOutcome
from sidecar.client import JobWaitTimeout, MemoryClient, MemoryClientError, SyncMemoryClient
from tests.sidecar.bodies import editor
from tests.sidecar.live_server import LiveSidecar


@pytest.fixture
async def memory(governed_app):
    async with MemoryClient(
        "http://sidecar", "key-acme", transport=httpx.ASGITransport(governed_app)
    ) as client:
        yield client


def tools(i: int, user: str = "u-1") -> dict:
    """A memory on a multi-valued attribute: several of them stay active side by side."""
    return editor(
        user_id=user,
        text=f"The user uses tool {i}.",
        type="fact",
        attribute="uses_tool",
        value=f"tool-{i}",
    )


async def test_retain_job_and_wait(memory, store, publisher):
    [job_id] = await memory.retain("u-1", "I always use dark mode.", turn_id="t-1", session_id="s-1")
    assert (await memory.job(job_id))["state"] == "queued"
    [turn] = publisher.turns
    assert (turn.turn_id, turn.session_id, turn.tenant_id) == ("t-1", "s-1", "acme")

    with pytest.raises(JobWaitTimeout) as raised:
        await memory.wait(job_id, timeout=0.05, interval=0.01)
    assert (raised.value.status, raised.value.code) == (0, "timeout")

    await store.write([TurnOutcome(turn, job_id, JobState.SKIPPED, "junk")])
    done = await memory.wait(job_id, timeout=5)
    assert (done["state"], done["reason"]) == ("skipped", "junk")


async def test_retain_many_answers_one_job_per_turn(memory, publisher):
    turns = [{"user_id": "u-1", "role": "user", "text": f"turn {i}", "turn_id": f"t-{i}"} for i in range(3)]

    job_ids = await memory.retain_many(turns)

    assert len(set(job_ids)) == 3
    assert [t.turn_id for t in publisher.turns] == ["t-0", "t-1", "t-2"]


async def test_store_memories_forget_and_forget_user(memory):
    stored = [await memory.store(tools(i)) for i in range(5)]
    assert {m["state"] for m in stored} == {"active"}

    listed = await memory.memories("u-1", page_size=2)  # three pages, followed to the end
    assert sorted(m["id"] for m in listed) == sorted(m["id"] for m in stored)

    revoked = await memory.forget(stored[0]["id"])
    assert revoked["state"] == "revoked"
    assert len(await memory.memories("u-1")) == 4
    assert [m["id"] for m in await memory.memories("u-1", state="revoked")] == [stored[0]["id"]]
    assert (await memory.memory(stored[1]["id"]))["history"][0]["id"] == stored[1]["id"]

    erased = await memory.forget_user("u-1")
    assert {k: erased[k] for k in ("user_id", "memories_deleted", "jobs_deleted")} == {
        "user_id": "u-1", "memories_deleted": 5, "jobs_deleted": 0
    }
    assert erased["counts"]["memories"] == 5 and erased["receipt_id"]
    assert await memory.memories("u-1", state="all") == []


async def test_ids_are_quoted_into_one_path_segment(memory):
    user = "u 1?x=#%"
    stored = await memory.store(tools(1, user=user))

    assert [m["id"] for m in await memory.memories(user)] == [stored["id"]]
    assert (await memory.forget_user(user))["memories_deleted"] == 1


async def test_errors_carry_status_code_and_message(memory):
    with pytest.raises(MemoryClientError) as missing:
        await memory.forget("no-such-memory")
    with pytest.raises(MemoryClientError) as invalid:
        await memory.store(editor(confidence=7))

    assert (missing.value.status, missing.value.code) == (404, "not_found")
    assert "no-such-memory" in missing.value.message
    assert (invalid.value.status, invalid.value.code) == (422, "invalid_request")


async def test_a_wrong_key_is_401(governed_app):
    transport = httpx.ASGITransport(governed_app)
    async with MemoryClient("http://sidecar", "wrong", transport=transport) as client:
        with pytest.raises(MemoryClientError) as raised:
            await client.memories("u-1")

    assert (raised.value.status, raised.value.code) == (401, "unauthorized")


class Recorder:
    """A transport that answers `answers[path]` and remembers every request."""

    def __init__(self, answers: dict[str, httpx.Response]) -> None:
        self.answers = answers
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers[request.url.path]


async def test_recall_and_reflect_post_the_contract_bodies():
    recorder = Recorder(
        {
            "/v1/recall": httpx.Response(200, json={"memories": [], "conflicts": [], "tokens_used": 0}),
            "/v1/reflect": httpx.Response(200, json={"answer": "..."}),
        }
    )
    async with MemoryClient("http://sidecar", "k", transport=httpx.MockTransport(recorder)) as client:
        recalled = await client.recall("u-1", "editor?", budget_tokens=300, live_intent={"editor": "vim"})
        reflected = await client.reflect("u-1", "what does the user like?")

    assert recalled["tokens_used"] == 0 and reflected == {"answer": "..."}
    first, second = recorder.requests
    assert (first.method, first.headers["Authorization"]) == ("POST", "Bearer k")
    assert json.loads(first.content) == {
        "user_id": "u-1",
        "query": "editor?",
        "budget_tokens": 300,
        "live_intent": {"editor": "vim"},
    }
    assert json.loads(second.content) == {"user_id": "u-1", "question": "what does the user like?"}


async def test_consolidate_posts_the_contract_body():
    recorder = Recorder({"/v1/consolidate": httpx.Response(200, json={"groups": []})})
    async with MemoryClient("http://sidecar", "k", transport=httpx.MockTransport(recorder)) as client:
        diff = await client.consolidate("tech", similarity_threshold=0.9, dry_run=False)
    assert diff == {"groups": []}
    [request] = recorder.requests
    assert (request.method, request.url.path) == ("POST", "/v1/consolidate")
    assert json.loads(request.content) == {"topic": "tech", "similarity_threshold": 0.9, "dry_run": False}


async def test_rate_limits_and_non_json_errors_are_client_errors():
    recorder = Recorder(
        {
            "/v1/recall": httpx.Response(
                429,
                json={"error": {"code": "rate_limited", "message": "slow down"}},
                headers={"Retry-After": "2"},
            ),
            "/v1/reflect": httpx.Response(502, text="<html>bad gateway</html>"),
        }
    )
    async with MemoryClient("http://sidecar", "k", transport=httpx.MockTransport(recorder)) as client:
        with pytest.raises(MemoryClientError) as limited:
            await client.recall("u-1", "q")
        with pytest.raises(MemoryClientError) as gateway:
            await client.reflect("u-1", "q")

    assert (limited.value.status, limited.value.code, limited.value.retry_after) == (429, "rate_limited", 2.0)
    assert (gateway.value.status, gateway.value.code) == (502, "http_502")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_sync_client_against_a_real_server(tmp_path, settings, publisher):
    with LiveSidecar(tmp_path, settings, publisher) as url, SyncMemoryClient(url, "key-acme") as client:
        [job_id] = client.retain("u-1", "I always use dark mode.", turn_id="t-1")
        assert client.job(job_id)["state"] == "queued"
        with pytest.raises(JobWaitTimeout):
            client.wait(job_id, timeout=0.05, interval=0.01)
        assert len(client.retain_many([{"user_id": "u-1", "role": "user", "text": "x"}])) == 1

        stored = [client.store(tools(i)) for i in range(3)]
        assert sorted(m["id"] for m in client.memories("u-1", page_size=2)) == sorted(m["id"] for m in stored)
        assert client.store(tools(0))["id"] == stored[0]["id"]  # a retried store is the same memory
        assert client.forget(stored[0]["id"])["state"] == "revoked"
        assert client.memory(stored[0]["id"])["state"] == "revoked"
        with pytest.raises(MemoryClientError) as missing:
            client.recall("u-1", "anything")  # not mounted in this app: a clean 404, not a crash
        assert missing.value.status == 404
        receipt = client.forget_user("u-1")
        assert (receipt["memories_deleted"], receipt["jobs_deleted"], receipt["counts"]["jobs"]) == (3, 2, 2)
        assert client.memories("u-1", state="all") == []


def test_sync_client_reports_an_unreachable_sidecar():
    with SyncMemoryClient(f"http://127.0.0.1:{free_port()}", "k", timeout_s=2) as client:
        with pytest.raises(MemoryClientError) as raised:
            client.job("j-1")

    assert (raised.value.status, raised.value.code) == (0, "unreachable")


async def test_edit_users_history_and_filtered_recall_through_the_client(settings, store, publisher, edge_vectors,
                                                                          minilm):
    from datetime import UTC, datetime

    from sidecar.app import create_app
    from sidecar.recall.service import RecallService
    from sinks.sql.admin import AdminStore

    recall = RecallService(store, edge_vectors, minilm)
    app = create_app(settings, store, publisher, edge_vectors, embedder=minilm, recall=recall,
                     admin=AdminStore.of(store), contested=store)
    async with MemoryClient("http://sidecar", "key-acme", transport=httpx.ASGITransport(app)) as client:
        stored = await client.store(editor("vim"))
        edited = await client.edit(stored["id"], value="helix", text="The user prefers helix as their editor.")
        assert [m["value"] for m in edited["history"]] == ["vim", "helix"]
        history = await client.attribute_history("u-1", "preferred_editor", entity="user")
        assert [v["memory_id"] for v in history["current"]] == [edited["id"]]
        assert [u["user_id"] for u in await client.users(page_size=1)] == ["u-1"]
        since = datetime(2000, 1, 1, tzinfo=UTC)  # a datetime goes out as ISO 8601
        found = await client.recall("u-1", "which editor?", since=since, types=["preference"])
        assert [m["id"] for m in found["memories"]] == [edited["id"]]
        assert (await client.recall("u-1", "which editor?", types=["fact"]))["memories"] == []
