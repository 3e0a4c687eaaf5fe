"""The Qdrant server index: unreachable, throttled and failing servers become named sink errors; the
factory picks the backend from the settings."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from qdrant_client.common.client_exceptions import ResourceExhaustedResponse
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from sinks.errors import BackpressureError, SinkUnavailableError
from sinks.vectors import EdgeVectorIndex, QdrantServerIndex, make_vector_index
from sinks.vectors.server import translate_error
from streams.settings import Settings


async def test_server_that_cannot_be_reached_is_unavailable() -> None:
    index = QdrantServerIndex(url="http://127.0.0.1:9", collection="nowhere", timeout_s=2)
    with pytest.raises(SinkUnavailableError, match="cannot be reached"):
        await index.setup()
    assert not await index.ping()
    await index.close()


@pytest.mark.parametrize("status", [429, 503])
def test_throttling_becomes_backpressure(status: int) -> None:
    error = UnexpectedResponse(status, "busy", b"", httpx.Headers({"Retry-After": "7"}))
    translated = translate_error(error, "qdrant/x")
    assert isinstance(translated, BackpressureError)
    assert translated.retry_after == 7.0
    no_header = translate_error(UnexpectedResponse(status, "busy", b"", httpx.Headers()), "qdrant/x")
    assert isinstance(no_header, BackpressureError) and no_header.retry_after > 0


def test_error_translation() -> None:
    exhausted = translate_error(ResourceExhaustedResponse("slow down", 3), "qdrant/x")
    assert isinstance(exhausted, BackpressureError) and exhausted.retry_after == 3.0
    refused = ResponseHandlingException(httpx.ConnectError("refused"))
    assert isinstance(translate_error(refused, "qdrant/x"), SinkUnavailableError)
    bad_request = UnexpectedResponse(400, "bad", b"", httpx.Headers())
    assert translate_error(bad_request, "qdrant/x") is None
    assert translate_error(KeyError("x"), "qdrant/x") is None


def test_factory_picks_the_backend(tmp_path: Path) -> None:
    embedded = make_vector_index(Settings(data_dir=tmp_path))
    assert isinstance(embedded, EdgeVectorIndex) and embedded.path == tmp_path / "vectors"
    server = make_vector_index(
        Settings(
            data_dir=tmp_path, qdrant_url="http://qdrant:6333", qdrant_api_key="k", qdrant_collection="c"
        )
    )
    assert isinstance(server, QdrantServerIndex)
    assert (server.url, server.collection) == ("http://qdrant:6333", "c")


def test_server_needs_exactly_one_target() -> None:
    with pytest.raises(ValueError):
        QdrantServerIndex()
    with pytest.raises(ValueError):
        QdrantServerIndex(url="http://q:6333", location=":memory:")
