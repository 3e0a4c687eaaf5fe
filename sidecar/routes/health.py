"""`GET /healthz` (the process answers) and `GET /readyz` (its dependencies answer); no auth.

Readiness pings every dependency concurrently, each under a timeout, so one hung dependency makes
the sidecar not-ready instead of making the probe itself hang. Where the process projects the
vector outbox, it also reports the projection's lag: a backlog is normal under load and recall
stays correct (it hydrates from SQL), so it is reported, not a reason to be unready.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from beliefs.records import utcnow
from sidecar.errors import error_response
from sidecar.schemas import ErrorBody, Liveness, ProjectionLag, Readiness
from sinks.vector_outbox import Backlog

logger = logging.getLogger(__name__)

#: A dependency's name and its ping.
Check = tuple[str, Callable[[], Awaitable[bool]]]


async def passes(name: str, ping: Callable[[], Awaitable[bool]], timeout_s: float) -> bool:
    """A ping that raises or times out is a failed check, logged, never an error of the probe."""
    try:
        return bool(await asyncio.wait_for(ping(), timeout_s))
    except Exception as exc:
        logger.warning("readiness check %s failed: %r", name, exc)
        return False


async def lag(backlog: Callable[[], Awaitable[Backlog]] | None, timeout_s: float) -> ProjectionLag | None:
    """The projection's lag, or None (no projector here, or SQL did not answer: its check says so)."""
    if backlog is None:
        return None
    try:
        found = await asyncio.wait_for(backlog(), timeout_s)
    except Exception as exc:
        logger.warning("reading the vector projection backlog failed: %r", exc)
        return None
    return ProjectionLag(backlog=found.points, oldest_age_seconds=round(found.oldest_age_s(utcnow()), 3))


def health_routes(
    checks: list[Check], timeout_s: float = 2.0, backlog: Callable[[], Awaitable[Backlog]] | None = None
) -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=Liveness)
    async def healthz() -> Liveness:
        return Liveness(status="ok")

    @router.get(
        "/readyz",
        response_model=Readiness,
        responses={503: {"model": ErrorBody, "description": "A dependency failed its check"}},
    )
    async def readyz() -> JSONResponse:
        results, projection = await asyncio.gather(
            asyncio.gather(*(passes(name, ping, timeout_s) for name, ping in checks)), lag(backlog, timeout_s)
        )
        report = {name: "ok" if ok else "failed" for (name, _), ok in zip(checks, results, strict=True)}
        extra = {} if projection is None else {"vector_projection": projection.model_dump()}
        failed = [name for name, state in report.items() if state != "ok"]
        if failed:
            message = f"not ready: {', '.join(failed)} failed"
            return error_response(503, "not_ready", message, extra={"status": "not_ready", "checks": report, **extra})
        return JSONResponse({"status": "ready", "checks": report, **extra})

    return router
