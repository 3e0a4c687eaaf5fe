"""`GET /v1/jobs/{job_id}`: what became of one retained turn, within the caller's tenant only."""

from typing import Annotated

from fastapi import APIRouter, Depends

from sidecar.auth import ApiKeyAuthenticator, Principal
from sidecar.errors import NotFound
from sidecar.schemas import ERROR_RESPONSES, JobView
from sinks.base import MemoryStore


def job_routes(authenticate: ApiKeyAuthenticator, store: MemoryStore) -> APIRouter:
    router = APIRouter(tags=["jobs"], responses=ERROR_RESPONSES)

    @router.get("/v1/jobs/{job_id}", response_model=JobView)
    async def get_job(principal: Annotated[Principal, Depends(authenticate)], job_id: str) -> JobView:
        """Another tenant's job is a 404, exactly like a job that does not exist."""
        job = await store.get_job(principal.tenant_id, job_id)
        if job is None:
            raise NotFound(f"no job {job_id!r}")
        return JobView.model_validate(job.model_dump())

    return router
