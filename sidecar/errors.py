"""Errors of the sidecar, and the handlers that give every failure one JSON shape.

    BeliefstreamError
    ├── SidecarError            status, code, message
    │   ├── BadRequest          400 bad_request
    │   ├── Unauthorized        401 unauthorized
    │   ├── Forbidden           403 forbidden
    │   ├── NotFound            404 not_found
    │   ├── Conflict            409 conflict
    │   ├── PayloadTooLarge     413 payload_too_large
    │   ├── TooManyRequests     429 rate_limited (with Retry-After)
    │   └── Unavailable         503 unavailable
    ├── ReflectAnswerError      the reflect answerer gave no usable answer (never reaches a client:
    │                           reflect answers extractively instead)
    └── UndeclaredRouteError    a route or MCP tool with no entry in `sidecar.access` (a programming
                                error, raised when the app is built)

Recall's own errors are in `sidecar.recall.errors`.

Every error a client sees is `{"error": {"code": "...", "message": "..."}}` (contract §3): our own
errors, FastAPI's validation errors, Starlette's 404/405, store outages and unexpected exceptions
(500, logged here, never a traceback in the body).
"""

from __future__ import annotations

import logging
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from beliefs.errors import BeliefstreamError
from sidecar.validation import describe_validation_errors
from sinks.errors import BackpressureError, NotFoundError, SinkUnavailableError

logger = logging.getLogger(__name__)

#: Starlette's own HTTP errors (unknown route, wrong method, ...) as stable codes.
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    503: "unavailable",
}


class SidecarError(BeliefstreamError):
    """An error with an HTTP status and a stable machine-readable code."""

    status = 500
    code = "internal_error"

    def __init__(self, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers


class BadRequest(SidecarError):
    status, code = 400, "bad_request"


class Unauthorized(SidecarError):
    """No key, a malformed header or an unknown key; never says which."""

    status, code = 401, "unauthorized"

    def __init__(self, message: str = "a valid API key is required: Authorization: Bearer <key>") -> None:
        super().__init__(message, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(SidecarError):
    """The body asks for a scope (tenant, agent) the key does not grant."""

    status, code = 403, "forbidden"


class NotFound(SidecarError):
    """Absent or out of scope: the two are indistinguishable, so existence is never confirmed."""

    status, code = 404, "not_found"


class Conflict(SidecarError):
    """The request names something that already exists with other content (a reused `memory_key`)."""

    status, code = 409, "conflict"


class PayloadTooLarge(SidecarError):
    status, code = 413, "payload_too_large"


class TooManyRequests(SidecarError):
    """The API key spent its request budget; `Retry-After` says when the next request fits."""

    status, code = 429, "rate_limited"

    def __init__(self, retry_after_s: float) -> None:
        seconds = max(1, math.ceil(retry_after_s))
        super().__init__(
            f"rate limit of this API key exceeded; retry after {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
        self.retry_after_s = retry_after_s


class Unavailable(SidecarError):
    """A dependency (broker, SQL) cannot take the request now; the client retries."""

    status, code = 503, "unavailable"


class ReflectAnswerError(BeliefstreamError):
    """The answerer gave no usable answer (API failure, timeout, malformed reply); reflect falls back."""


class UndeclaredRouteError(BeliefstreamError):
    """A route the access table (`sidecar.access.ROUTES`) does not name: no app is built with one."""


def error_response(
    status: int,
    code: str,
    message: str,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    """The one error body of contract §3; `extra` adds fields beside `error`, never inside it."""
    return JSONResponse({"error": {"code": code, "message": message}, **(extra or {})}, status, headers)


async def _sidecar_error(_: Request, exc: SidecarError) -> JSONResponse:
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    if isinstance(exc.body, bytes | bytearray):  # FastAPI left the body unparsed: not declared as JSON
        message = "the body must be JSON, sent with Content-Type: application/json"
        return error_response(415, "unsupported_media_type", message)
    if any(error.get("type") == "json_invalid" for error in errors):
        detail = errors[0].get("ctx", {}).get("error", "")
        return error_response(400, "invalid_json", f"the body is not valid JSON: {detail}".rstrip(": "))
    details = [{"loc": list(error.get("loc", ())), "msg": error.get("msg", "")} for error in errors]
    return error_response(
        422, "invalid_request", describe_validation_errors(errors), extra={"details": details}
    )


async def _http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return error_response(exc.status_code, code, str(exc.detail), exc.headers)


async def _sink_unavailable(_: Request, exc: SinkUnavailableError | BackpressureError) -> JSONResponse:
    logger.warning("store unavailable: %s", exc)
    headers = None
    if isinstance(exc, BackpressureError):
        headers = {"Retry-After": str(max(1, round(exc.retry_after)))}
    return error_response(503, "unavailable", "the memory store is unavailable; retry later", headers)


async def _sink_not_found(_: Request, exc: NotFoundError) -> JSONResponse:
    return error_response(404, "not_found", str(exc) or "not found")


def install_error_handlers(app: FastAPI) -> None:
    """Map every expected failure to the JSON error body; see `UnexpectedErrorMiddleware` for 500s."""
    app.add_exception_handler(SidecarError, _sidecar_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(SinkUnavailableError, _sink_unavailable)
    app.add_exception_handler(BackpressureError, _sink_unavailable)
    app.add_exception_handler(NotFoundError, _sink_not_found)


class UnexpectedErrorMiddleware:
    """Turn an unhandled exception into a logged 500 with the JSON error body.

    Starlette's own fallback re-raises after answering, which test transports and some servers
    surface as a crash; here the traceback goes to the log and the client gets no detail.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_tracking)
        except Exception:
            logger.exception("unhandled error in %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            response = error_response(500, "internal_error", "internal error; see the sidecar log")
            await response(scope, receive, send)
