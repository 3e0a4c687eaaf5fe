"""Bounds on every request body as ASGI middleware, before any route runs.

Size: over the limit is a 413. `Content-Length` is checked first, so an honest oversize request is
refused without reading it; then the streamed body is counted chunk by chunk, so a chunked or lying
client is cut off at the limit too. The body (at most `max_body_bytes`) is buffered and replayed to
the app, which needs all of it anyway.

Text: a JSON body holding an escaped lone surrogate (`"\\ud800"`) parses into a Python string no
encoder or store accepts; it is a 422 naming the field, on every route, before anything is written.
"""

from __future__ import annotations

import json
import re

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from beliefs.bounds import unencodable_violation
from sidecar.errors import error_response

# any escaped surrogate, paired or not; only then is the body parsed here to find a lone one
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def lone_surrogate_problem(body: bytes) -> str | None:
    """Where the JSON `body` holds a lone surrogate, as `body.field: ...`; None when it holds none."""
    if not _SURROGATE_ESCAPE.search(body):
        return None
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return None  # not JSON: the route's own validation answers that
    violation = unencodable_violation(document, "body")
    return violation.detail if violation else None


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
        if problem := lone_surrogate_problem(bytes(body)):
            location = problem.split(" contains ", 1)[0]
            details = [{"loc": location.replace(" (a key)", "").split("."), "msg": problem}]
            await error_response(422, "invalid_request", problem, extra={"details": details})(scope, receive, send)
            return
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
