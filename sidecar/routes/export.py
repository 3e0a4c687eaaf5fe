"""`GET /v1/users/{user_id}/export`: the user's belief state as JSON lines (`sinks.portability`).

The tenant is the key's; reading needs `recall`, like every read of memories. The answer streams
while the store is paged through, so a large user is never held in memory, all from one snapshot
(a write committed during the response is not in it): a header line, every
memory with its history (all states), the user's contradiction loops, every episode, and an end line
counting them (a response cut short mid-stream still answered 200: the end line tells). Another
agent's private rows are left out unless the key may read them (an agent-bound key sees its own, a
tenant key with `agents` every agent's). `beliefstream import` loads the file into another store.
"""

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import StreamingResponse

from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.schemas import ERROR_RESPONSES, UserIdPath
from sinks.portability import ExportSource, export

MEDIA_TYPE = "application/x-ndjson"
#: Bytes gathered before a write to the connection.
CHUNK_BYTES = 64 * 1024

_EXAMPLE = (
    '{"kind":"header","format":"beliefstream-export","version":1}\n'
    '{"kind":"memory","id":"...","state":"superseded","superseded_by":"...","text":"User lives in Berlin.",...}\n'
    '{"kind":"episode","id":"...","role":"user","text":"I moved to Lisbon last month.",...}\n'
    '{"kind":"end","records":2}\n'
)


def export_routes(guard: AccessGuard, store: ExportSource) -> APIRouter:
    router = APIRouter(tags=["users"], responses=ERROR_RESPONSES)

    @router.get(
        "/v1/users/{user_id}/export",
        response_class=StreamingResponse,
        responses={200: {"content": {MEDIA_TYPE: {"example": _EXAMPLE}}, "description": "JSON lines"}},
    )
    async def export_user(principal: Annotated[Principal, Depends(guard)], user_id: UserIdPath) -> StreamingResponse:
        """The user's memories (every state, with their supersession chains, citations and scores),
        contradiction loops and episodes as JSON lines, one object a line with a `kind` (`header`,
        `memory`, `contested`, `episode`), the last line `{"kind": "end", "records": N}` (a file
        without it was cut short). Load it elsewhere with `beliefstream import`."""
        lines = export(store, principal.reach, principal.tenant_id, user_id)
        return StreamingResponse(_newline_ended(lines), media_type=MEDIA_TYPE)

    return router


async def _newline_ended(lines: AsyncIterator[str]) -> AsyncIterator[bytes]:
    """The lines, newline-ended, sent in chunks of about `CHUNK_BYTES` rather than one write a line."""
    chunk: list[bytes] = []
    size = 0
    async for line in lines:
        chunk.append((line + "\n").encode("utf-8"))
        size += len(chunk[-1])
        if size >= CHUNK_BYTES:
            yield b"".join(chunk)
            chunk, size = [], 0
    if chunk:
        yield b"".join(chunk)
