"""`GET /console`: the web console, static files of ours that read and govern through the public API.

The page holds no privilege of its own: it calls the same `/v1` routes with the key a person types
(kept in the tab's sessionStorage, sent as `Authorization: Bearer`, never in a URL or a cookie), so
it can do nothing the key cannot, and a forged cross-site request carries no key. Every answer of
these routes carries a strict Content-Security-Policy: scripts and styles only from here (no inline
script or style, no eval), data from here only, no framing, and Trusted Types required, so no string
of data can become markup. The files are served from a fixed list, never from a path a client names.
"""

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from sidecar.errors import NotFound

#: Where the console's files live (shipped as package data).
CONSOLE_DIR = Path(__file__).resolve().parents[1] / "console"
PATH = "/console"

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "font-src 'none'",
        "object-src 'none'",
        "media-src 'none'",
        "frame-src 'none'",
        "worker-src 'none'",
        "manifest-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    ]
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    "Cache-Control": "no-cache",
}

_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


def _files() -> dict[str, tuple[bytes, str]]:
    """Every file of the console by its name, read once: the only paths this router answers."""
    return {
        path.name: (path.read_bytes(), _MEDIA_TYPES[path.suffix])
        for path in sorted(CONSOLE_DIR.iterdir())
        if path.suffix in _MEDIA_TYPES
    }


def console_routes() -> APIRouter:
    router = APIRouter(include_in_schema=False)
    files = _files()

    def answer(name: str) -> Response:
        if name not in files:
            raise NotFound(f"no console file {name!r}")
        body, media_type = files[name]
        return Response(body, media_type=media_type, headers=SECURITY_HEADERS)

    @router.get(PATH)
    async def console_page() -> Response:
        return answer("index.html")

    @router.get(PATH + "/")
    async def console_slash() -> RedirectResponse:
        return RedirectResponse(PATH, status_code=308)

    @router.get(PATH + "/{name}")
    async def console_file(name: str) -> Response:
        return answer(name)

    return router
