"""`GET /metrics`: Prometheus text, without authentication.

Like the probes it carries no user data (only counts and latencies by route template), so scrapers
need no API key; in production expose the sidecar's port to the scraper on an internal network only.
"""

from fastapi import APIRouter, Response
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from sidecar.metrics import RequestMetrics


def metrics_routes(metrics: RequestMetrics) -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get("/metrics", response_class=Response, responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}})
    async def scrape() -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    return router
