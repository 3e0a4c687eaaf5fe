"""Who may call what: one table of every route and MCP tool, and the one guard that enforces it.

Each entry names the capability a call needs (`sidecar.auth.Capability`) and its audience:

    anyone        no key: the probes, the metrics, the OpenAPI document, the console's static files (no tenant data)
    reach         any key of the tenant; another agent's private state only within the key's reach
                  (`Principal.reach`, applied by the store in the query: out of reach reads as not found)
    tenant keys   keys not bound to an agent (the tenant's user list, erasure)
    per tool      `/mcp`: a valid key, then each tool's own entry in `TOOLS`

A change of one row (revoke, edit, forget) needs `manage`, except that an agent changes its own
private rows with `retain` (`own_private`): the guard admits a key holding either, and the route,
once it has read the row, applies `Principal.require_to_change`. Routes take the caller from
`AccessGuard` (HTTP) and tools from `admit_tool` (MCP), so no handler checks a capability itself;
`check_routes` refuses, at start-up, an app with a route the table does not name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from fastapi import Depends, FastAPI, Request
from fastapi.routing import iter_route_contexts
from fastapi.security import HTTPAuthorizationCredentials
from starlette.routing import BaseRoute

from sidecar.auth import BEARER, ApiKeyAuthenticator, Capability, Principal
from sidecar.errors import Forbidden, UndeclaredRouteError

RETAIN, RECALL, MANAGE, ERASE = Capability.RETAIN, Capability.RECALL, Capability.MANAGE, Capability.ERASE


class Audience(StrEnum):
    ANYONE = "anyone"
    REACH = "reach"
    TENANT_KEYS = "tenant keys"
    PER_TOOL = "per tool"


@dataclass(frozen=True)
class Rule:
    """What one route or tool needs; `action` words a refusal ("reading episodes needs ...")."""

    capability: Capability | None
    action: str
    audience: Audience = Audience.REACH
    own_private: Capability | None = None  # an agent-bound key changing its own private row needs only this

    @property
    def needs_key(self) -> bool:
        return self.audience is not Audience.ANYONE

    def admit(self, principal: Principal) -> None:
        """`Forbidden` unless the key may make this call (before any row is read)."""
        if self.capability is not None and not (principal.can(self.capability) or self._owner_may(principal)):
            principal.require(self.capability, self.action)
        if self.audience is Audience.TENANT_KEYS and principal.agent_id is not None:
            raise Forbidden(f"{self.action} needs a tenant key; this API key is bound to agent {principal.agent_id!r}")

    def _owner_may(self, principal: Principal) -> bool:
        """An agent-bound key may change its own private rows with `own_private` (the route checks the row)."""
        return self.own_private is not None and principal.agent_id is not None and principal.can(self.own_private)

    def describe(self) -> str:
        """One line for the API reference: the capability, the audience."""
        if not self.needs_key:
            return "no API key"
        if self.capability is None:
            return "any API key; each MCP tool as its entry says"
        need = f"`{self.capability.value}`"
        if self.own_private is not None:
            need += f" (an agent's own private rows: `{self.own_private.value}`)"
        if self.audience is Audience.TENANT_KEYS:
            return f"{need}, tenant keys only (not bound to an agent)"
        return need


_PUBLIC = Rule(None, "", Audience.ANYONE)
_MCP = Rule(None, "the MCP server", Audience.PER_TOOL)

#: Every HTTP route of the sidecar, by (method, path template). A route not here is refused at start-up.
ROUTES: Mapping[tuple[str, str], Rule] = {
    ("GET", "/healthz"): _PUBLIC,
    ("GET", "/readyz"): _PUBLIC,
    ("GET", "/metrics"): _PUBLIC,
    ("GET", "/openapi.json"): _PUBLIC,
    # the interactive pages, served only with BELIEFSTREAM_API_DOCS_UI=true
    ("GET", "/docs"): _PUBLIC,
    ("GET", "/docs/oauth2-redirect"): _PUBLIC,
    ("GET", "/redoc"): _PUBLIC,
    # the console's static files: no data, every read goes through /v1 with the key a person types
    ("GET", "/console"): _PUBLIC,
    ("GET", "/console/"): _PUBLIC,
    ("GET", "/console/{name}"): _PUBLIC,
    ("POST", "/v1/retain"): Rule(RETAIN, "retaining turns"),
    ("GET", "/v1/jobs/{job_id}"): Rule(RECALL, "reading jobs"),
    ("POST", "/v1/recall"): Rule(RECALL, "recall"),
    ("POST", "/v1/reflect"): Rule(RECALL, "reflect"),
    ("GET", "/v1/users/{user_id}/memories"): Rule(RECALL, "reading memories"),
    ("GET", "/v1/memories/{memory_id}"): Rule(RECALL, "reading memories"),
    ("GET", "/v1/memories/{memory_id}/sources"): Rule(RECALL, "reading memories"),
    ("POST", "/v1/memories"): Rule(MANAGE, "a direct insert"),
    ("PATCH", "/v1/memories/{memory_id}"): Rule(MANAGE, "editing a memory", own_private=RETAIN),
    ("POST", "/v1/memories/{memory_id}/revoke"): Rule(MANAGE, "revoking a memory", own_private=RETAIN),
    ("GET", "/v1/users/{user_id}/episodes"): Rule(RECALL, "reading episodes"),
    ("GET", "/v1/episodes/{episode_id}"): Rule(RECALL, "reading episodes"),
    ("POST", "/v1/episodes/{episode_id}/revoke"): Rule(MANAGE, "revoking an episode", own_private=RETAIN),
    ("GET", "/v1/users/{user_id}/attributes/{attribute}/history"): Rule(RECALL, "reading an attribute's history"),
    ("GET", "/v1/users/{user_id}/export"): Rule(RECALL, "exporting a user"),
    ("GET", "/v1/users/{user_id}"): Rule(RECALL, "reading a user's belief state"),
    ("GET", "/v1/users/{user_id}/reads"): Rule(RECALL, "reading the audit of reads"),
    ("GET", "/v1/users"): Rule(RECALL, "listing the tenant's users", Audience.TENANT_KEYS),
    ("DELETE", "/v1/users/{user_id}"): Rule(ERASE, "erasing a user", Audience.TENANT_KEYS),
    ("POST", "/v1/consolidate"): Rule(MANAGE, "consolidation"),
    ("GET", "/v1/contested"): Rule(RECALL, "listing contested pairs"),
    ("POST", "/v1/contested/{contested_id}/resolve"): Rule(MANAGE, "resolving a contested pair"),
    ("GET", "/mcp"): _MCP,
    ("POST", "/mcp"): _MCP,
    ("DELETE", "/mcp"): _MCP,
}

#: Every MCP tool (`sidecar.mcp_schema`), by name: the same rules as the routes they stand for.
TOOLS: Mapping[str, Rule] = {
    "store_memory": ROUTES[("POST", "/v1/retain")],
    "recall_memories": ROUTES[("POST", "/v1/recall")],
    "consolidate_memories": ROUTES[("POST", "/v1/consolidate")],
    "forget": ROUTES[("POST", "/v1/memories/{memory_id}/revoke")],
}


def declared_routes(app: FastAPI) -> list[tuple[str, str, BaseRoute]]:
    """(method, path template, route) of each method every route of `app` answers (HEAD goes with
    GET), included routers' routes with the path they are served under."""
    found = []
    for context in iter_route_contexts(app.routes):
        path = context.path
        for method in sorted(context.methods or ()):
            if method != "HEAD" and path is not None:
                found.append((method, path, context.original_route))
    return found


def check_routes(app: FastAPI, table: Mapping[tuple[str, str], Rule] = ROUTES) -> None:
    """`UndeclaredRouteError` for a route of `app` the table does not name."""
    missing = [f"{method} {path}" for method, path, _ in declared_routes(app) if (method, path) not in table]
    if missing:
        raise UndeclaredRouteError(f"routes with no entry in sidecar.access.ROUTES: {', '.join(missing)}")


def admit_tool(name: str, principal: Principal) -> None:
    """An MCP tool call by `principal`: `Forbidden` when its entry refuses it (or it has none)."""
    rule = TOOLS.get(name)
    if rule is None:
        raise Forbidden(f"the tool {name!r} declares no capability")
    rule.admit(principal)


class AccessGuard:
    """A FastAPI dependency: the caller's `Principal`, admitted by the entry of the route it called.

    401 without a valid key, 429 past its rate, 403 when the entry refuses it; a route with no
    entry is refused too (fail closed), though `check_routes` keeps any from being mounted.
    """

    def __init__(self, authenticator: ApiKeyAuthenticator, table: Mapping[tuple[str, str], Rule] = ROUTES) -> None:
        self.authenticator = authenticator
        self._table = table

    async def __call__(
        self, request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
    ) -> Principal:
        principal = await self.authenticator(credentials)
        route = request.scope.get("route")
        rule = self._table.get((request.method, getattr(route, "path", "")))
        if rule is None:
            raise Forbidden("this route declares no capability")
        rule.admit(principal)
        return principal
