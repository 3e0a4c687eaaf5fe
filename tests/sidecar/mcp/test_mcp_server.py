"""The MCP server through the SDK's own client over streamable HTTP: the sidecar (with `/mcp`) served
by uvicorn on a free port inside the test's event loop, so the store stays on the loop that opened it."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import httpx2
import pytest
import uvicorn
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from projection import projector_of

from beliefs.records import JobState, MemoryState
from sidecar.app import create_app
from sidecar.mcp_server import bearer_key
from sidecar.mcp_tools import McpTools
from sidecar.recall.service import RecallService
from tests.sidecar.recall.seeding import NOW, mem, seed

ACME = "key-acme"
OTHER = "key-other"
BOT = "key-bot"
TOOLS = {"store_memory", "recall_memories", "consolidate_memories", "forget"}


class _InLoopServer(uvicorn.Server):
    """uvicorn in the test's loop: signals stay pytest's."""

    @contextlib.contextmanager
    def capture_signals(self):  # type: ignore[override]
        yield


@pytest.fixture
async def mcp_url(settings, store, publisher, edge_vectors, minilm) -> AsyncIterator[str]:
    recall = RecallService(store, edge_vectors, minilm, clock=lambda: NOW)
    await seed(
        store,
        edge_vectors,
        minilm,
        [mem("acme", "u1", "The user prefers green tea."), mem("other", "u1", "The user prefers black tea.")],
    )
    projector = projector_of(store, edge_vectors)
    tools = McpTools(
        store, publisher, settings.max_turn_bytes, recall=recall, projector=projector
    )
    app = create_app(
        settings,
        store,
        publisher,
        edge_vectors,
        embedder=minilm,
        recall=recall,
        mcp_tools=tools,
        contested=store,
        projector=projector,
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = _InLoopServer(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), "the sidecar did not start"
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    finally:
        server.should_exit = True
        await task
        sock.close()
        await recall.close()


@contextlib.asynccontextmanager
async def connect(url: str, key: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


async def test_tools_are_listed(mcp_url) -> None:
    async with connect(mcp_url, ACME) as client:
        listed = await client.list_tools()
    assert {tool.name for tool in listed.tools} == TOOLS


async def test_store_memory_queues_a_job_and_publishes_the_turn(mcp_url, store, publisher) -> None:
    async with connect(mcp_url, ACME) as client:
        result = await client.call_tool("store_memory", {"user_id": "u9", "text": "I always use dark mode."})
    assert not result.is_error
    job_id = result.structured_content["job_id"]
    job = await store.get_job("acme", job_id)
    assert job is not None and job.state is JobState.QUEUED and job.user_id == "u9"
    [turn] = publisher.turns
    assert (turn.tenant_id, turn.user_id, turn.text) == ("acme", "u9", "I always use dark mode.")


async def test_recall_memories_stays_in_the_keys_tenant(mcp_url) -> None:
    async with connect(mcp_url, ACME) as client:
        acme = await client.call_tool("recall_memories", {"user_id": "u1", "query": "tea"})
    async with connect(mcp_url, OTHER) as client:
        other = await client.call_tool("recall_memories", {"user_id": "u1", "query": "tea"})
    assert [m["text"] for m in acme.structured_content["memories"]] == ["The user prefers green tea."]
    assert [m["text"] for m in other.structured_content["memories"]] == ["The user prefers black tea."]


async def test_recall_memories_takes_the_recall_filters(mcp_url) -> None:
    query = {"user_id": "u1", "query": "tea"}
    async with connect(mcp_url, ACME) as client:
        preferences = await client.call_tool("recall_memories", {**query, "types": ["preference"]})
        facts = await client.call_tool("recall_memories", {**query, "types": ["fact"]})
        later = await client.call_tool("recall_memories", {**query, "since": "2100-01-01T00:00:00Z"})
        refused = await client.call_tool("recall_memories", {**query, "since": "last week"})
    assert [m["text"] for m in preferences.structured_content["memories"]] == ["The user prefers green tea."]
    assert facts.structured_content["memories"] == [] and later.structured_content["memories"] == []
    [error] = refused.content
    assert refused.is_error and "invalid_request: since: " in error.text and "pydantic" not in error.text


async def test_forget_revokes_and_only_in_scope(mcp_url, store) -> None:
    async with connect(mcp_url, ACME) as client:
        [memory] = (
            await client.call_tool("recall_memories", {"user_id": "u1", "query": "tea"})
        ).structured_content["memories"]
        async with connect(mcp_url, OTHER) as intruder:
            refused = await intruder.call_tool("forget", {"memory_id": memory["id"]})
        assert refused.is_error and "not_found" in refused.content[0].text
        forgotten = await client.call_tool("forget", {"memory_id": memory["id"]})
        assert forgotten.structured_content["state"] == "revoked"
        again = await client.call_tool("recall_memories", {"user_id": "u1", "query": "tea"})
    assert again.structured_content["memories"] == []
    assert (await store.get_memory("acme", memory["id"])).state is MemoryState.REVOKED


async def test_consolidation_needs_a_tenant_key_and_a_consolidator(mcp_url) -> None:
    async with connect(mcp_url, BOT) as client:
        bound = await client.call_tool("consolidate_memories", {"topic": "personal"})
    assert bound.is_error and "forbidden" in bound.content[0].text
    async with connect(mcp_url, ACME) as client:
        missing = await client.call_tool("consolidate_memories", {"topic": "personal"})
    assert missing.is_error and "unavailable" in missing.content[0].text


@pytest.mark.parametrize("key", [None, "not-a-key"])
async def test_mcp_requires_a_valid_key(mcp_url, key) -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers) as http:
        response = await http.post(
            mcp_url,
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream"},
        )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_bearer_key_parsing() -> None:
    assert bearer_key({"authorization": "Bearer k1"}) == "k1"
    assert bearer_key({"authorization": "Basic k1"}) is None
    assert bearer_key({"authorization": "Bearer "}) is None
    assert bearer_key({}) is None


async def test_recall_memories_takes_the_recall_options(mcp_url) -> None:
    query = {"user_id": "u1", "query": "tea"}
    async with connect(mcp_url, ACME) as client:
        plain = await client.call_tool("recall_memories", query)
        prompt = await client.call_tool("recall_memories", {**query, "format": "prompt", "include_sensitive": ["all"]})
        refused = await client.call_tool("recall_memories", {**query, "format": "yaml"})
    assert "prompt" not in plain.structured_content
    block = prompt.structured_content["prompt"]
    assert block.startswith("<beliefstream-memories") and "The user prefers green tea." in block
    [error] = refused.content
    assert refused.is_error and "invalid_request: format: " in error.text
