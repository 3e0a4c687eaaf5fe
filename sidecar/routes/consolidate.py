"""`POST /v1/consolidate`: merge near-duplicate memories of a topic; a dry run (the default)
answers the diff and writes nothing.

The tenant comes from the key; consolidating needs the `manage` capability (agent-bound keys lack
it by default), and it only ever merges memories the key could see: shared ones and the private
ones within its reach (`sidecar.auth`).
"""

# No `from __future__ import annotations`: FastAPI must resolve the closures' annotations at runtime.
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field

from beliefs.consolidation_diff import ConsolidationDiff
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.consolidation import Consolidation
from sidecar.schemas import ERROR_RESPONSES, Identifier


class ConsolidateBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user_id: Identifier | None = Field(
        default=None, description="one user; every user of the tenant when absent"
    )
    topic: str = Field(min_length=1, max_length=64)
    similarity_threshold: float = Field(default=0.85, gt=0.0, le=1.0, description="cosine similarity")
    dry_run: bool = Field(default=True, description="answer the diff and write nothing")


def consolidate_routes(guard: AccessGuard, consolidator: Consolidation) -> APIRouter:
    router = APIRouter(tags=["manage"], responses=ERROR_RESPONSES)

    @router.post("/v1/consolidate", response_model=ConsolidationDiff)
    async def consolidate(
        principal: Annotated[Principal, Depends(guard)], body: ConsolidateBody
    ) -> ConsolidationDiff:
        """Groups of near-duplicates, each with its proposed (or written) canonical memory."""
        return await consolidator(
            principal.tenant_id,
            body.topic,
            user_id=body.user_id,
            threshold=body.similarity_threshold,
            dry_run=body.dry_run,
            reach=principal.reach,
        )

    return router
