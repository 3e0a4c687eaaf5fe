"""Reciprocal rank fusion of the dense and keyword candidate lists (pure).

Ranks, not raw scores, are fused: cosine and bm25 live on unrelated scales. Relevance is the fused
score over the best one possible from the lists that found anything, so it lies in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sidecar.recall.config import RecallConfig
from sinks.base import VectorHit
from sinks.recall import KeywordHit


@dataclass(frozen=True)
class Signals:
    """Where a candidate came from (1-based ranks) and its fused relevance."""

    relevance: float
    dense_rank: int | None = None
    dense_score: float | None = None
    keyword_rank: int | None = None

    @property
    def sources(self) -> str:
        """`dense+keyword`, `dense` or `keyword`."""
        found = [name for name, rank in (("dense", self.dense_rank), ("keyword", self.keyword_rank)) if rank]
        return "+".join(found)


def fuse(dense: Sequence[VectorHit], keyword: Sequence[KeywordHit], config: RecallConfig) -> dict[str, Signals]:
    """{memory id: signals}, in no particular order; duplicates within a list keep their best rank."""
    dense_ranks = _ranks(hit.id for hit in dense)
    keyword_ranks = _ranks(hit.id for hit in keyword)
    cosine = {hit.id: hit.score for hit in reversed(dense)}  # the first (best) occurrence wins
    best = 0.0
    if dense_ranks:
        best += config.dense_weight / (config.rrf_k + 1)
    if keyword_ranks:
        best += config.keyword_weight / (config.rrf_k + 1)
    fused: dict[str, Signals] = {}
    for memory_id in dict.fromkeys([*dense_ranks, *keyword_ranks]):
        d, k = dense_ranks.get(memory_id), keyword_ranks.get(memory_id)
        score = (config.dense_weight / (config.rrf_k + d) if d else 0.0) + (
            config.keyword_weight / (config.rrf_k + k) if k else 0.0
        )
        fused[memory_id] = Signals(
            relevance=score / best if best > 0 else 0.0,
            dense_rank=d,
            dense_score=cosine.get(memory_id),
            keyword_rank=k,
        )
    return fused


def _ranks(ids) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for rank, memory_id in enumerate(ids, start=1):
        ranks.setdefault(memory_id, rank)
    return ranks
