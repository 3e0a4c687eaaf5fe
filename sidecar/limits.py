"""A request body size limit as ASGI middleware: over the limit is a 413 JSON error, before any route runs.

`Content-Length` is checked first, so an honest oversize request is refused without reading it; then
the streamed body is counted chunk by chunk, so a chunked or lying client is cut off at the limit too.
The body (at most `max_body_bytes`) is buffered and replayed to the app, which needs all of it anyway.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sidecar.errors import error_response


class BodySizeLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None:
            if not declared.isdigit():
                await error_response(400, "bad_request", "Content-Length is not a number")(
                    scope, receive, send
                )
                return
            if int(declared) > self.max_body_bytes:
                await self._too_large(scope, receive, send)
                return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nothing to answer
                return
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await self._too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(bytes(body), receive), send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"the request body is over the limit of {self.max_body_bytes} bytes"
        await error_response(413, "payload_too_large", message, {"Connection": "close"})(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands over the buffered body once, then waits on the client (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
