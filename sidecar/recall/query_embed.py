"""Query embeddings for recall: concurrent queries share one model call, repeated queries none.

Why: the embedder runs on one model thread, so 32 concurrent recalls each asking for one vector
queue 32 ONNX calls back to back (tens of ms each under load), and the queue, not the model, sets
the latency. Here a query waits for the call in flight to finish and then goes into the next call
with every other query that arrived meanwhile (a batch of 32 short queries costs a few single
ones). An idle embedder starts at once, after one event-loop tick (`window_s` adds a pause for
callers that prefer bigger batches to lower latency). Identical queries in flight share one slot,
and a small LRU answers a repeated query without the model at all.

A failing model call fails every query of its batch with the same error (the caller degrades).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

import numpy as np

from embedding.embedder import Embedder


class QueryEmbedder:
    def __init__(
        self, embedder: Embedder, *, max_batch: int = 64, window_s: float = 0.0, cache_size: int = 1024
    ) -> None:
        if max_batch < 1 or window_s < 0 or cache_size < 0:
            raise ValueError("need max_batch >= 1, window_s >= 0 and cache_size >= 0")
        self.embedder = embedder
        self.max_batch = max_batch
        self.window_s = window_s
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._waiting: dict[str, asyncio.Future[np.ndarray]] = {}  # not yet in a model call
        self._in_flight: dict[str, asyncio.Future[np.ndarray]] = {}
        self._runner: asyncio.Task[None] | None = None

    async def embed(self, query: str) -> np.ndarray:
        """The unit vector of `query` (float32, read-only: it may be shared between callers)."""
        return await vector_of(self.ask(query))

    def ask(self, query: str) -> np.ndarray | asyncio.Future[np.ndarray]:
        """The cached vector of `query`, or the future of the model call that will embed it (that
        call starts on the event loop's next pass); `vector_of` awaits either."""
        cached = self._cache.get(query)
        if cached is not None:
            self._cache.move_to_end(query)
            return cached
        future = self._waiting.get(query) or self._in_flight.get(query)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._waiting[query] = future
            if self._runner is None or self._runner.done():
                self._runner = asyncio.create_task(self._run(), name="beliefstream-query-embed")
        return future

    async def _run(self) -> None:
        """Drain the waiting queries in batches until none is left.

        With no window the first call starts as soon as this task runs: every query that arrived in
        the same event-loop pass is already waiting by then.
        """
        if self.window_s:
            await asyncio.sleep(self.window_s)
        while self._waiting:
            texts = list(self._waiting)[: self.max_batch]
            batch = {text: self._waiting.pop(text) for text in texts}
            self._in_flight.update(batch)
            try:
                vectors = np.asarray(await self.embedder.aembed(texts), dtype=np.float32)
            except BaseException as exc:
                for future in batch.values():
                    if not future.done():
                        future.set_exception(exc)
                        future.exception()  # retrieved here too: nobody may be left awaiting it
                if not isinstance(exc, Exception):
                    raise
            else:
                for text, vector in zip(texts, vectors, strict=True):
                    vector.flags.writeable = False
                    self._remember(text, vector)
                    if not batch[text].done():
                        batch[text].set_result(vector)
            finally:
                for text in texts:
                    self._in_flight.pop(text, None)

    def _remember(self, query: str, vector: np.ndarray) -> None:
        if self.cache_size == 0:
            return
        self._cache[query] = vector
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)


async def vector_of(asked: np.ndarray | asyncio.Future[np.ndarray]) -> np.ndarray:
    """The vector `QueryEmbedder.ask` gave or promised."""
    if isinstance(asked, np.ndarray):
        return asked
    return await asyncio.shield(asked)  # one caller giving up must not cancel the others' answer
