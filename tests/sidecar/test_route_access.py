"""Issue 25, item 1: one access table for every route and MCP tool, enforced by one guard.

The walk: every route the sidecar can mount (all optional routes, `/mcp` and the docs pages) has an
entry in `sidecar.access.ROUTES`, every entry names a route, and every route that needs a key takes
its caller from the `AccessGuard`. The matrix: over the real app and store, each route and each
MCP tool is called by keys holding one capability each (tenant-wide and agent-bound); exactly the
keys the entry admits get past the guard, the others get a 403 before anything is read.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

import httpx
import pytest
from fastapi import Depends, FastAPI
from fastapi.routing import iter_route_contexts
from mcp.server.mcpserver.exceptions import ToolError
from projection import projector_of

from agents.consolidate import Consolidator
from sidecar.access import ROUTES, TOOLS, AccessGuard, Audience, Rule, check_routes, declared_routes
from sidecar.api_reference import full_app
from sidecar.app import create_app
from sidecar.auth import ApiKeyAuthenticator, Capability, Principal, capabilities_of
from sidecar.errors import UndeclaredRouteError, install_error_handlers
from sidecar.mcp_schema import build_mcp_server
from sidecar.mcp_server import PrincipalResolver, local_tool_call
from sidecar.mcp_tools import McpTools
from sidecar.recall.service import RecallService
from sinks.sql.admin import AdminStore
from sinks.sql.manage_store import MaintenanceStore
from streams.settings import Settings

#: key -> (agent it is bound to, capability names); all of tenant acme.
KEYS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    **{f"only-{c.value}": (None, (c.value,)) for c in Capability if c is not Capability.ADMIN},
    "tenant-admin": (None, ("admin",)),
    "bot-retain": ("bot", ("retain",)),
    "bot-recall": ("bot", ("recall",)),
    "bot-manage": ("bot", ("manage",)),
    "bot-admin": ("bot", ("admin",)),
}


def admitted(rule: Rule, key: str) -> bool:
    """Whether `rule` lets `key` past the guard, read off the table's own words."""
    agent, names = KEYS[key]
    held = capabilities_of(names, agent)
    if rule.audience is Audience.TENANT_KEYS and agent is not None:
        return False
    if rule.capability is None or rule.capability in held:
        return True
    return rule.own_private is not None and agent is not None and rule.own_private in held


def _filled(path: str) -> str:
    """A path template with every parameter filled (ids that name nothing)."""
    return path.replace("{", "no-such-").replace("}", "")


# -- the walk ------------------------------------------------------------------------------------------


def test_every_route_of_the_sidecar_is_in_the_access_table_and_every_entry_is_a_route() -> None:
    served = {(method, path) for method, path, _ in declared_routes(full_app())}

    assert served - set(ROUTES) == set(), "routes with no access entry"
    assert set(ROUTES) - served == set(), "access entries that name no route"


def _guards(dependant) -> list[object]:
    found = [dependant.call] if isinstance(dependant.call, AccessGuard) else []
    return found + [guard for sub in dependant.dependencies for guard in _guards(sub)]


def test_every_route_that_needs_a_key_takes_its_caller_from_the_guard() -> None:
    unguarded, guarded_public = [], []
    for context in iter_route_contexts(full_app().routes):
        dependant = getattr(context, "dependant", None)
        if dependant is None:  # a plain Starlette route: the docs pages, or /mcp (its own key check)
            continue
        for method in context.methods or ():
            rule = ROUTES[(method, context.path)]
            guards = _guards(dependant)
            if rule.needs_key and len(guards) != 1:
                unguarded.append(f"{method} {context.path}")
            if not rule.needs_key and guards:
                guarded_public.append(f"{method} {context.path}")

    assert (unguarded, guarded_public) == ([], [])


def test_an_app_with_a_route_the_table_does_not_name_is_refused() -> None:
    app = FastAPI()

    @app.get("/v1/secret")
    async def secret() -> dict:
        return {}

    with pytest.raises(UndeclaredRouteError, match="GET /v1/secret"):
        check_routes(app)


#: The guard of a route the table does not name (module level: the route's annotations are read here).
ADMIN_GUARD = AccessGuard(ApiKeyAuthenticator({"k": ("acme", None, ["admin"])}))


async def test_a_guarded_route_missing_from_the_table_is_refused_even_with_a_key() -> None:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/v1/secret")
    async def secret(principal: Annotated[Principal, Depends(ADMIN_GUARD)]) -> dict:
        return {"tenant": principal.tenant_id}

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t") as http:
        response = await http.get("/v1/secret", headers={"Authorization": "Bearer k"})

    assert response.status_code == 403


async def test_every_mcp_tool_is_in_the_tool_table() -> None:
    async def unused(*_args):
        raise AssertionError("not called")

    listed = {tool.name for tool in await build_mcp_server(unused).list_tools()}
    methods = {name for name in vars(McpTools) if not name.startswith("_")}

    assert listed == set(TOOLS) == methods


# -- the matrix over the real app ----------------------------------------------------------------------


@dataclass
class Served:
    http: httpx.AsyncClient
    tools: McpTools


@pytest.fixture
async def served(store, publisher, edge_vectors, minilm, tmp_path) -> AsyncIterator[Served]:
    keys = ",".join(
        f"{key}=acme{':' + agent if agent else ''}/{'+'.join(names)}" for key, (agent, names) in KEYS.items()
    )
    settings = Settings(api_keys=keys, data_dir=tmp_path, api_docs_ui=True, rate_limit_burst=10_000)
    projector = projector_of(store, edge_vectors)
    recall = RecallService(store, edge_vectors, minilm)
    consolidator = Consolidator(MaintenanceStore.of(store), projector, minilm)
    tools = McpTools(store, publisher, settings.max_turn_bytes, recall, consolidator, projector)
    app = create_app(
        settings,
        store,
        publisher,
        edge_vectors,
        embedder=minilm,
        recall=recall,
        mcp_tools=tools,
        consolidator=consolidator,
        admin=AdminStore.of(store),
        contested=store,
        projector=projector,
    )
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
            yield Served(http, tools)
    finally:
        await recall.close()


HTTP_ROUTES = [key for key, rule in ROUTES.items() if rule.audience is not Audience.PER_TOOL]


async def test_each_route_admits_exactly_the_keys_its_entry_names(served: Served) -> None:
    wrong: list[str] = []
    for method, path in HTTP_ROUTES:
        rule = ROUTES[(method, path)]
        anonymous = await served.http.request(method, _filled(path))
        if rule.needs_key != (anonymous.status_code == 401):
            wrong.append(f"{method} {path} without a key: {anonymous.status_code}")
        if not rule.needs_key:
            continue
        for key in KEYS:
            response = await served.http.request(method, _filled(path), headers={"Authorization": f"Bearer {key}"})
            refused = response.status_code == 403
            if refused == admitted(rule, key) or response.status_code in (401, 500):
                wrong.append(f"{method} {path} by {key}: {response.status_code} {response.text[:120]}")

    assert wrong == []


class _Context:
    """What a tool call reads of the MCP request: its headers."""

    def __init__(self, key: str) -> None:
        self.headers = {"authorization": f"Bearer {key}"}


TOOL_ARGUMENTS = {
    "store_memory": {"user_id": "u1", "text": "I always use dark mode."},
    "recall_memories": {"user_id": "u1", "query": "theme"},
    "consolidate_memories": {"topic": "tech", "dry_run": True},
    "forget": {"memory_id": "no-such-memory"},
}


async def test_each_mcp_tool_admits_exactly_the_keys_its_entry_names(served: Served, tmp_path) -> None:
    keys = {key: ("acme", agent, list(names)) for key, (agent, names) in KEYS.items()}
    call = local_tool_call(served.tools, PrincipalResolver(ApiKeyAuthenticator(keys)))
    wrong: list[str] = []
    for name, rule in TOOLS.items():
        for key in KEYS:
            try:
                await call(name, _Context(key), TOOL_ARGUMENTS[name])
                outcome = "ok"
            except ToolError as exc:
                outcome = str(exc).split(":", 1)[0]
            if (outcome == "forbidden") == admitted(rule, key):
                wrong.append(f"{name} by {key}: {outcome}")

    assert wrong == []


async def test_the_openapi_document_is_public_and_the_docs_pages_are_off_by_default(client) -> None:
    document = await client.get("/openapi.json")
    pages = [await client.get(path) for path in ("/docs", "/redoc", "/docs/oauth2-redirect")]

    assert document.status_code == 200 and "/v1/retain" in document.json()["paths"]
    assert [page.status_code for page in pages] == [404, 404, 404]


async def test_the_docs_pages_are_served_when_turned_on(store, publisher, tmp_path) -> None:
    app = create_app(Settings(api_keys="k=acme", data_dir=tmp_path, api_docs_ui=True), store, publisher)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
        pages = [await http.get(path) for path in ("/docs", "/redoc")]

    assert [page.status_code for page in pages] == [200, 200]
