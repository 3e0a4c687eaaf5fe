"""The MCP server (official SDK 2.x, `MCPServer`): contract §3's operations as tools, same keys, same scope.

    POST /mcp  (streamable HTTP, stateless, JSON answers; mounted into the sidecar by `create_app`)
    ├── McpAuthGuard: no or unknown `Authorization: Bearer <key>` → 401, an exhausted key → 429
    └── each tool resolves its `Principal` from the request's own header (`PrincipalResolver`), so
        the tenant comes from the key exactly as over HTTP; an agent-bound key stays bound; the
        tool's entry in `sidecar.access.TOOLS` admits the call (403 `forbidden` otherwise)

`sidecar.mcp_schema.build_mcp_server` declares the four tools once (the schema) and leaves the
call itself to a `ToolCall`: `local_tool_call` here, `sidecar.mcp_proxy` for the stdio server of
`beliefstream mcp`, which forwards to a running sidecar over HTTP. Tool failures are
`ToolError`s carrying the sidecar's error code (`forbidden: ...`), never a traceback.
"""

# No `from __future__ import annotations`: the SDK reads the tool functions' annotations at runtime.
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi.security import HTTPAuthorizationCredentials
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import ValidationError
from starlette.types import Receive, Scope, Send

from beliefs.errors import BeliefstreamError
from sidecar.access import admit_tool
from sidecar.auth import ApiKeyAuthenticator, Principal
from sidecar.errors import SidecarError, Unauthorized, describe_validation_errors, error_response
from sidecar.mcp_schema import JsonObject, ToolCall, build_mcp_server
from sidecar.mcp_tools import McpTools

MCP_PATH = "/mcp"
_LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def bearer_key(headers: Any) -> str | None:
    """The key of an `Authorization: Bearer <key>` header, else None."""
    value = headers.get("authorization") if headers is not None else None
    if not value:
        return None
    scheme, _, key = value.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return key.strip() or None


class PrincipalResolver:
    """The caller of one tool call, from the request's bearer key."""

    def __init__(self, authenticator: ApiKeyAuthenticator) -> None:
        self._authenticator = authenticator

    def __call__(self, ctx: Context) -> Principal:
        key = bearer_key(ctx.headers)
        if key is None:
            raise Unauthorized()
        return self._authenticator.authenticate(key)


def local_tool_call(tools: McpTools, principal_of: PrincipalResolver) -> ToolCall:
    """Tool calls on `tools` in this process, as the request's caller."""

    async def call(name: str, ctx: Context, arguments: JsonObject) -> JsonObject:
        try:
            principal = principal_of(ctx)
            admit_tool(name, principal)  # the tool's entry in sidecar.access.TOOLS
            return await getattr(tools, name)(principal, **arguments)
        except SidecarError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from exc
        except ValidationError as exc:
            raise ToolError(f"invalid_request: {describe_validation_errors(exc.errors())}") from exc
        except (BeliefstreamError, ValueError) as exc:  # e.g. the store's NotFoundError, a bad threshold
            raise ToolError(f"bad_request: {exc}") from exc

    return call


class McpAuthGuard:
    """ASGI: refuse unauthenticated or rate-limited MCP requests with the sidecar's JSON errors."""

    def __init__(self, app: StreamableHTTPASGIApp, authenticator: ApiKeyAuthenticator) -> None:
        self._app = app
        self._authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope.get("headers", [])
        }
        key = bearer_key(headers)
        try:
            if key is None:
                raise Unauthorized()
            await self._authenticator(HTTPAuthorizationCredentials(scheme="Bearer", credentials=key))
        except SidecarError as exc:
            await error_response(exc.status, exc.code, exc.message, exc.headers)(scope, receive, send)
            return
        await self._app(scope, receive, send)


class McpEndpoint:
    """The MCP server as an ASGI endpoint plus the session manager's lifespan, for `create_app`."""

    def __init__(self, tools: McpTools, authenticator: ApiKeyAuthenticator, host: str = "127.0.0.1") -> None:
        self.server = build_mcp_server(local_tool_call(tools, PrincipalResolver(authenticator)))
        security = None
        if host in _LOCAL_HOSTS:  # the SDK's DNS-rebinding protection for a local server
            security = TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
            )
        self.manager = StreamableHTTPSessionManager(
            app=self.server._lowlevel_server,  # the SDK's own InMemoryTransport reaches it the same way
            json_response=True,
            stateless=True,
            security_settings=security,
        )
        self.asgi = McpAuthGuard(StreamableHTTPASGIApp(self.manager), authenticator)

    @asynccontextmanager
    async def lifespan(self, _app: Any = None) -> AsyncIterator[None]:
        """Runs the session manager (its task group) while the app serves; usable once per endpoint."""
        async with self.manager.run():
            yield

