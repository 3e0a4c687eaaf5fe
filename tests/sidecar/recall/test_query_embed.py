"""Query embeddings: concurrent queries share a model call, repeats hit the cache, failures reach all."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from embedding.errors import EmbedderUnavailableError
from sidecar.recall.query_embed import QueryEmbedder


class CountingEmbedder:
    dim = 4
    model_id = "counting"

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.fail = fail

    def embed(self, texts):
        return np.array([[len(t), 1.0, 0.0, 0.0] for t in texts], dtype=np.float32)

    async def aembed(self, texts):
        self.calls.append(list(texts))
        await asyncio.sleep(0.01)  # the model call in flight while others arrive
        if self.fail:
            raise EmbedderUnavailableError("model gone")
        return self.embed(texts)

    def close(self) -> None:
        pass


async def test_concurrent_queries_share_model_calls_and_repeats_are_cached() -> None:
    inner = CountingEmbedder()
    queries = QueryEmbedder(inner)
    texts = [f"query {i}" for i in range(10)] + ["query 3"]
    vectors = await asyncio.gather(*(queries.embed(t) for t in texts))
    assert [v[0] for v in vectors] == [len(t) for t in texts]
    assert sum(len(call) for call in inner.calls) == 10  # "query 3" asked twice, embedded once
    assert len(inner.calls) <= 2
    await queries.embed("query 5")
    assert sum(len(call) for call in inner.calls) == 10  # from the cache


async def test_a_failing_call_fails_every_query_of_its_batch_and_is_not_cached() -> None:
    inner = CountingEmbedder(fail=True)
    queries = QueryEmbedder(inner)
    results = await asyncio.gather(queries.embed("a"), queries.embed("b"), return_exceptions=True)
    assert all(isinstance(r, EmbedderUnavailableError) for r in results)
    inner.fail = False
    assert (await queries.embed("a"))[0] == 1


async def test_batches_are_bounded() -> None:
    inner = CountingEmbedder()
    queries = QueryEmbedder(inner, max_batch=3)
    await asyncio.gather(*(queries.embed(f"q{i}") for i in range(7)))
    assert max(len(call) for call in inner.calls) <= 3


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        QueryEmbedder(CountingEmbedder(), max_batch=0)
