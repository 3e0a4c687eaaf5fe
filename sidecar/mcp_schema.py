"""The MCP tools' schema: names, parameters and descriptions of contract §3's four tools, declared once.

`build_mcp_server` leaves each call to a `ToolCall`: `sidecar.mcp_server.local_tool_call` in the
sidecar's `/mcp`, `sidecar.mcp_proxy` in the stdio server of `beliefstream mcp`. This module
imports the MCP SDK and nothing of the server (no web framework, no store), so the stdio server
starts fast. Arguments that do not match the schema (a missing `query`) are answered as
`invalid_request: query: Field required`, as the HTTP sidecar words a bad body, never as a raw
validation dump.
"""

# No `from __future__ import annotations`: the SDK reads the tool functions' annotations at runtime.
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import ValidationError

from sidecar.validation import describe_validation_errors

SERVER_NAME = "beliefstream"

JsonObject = dict[str, Any]

#: One tool call: the tool's name, its context and its arguments by parameter name -> its JSON result.
#: Failures are raised as `ToolError("code: message")`.
ToolCall = Callable[[str, Context, JsonObject], Awaitable[JsonObject]]


class BeliefstreamMcpServer(MCPServer):
    """The SDK's server, with argument errors worded as `invalid_request: <field>: <reason>`."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"invalid_request: {describe_validation_errors(cause.errors())}") from cause


def build_mcp_server(call: ToolCall) -> MCPServer:
    """The MCP server with the four tools of contract §3; `call` carries each call out."""
    server = BeliefstreamMcpServer(SERVER_NAME, instructions="Long-term memory of the user: retain, recall, forget.")

    @server.tool()
    async def store_memory(
        user_id: str,
        text: str,
        ctx: Context,
        role: str = "user",
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> JsonObject:
        """Retain one conversation turn; extraction runs in the background. Returns {"job_id"} at once."""
        arguments = {"user_id": user_id, "text": text, "role": role, "agent_id": agent_id, "session_id": session_id}
        return await call("store_memory", ctx, arguments)

    @server.tool()
    async def recall_memories(
        user_id: str,
        query: str,
        ctx: Context,
        budget_tokens: int = 800,
        limit: int = 20,
        action: dict[str, str] | None = None,
        live_intent: dict[str, str] | None = None,
        topic: str | None = None,
        since: str | None = None,
        until: str | None = None,
        types: list[str] | None = None,
        topics: list[str] | None = None,
        format: str | None = None,
        include_sensitive: list[str] | None = None,
        episodes: bool | None = None,
        include_untrusted_evidence: bool | None = None,
        preset: str | None = None,
    ) -> JsonObject:
        """The user's current memories relevant to `query`, ranked and within `budget_tokens`.

        Optional filters: `since`/`until` (ISO 8601, on when a memory became true), `types`
        (preference, fact, decision, procedure), `topics`. As in `/v1/recall`: `format` "prompt" also
        returns a ready-to-insert block; `include_sensitive` (health, religion, ..., or all) recalls
        those categories outside their domain; `episodes` false leaves out quotes of what was said;
        `include_untrusted_evidence` also quotes assistant, pasted and tool turns; `preset`
        (balanced, precise, recent)."""
        arguments = {"user_id": user_id, "query": query, "budget_tokens": budget_tokens, "limit": limit,
                     "action": action, "live_intent": live_intent, "topic": topic}
        options = {"since": since, "until": until, "types": types, "topics": topics, "format": format,
                   "include_sensitive": include_sensitive, "episodes": episodes,
                   "include_untrusted_evidence": include_untrusted_evidence, "preset": preset}
        arguments.update({name: value for name, value in options.items() if value is not None})
        return await call("recall_memories", ctx, arguments)

    @server.tool()
    async def consolidate_memories(
        topic: str,
        ctx: Context,
        similarity_threshold: float = 0.85,
        dry_run: bool = False,
        user_id: str | None = None,
    ) -> JsonObject:
        """Merge near-duplicate memories of `topic` (tenant keys only); `dry_run` only answers the diff."""
        arguments = {"topic": topic, "similarity_threshold": similarity_threshold, "dry_run": dry_run,
                     "user_id": user_id}
        return await call("consolidate_memories", ctx, arguments)

    @server.tool()
    async def forget(memory_id: str, ctx: Context) -> JsonObject:
        """Revoke one memory: it is never recalled again."""
        return await call("forget", ctx, {"memory_id": memory_id})

    return server
