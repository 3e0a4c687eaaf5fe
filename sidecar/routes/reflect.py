"""`POST /v1/reflect`: a grounded answer from recalled memory, weaker evidence labelled (contract §3).

Scope is recall's: the tenant and a bound agent come from the key. Nothing is written.
"""

# No `from __future__ import annotations`: FastAPI must resolve the closures' annotations at runtime.
from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.reflect import ReflectRequest, ReflectResult, ReflectService
from sidecar.schemas import ERROR_RESPONSES


def reflect_routes(guard: AccessGuard, reflect: ReflectService) -> APIRouter:
    router = APIRouter(tags=["recall"], responses=ERROR_RESPONSES)

    @router.post("/v1/reflect", response_model=ReflectResult)
    async def reflect_on(
        principal: Annotated[Principal, Depends(guard)], body: Annotated[ReflectRequest, Body()]
    ) -> ReflectResult:
        """An answer to `question` from this user's recalled memories; says so when there are none."""
        return await reflect.reflect(principal, body)

    return router
