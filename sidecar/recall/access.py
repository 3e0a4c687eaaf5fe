"""`last_accessed` / `access_count` of recalled memories, batched off the hot path.

Counting a read must not cost the reader a write transaction: ids are buffered and one UPDATE per
flush (per distinct count) applies them. The decay job reads these columns.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime

from beliefs.records import utcnow
from sidecar.recall.batching import BatchFlusher, BufferedRecorder
from sinks.recall import RecallStore


class AccessRecorder(BufferedRecorder[str]):
    def __init__(
        self,
        store: RecallStore,
        *,
        interval_s: float = 1.0,
        max_ids: int = 1000,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._store = store
        self._clock = clock
        self._flusher: BatchFlusher[str] = BatchFlusher(
            "recall-access", self._write, interval_s=interval_s, max_items=max_ids
        )

    def record(self, memory_ids: Sequence[str]) -> None:
        self._flusher.add(memory_ids)

    async def _write(self, ids: list[str]) -> None:
        await self._store.record_access(Counter(ids), self._clock())
