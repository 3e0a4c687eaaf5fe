"""`beliefstream mcp`'s tools against a mocked sidecar: the answers of `/mcp`'s tools, the sidecar's
refusals as tool errors."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from beliefs.records import MemoryState
from sidecar.client import MemoryClient
from sidecar.mcp_proxy import SidecarTools, forwarding_tool_call
from tests.sidecar.recall.seeding import NOW, mem


def proxy(handler):
    client = MemoryClient("http://sidecar", "k", transport=httpx.MockTransport(handler))
    return forwarding_tool_call(SidecarTools(client))


async def test_forget_answers_as_the_in_process_tool() -> None:
    revoked = mem("acme", "u1", "The user prefers green tea.").model_copy(
        update={"state": MemoryState.REVOKED, "revoked_at": NOW}
    )
    call = proxy(lambda request: httpx.Response(200, json=revoked.model_dump(mode="json")))
    answer = await call("forget", None, {"memory_id": revoked.id})
    assert answer == {"id": revoked.id, "state": "revoked", "revoked_at": NOW.isoformat()}


async def test_consolidate_sends_the_tool_arguments() -> None:
    bodies = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append((request.url.path, json.loads(request.content)))
        return httpx.Response(200, json={"groups": []})

    arguments = {"topic": "tech", "similarity_threshold": 0.85, "dry_run": False, "user_id": None}
    assert await proxy(handler)("consolidate_memories", None, arguments) == {"groups": []}
    assert bodies == [("/v1/consolidate", {"topic": "tech", "similarity_threshold": 0.85, "dry_run": False})]


async def test_a_refusal_is_a_tool_error_with_the_sidecars_message() -> None:
    error = {"error": {"code": "forbidden", "message": "consolidation needs a tenant key"}}
    call = proxy(lambda request: httpx.Response(403, json=error))
    with pytest.raises(ToolError, match="^forbidden: consolidation needs a tenant key$"):
        await call("consolidate_memories", None, {"topic": "t", "similarity_threshold": 0.85, "dry_run": True,
                                                  "user_id": None})


async def test_recall_answers_as_the_in_process_tool() -> None:
    from sidecar.mcp_tools import recalled
    from sidecar.recall.models import RecallResult

    memory = mem("acme", "u1", "The user prefers green tea.")
    item = {"id": memory.id, "text": memory.text, "type": "preference", "confidence": 0.9,
            "effective_confidence": 0.85, "score": 0.7, "recall_reason": "relevant", "citations": ["t-1"],
            "valid_from": NOW}
    result = RecallResult.model_validate({"memories": [item], "tokens_used": 9})
    sidecar_answer = result.model_dump(mode="json")  # as the HTTP route answers it, nulls included
    assert sidecar_answer["memories"][0]["sources"] is None and sidecar_answer["diagnostics"] is None
    call = proxy(lambda request: httpx.Response(200, json=sidecar_answer))
    answer = await call("recall_memories", None, {"user_id": "u1", "query": "tea?", "limit": None})
    assert answer == recalled(result)
    assert "diagnostics" not in answer and "sources" not in answer["memories"][0]


async def test_arguments_that_miss_the_schema_are_one_clean_message() -> None:
    """A missing `query` is worded like the HTTP sidecar's 422, with no pydantic URL in it."""
    from mcp.client import Client

    from sidecar.mcp_schema import build_mcp_server

    async def never(name, ctx, arguments):
        raise AssertionError("the call must not run with invalid arguments")

    async with Client(build_mcp_server(never)) as client:
        result = await client.call_tool("recall_memories", {"user_id": "u1"})
    [content] = result.content
    assert result.is_error
    assert content.text == "invalid_request: query: Field required"
