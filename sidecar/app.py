"""The sidecar's FastAPI app, assembled from explicit dependencies.

`create_app` does not own the store, the publisher or the vector index: the entry point starts
them before serving and stops them after, so the app has no lifespan of its own and the same
objects can be shared with a worker in one process (`beliefstream dev`).
"""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI

from embedding.embedder import Embedder
from sidecar.access import AccessGuard, check_routes
from sidecar.auth import ApiKeyAuthenticator
from sidecar.consolidation import Consolidation
from sidecar.errors import UnexpectedErrorMiddleware, install_error_handlers
from sidecar.limits import BodySizeLimitMiddleware
from sidecar.mcp_server import MCP_PATH, McpEndpoint
from sidecar.mcp_tools import McpTools
from sidecar.metrics import MetricsMiddleware, RequestMetrics
from sidecar.publisher import TurnPublisher
from sidecar.ratelimit import RateLimiter
from sidecar.recall.service import RecallService
from sidecar.reflect import Answerer, ReflectService
from sidecar.routes.console import console_routes
from sidecar.routes.consolidate import consolidate_routes
from sidecar.routes.contested import contested_routes
from sidecar.routes.direct import direct_routes
from sidecar.routes.edit import edit_routes
from sidecar.routes.episodes import episode_revoke_routes, episode_routes
from sidecar.routes.erase import erasure_routes
from sidecar.routes.export import export_routes
from sidecar.routes.health import Check, health_routes
from sidecar.routes.jobs import job_routes
from sidecar.routes.memories import memory_routes
from sidecar.routes.metrics import metrics_routes
from sidecar.routes.reads import read_routes
from sidecar.routes.recall import recall_routes
from sidecar.routes.reflect import reflect_routes
from sidecar.routes.retain import retain_routes
from sidecar.routes.revoke import revoke_routes
from sidecar.routes.users import user_routes
from sinks.admin import Administration
from sinks.base import VectorIndex
from sinks.contracts import ContestedStore, ServingStore
from sinks.vector_outbox import Projection
from streams.settings import Settings

logger = logging.getLogger(__name__)

TITLE = "beliefstream sidecar"


def _version() -> str:
    try:
        return version("beliefstream")
    except PackageNotFoundError:
        return "0+unknown"


def create_app(
    settings: Settings,
    store: ServingStore,
    publisher: TurnPublisher,
    vectors: VectorIndex | None = None,
    embedder: Embedder | None = None,
    recall: RecallService | None = None,
    reflect_answerer: Answerer | None = None,
    mcp_tools: McpTools | None = None,
    consolidator: Consolidation | None = None,
    admin: Administration | None = None,
    contested: ContestedStore | None = None,
    projector: Projection | None = None,
) -> FastAPI:
    """The HTTP app over started dependencies; API keys are parsed here, so bad keys fail at start-up.

    Revocation and erasure are always mounted: they write SQL only (rows and their vector outbox
    entries, which the index's projector follows) and wait briefly for `projector`, the process's one
    writer of the index, when given. The direct insert needs the embedder as well. With `mcp_tools`, the MCP server answers at `/mcp` (same keys);
    its session manager is the one thing the app runs in its own lifespan. With `admin`, the user
    list and attribute history are served, and edits too when the vectors and embedder are given.
    With `contested` (the store's contradiction loops), with the vectors and the embedder, the
    contested slots are listed and resolved.
    """
    keys = settings.parsed_api_key_grants()
    if not keys:
        logger.warning("no API keys configured (BELIEFSTREAM_API_KEYS): every authenticated call is a 401")
    limiter = RateLimiter(settings.rate_limit_per_s, settings.rate_limit_burst)
    authenticate = ApiKeyAuthenticator(keys, limiter)
    guard = AccessGuard(authenticate)  # every route's capability and audience: sidecar.access.ROUTES
    metrics = RequestMetrics()
    mcp = McpEndpoint(mcp_tools, authenticate, settings.host) if mcp_tools is not None else None

    app = FastAPI(
        title=TITLE,
        lifespan=mcp.lifespan if mcp is not None else None,
        version=_version(),
        description="Retain conversation turns and read the governed belief state (contract §3).",
        docs_url="/docs" if settings.api_docs_ui else None,  # pages that load their scripts from a CDN
        redoc_url="/redoc" if settings.api_docs_ui else None,
    )
    install_error_handlers(app)
    app.add_middleware(BodySizeLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(UnexpectedErrorMiddleware)  # covers the limit too
    app.add_middleware(MetricsMiddleware, metrics=metrics)  # outermost: counts every answer, 500s included

    checks: list[Check] = [("broker", publisher.ping), ("sql", store.ping), ("sql_writes", store.writable)]
    if vectors is not None:
        checks.append(("vectors", vectors.ping))
    app.include_router(health_routes(checks, backlog=projector.backlog if projector is not None else None))
    app.include_router(retain_routes(guard, store, publisher, settings.max_turn_bytes))
    app.include_router(job_routes(guard, store))
    app.include_router(memory_routes(guard, store))
    app.include_router(episode_routes(guard, store))
    app.include_router(export_routes(guard, store))
    app.include_router(metrics_routes(metrics))
    app.include_router(console_routes())  # static files; every read and change goes through /v1 with the typed key
    if consolidator is not None:
        app.include_router(consolidate_routes(guard, consolidator))
    app.include_router(revoke_routes(guard, store, projector))
    app.include_router(episode_revoke_routes(guard, store, projector))
    app.include_router(erasure_routes(guard, store, projector, recall.flush if recall is not None else None))
    if vectors is not None:
        if embedder is not None:
            app.include_router(direct_routes(guard, store, projector, embedder))
            if contested is not None:
                app.include_router(contested_routes(guard, contested, projector, embedder))
    if admin is not None:
        app.include_router(user_routes(guard, admin))
        app.include_router(read_routes(guard, admin))
        if vectors is not None and embedder is not None:
            app.include_router(edit_routes(guard, store, admin, projector, embedder))
    if recall is not None:  # started and closed by the entry point, like the store
        app.include_router(recall_routes(guard, recall))
        # reflect reads through recall; without an answerer (the default) its answers are extractive
        app.include_router(reflect_routes(guard, ReflectService(recall, reflect_answerer)))
    if mcp is not None:
        app.add_route(MCP_PATH, mcp.asgi, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    check_routes(app)  # a route the access table does not name is a programming error
    return app
