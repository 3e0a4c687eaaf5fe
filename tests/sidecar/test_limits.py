"""The body size middleware on its own, over a bare ASGI app that echoes the body length."""

from __future__ import annotations

import httpx

from sidecar.limits import BodySizeLimitMiddleware


async def echo_length(scope, receive, send) -> None:
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": str(len(body)).encode()})


def client_with_limit(limit: int) -> httpx.AsyncClient:
    app = BodySizeLimitMiddleware(echo_length, max_body_bytes=limit)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://limits")


async def test_body_at_the_limit_is_passed_on_whole():
    async with client_with_limit(10) as client:
        response = await client.post("/", content=b"x" * 10)

    assert (response.status_code, response.text) == (200, "10")


async def test_chunked_body_is_reassembled_for_the_app():
    async def chunks():
        for part in (b"abc", b"", b"defg"):
            yield part

    async with client_with_limit(10) as client:
        response = await client.post("/", content=chunks())

    assert (response.status_code, response.text) == (200, "7")


async def test_declared_length_over_the_limit_is_413_json():
    async with client_with_limit(10) as client:
        response = await client.post("/", content=b"x" * 11)

    assert response.status_code == 413
    assert response.json()["error"] == {
        "code": "payload_too_large",
        "message": "the request body is over the limit of 10 bytes",
    }


async def test_streamed_body_over_the_limit_is_413_json():
    async def chunks():
        for _ in range(4):
            yield b"xxxx"

    async with client_with_limit(10) as client:
        response = await client.post("/", content=chunks())

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


async def test_non_numeric_content_length_is_400_json():
    async with client_with_limit(10) as client:
        response = await client.post("/", content=b"x", headers={"Content-Length": "ten"})

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"
