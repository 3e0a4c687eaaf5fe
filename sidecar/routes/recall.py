"""`POST /v1/recall`: the policy-gated read of a user's memories (contract §3).

Tenant and bound agent come from the key; a body `agent_id` other than a bound key's agent is a 403.
"""

# No `from __future__ import annotations`: FastAPI must resolve the closures' annotations at runtime.
from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.recall.models import RecallRequest, RecallResult
from sidecar.recall.service import RecallService
from sidecar.schemas import ERROR_RESPONSES


def recall_routes(guard: AccessGuard, recall: RecallService) -> APIRouter:
    router = APIRouter(tags=["recall"], responses=ERROR_RESPONSES)

    @router.post("/v1/recall", response_model=RecallResult)
    async def recall_memories(
        principal: Annotated[Principal, Depends(guard)], body: Annotated[RecallRequest, Body()]
    ) -> RecallResult:
        """Current, permitted memories for this request, ranked, within budget, in prompt order."""
        return await recall.recall(principal, body)

    return router
