"""The sidecar's FastAPI app, assembled from explicit dependencies.

`create_app` does not own the store, the publisher or the vector index: the entry point starts
them before serving and stops them after, so the app has no lifespan of its own and the same
objects can be shared with a worker in one process (`beliefstream dev`).
"""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI

from sidecar.auth import ApiKeyAuthenticator
from sidecar.errors import UnexpectedErrorMiddleware, install_error_handlers
from sidecar.limits import BodySizeLimitMiddleware
from sidecar.publisher import TurnPublisher
from sidecar.routes.health import Check, health_routes
from sidecar.routes.jobs import job_routes
from sidecar.routes.memories import memory_routes
from sidecar.routes.retain import retain_routes
from sinks.base import MemoryStore, VectorIndex
from streams.settings import Settings

logger = logging.getLogger(__name__)

TITLE = "beliefstream sidecar"


def _version() -> str:
    try:
        return version("beliefstream")
    except PackageNotFoundError:
        return "0+unknown"


def create_app(
    settings: Settings, store: MemoryStore, publisher: TurnPublisher, vectors: VectorIndex | None = None
) -> FastAPI:
    """The HTTP app over started dependencies; API keys are parsed here, so bad keys fail at start-up."""
    keys = settings.parsed_api_keys()
    if not keys:
        logger.warning("no API keys configured (BELIEFSTREAM_API_KEYS): every authenticated call is a 401")
    authenticate = ApiKeyAuthenticator(keys)

    app = FastAPI(
        title=TITLE,
        version=_version(),
        description="Retain conversation turns and read the governed belief state (contract §3).",
    )
    install_error_handlers(app)
    app.add_middleware(BodySizeLimitMiddleware, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(UnexpectedErrorMiddleware)  # outermost of ours: also covers the limit

    checks: list[Check] = [("broker", publisher.ping), ("sql", store.ping)]
    if vectors is not None:
        checks.append(("vectors", vectors.ping))
    app.include_router(health_routes(checks))
    app.include_router(retain_routes(authenticate, store, publisher, settings.max_turn_bytes))
    app.include_router(job_routes(authenticate, store))
    app.include_router(memory_routes(authenticate, store))
    return app
