"""`GET /v1/jobs/{job_id}`: what became of one retained turn, within the caller's tenant only.

Jobs are scoped like memories: the job of an agent's private turn (`metadata.visibility: "agent"`)
is that agent's (and a tenant key's with the `agents` capability); to any other key it is a 404.
"""

from typing import Annotated

from fastapi import APIRouter, Depends

from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import NotFound
from sidecar.schemas import ERROR_RESPONSES, JobView
from sinks.contracts import JobIntake


def job_routes(guard: AccessGuard, store: JobIntake) -> APIRouter:
    router = APIRouter(tags=["jobs"], responses=ERROR_RESPONSES)

    @router.get("/v1/jobs/{job_id}", response_model=JobView)
    async def get_job(principal: Annotated[Principal, Depends(guard)], job_id: str) -> JobView:
        """Another tenant's job, or another agent's private one, is a 404, like a job that does not exist."""
        job = await store.get_job(principal.tenant_id, job_id)
        if job is None or not principal.reach.sees(job.private_to):
            raise NotFound(f"no job {job_id!r}")
        return JobView.model_validate(job.model_dump())

    return router
