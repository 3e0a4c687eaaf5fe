"""`beliefstream mcp`: the sidecar's MCP tools over stdio, each call forwarded to a running sidecar.

Desktop assistants launch MCP servers as subprocesses speaking stdio. The store and the embedded
vector shard belong to the running sidecar (`beliefstream dev` owns them), so this server holds no
state: it declares the same four tools as `/mcp` (`sidecar.mcp_schema.build_mcp_server`, one
schema) and carries each call out with `MemoryClient` against the sidecar's HTTP API, as one API
key. A refusal of the sidecar becomes a `ToolError("code: message")` with the sidecar's words.
It imports the MCP SDK and the HTTP client only, so an assistant that launches it waits for
the SDK, not for the server's stack.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

from sidecar.client import MemoryClient, MemoryClientError
from sidecar.mcp_schema import JsonObject, ToolCall, build_mcp_server

#: Seconds per sidecar call: consolidation of a large topic takes a while (as for the CLI's).
CALL_TIMEOUT_S = 300.0


def without_none(value: Any) -> Any:
    """The sidecar's JSON without its null fields, as the in-process tools answer (`exclude_none`)."""
    if isinstance(value, dict):
        return {key: without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_none(item) for item in value]
    return value


def forgotten_record(memory: JsonObject) -> JsonObject:
    """`forget`'s answer from the revoked memory's JSON (`sidecar.mcp_tools.forgotten`'s shape)."""
    revoked_at = memory.get("revoked_at")
    if revoked_at is not None:
        revoked_at = datetime.fromisoformat(revoked_at).isoformat()
    return {"id": memory["id"], "state": memory["state"], "revoked_at": revoked_at}


class SidecarTools:
    """The four tools (`sidecar.mcp_tools.McpTools`' answers) as HTTP calls to the sidecar."""

    def __init__(self, client: MemoryClient) -> None:
        self._client = client

    async def store_memory(
        self, user_id: str, text: str, role: str, agent_id: str | None, session_id: str | None
    ) -> JsonObject:
        [job_id] = await self._client.retain(user_id, text, role, agent_id=agent_id, session_id=session_id)
        return {"job_id": job_id}

    async def recall_memories(self, user_id: str, query: str, **options: Any) -> JsonObject:
        given = {name: value for name, value in options.items() if value is not None}
        return without_none(await self._client.recall(user_id, query, **given))

    async def consolidate_memories(
        self, topic: str, similarity_threshold: float, dry_run: bool, user_id: str | None
    ) -> JsonObject:
        scope = {"user_id": user_id} if user_id is not None else {}
        return await self._client.consolidate(
            topic, similarity_threshold=similarity_threshold, dry_run=dry_run, **scope
        )

    async def forget(self, memory_id: str) -> JsonObject:
        return forgotten_record(await self._client.forget(memory_id))


def forwarding_tool_call(tools: SidecarTools) -> ToolCall:
    """Tool calls forwarded to the sidecar; its error code and message become the `ToolError`."""

    async def call(name: str, _ctx: Context, arguments: JsonObject) -> JsonObject:
        try:
            return await getattr(tools, name)(**arguments)
        except MemoryClientError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from exc

    return call


async def serve_stdio(url: str, api_key: str) -> None:
    """Serve the tools on stdin/stdout until the client hangs up, every call as `api_key` at `url`."""
    async with MemoryClient(url, api_key, timeout_s=CALL_TIMEOUT_S) as client:
        await build_mcp_server(forwarding_tool_call(SidecarTools(client))).run_stdio_async()
