"""Fusion of the dense and keyword candidate lists into one relevance per candidate (pure).

Relevance is a similarity, not a rank: the weighted mean of a candidate's cosine to the query
(clamped to [0, 1]) and its keyword score over the best keyword score of this query. So the top hit
of an unrelated query keeps a low relevance, and a candidate both lists found gains on one only one
found. Ranks are kept for diagnostics.

A belief is at least as relevant as the turn it was drawn from (`grounded`): its text is a
paraphrase that may lose the words the question uses, while the turn it came from kept them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from sidecar.recall.config import RecallConfig
from sinks.base import VectorHit
from sinks.recall import KeywordHit


class Signals(NamedTuple):
    """Where a candidate came from (1-based ranks, raw scores) and its fused relevance (immutable, and
    a tuple: one is built for every candidate of every recall)."""

    relevance: float
    dense_rank: int | None = None
    dense_score: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None  # normalised: the query's best keyword hit is 1
    linked: bool = False  # linked to an entity or a time the query names (`sidecar.recall.linked`)

    @property
    def sources(self) -> str:
        """`dense+keyword`, `dense` or `keyword`, with `+linked` (or `linked` alone) when linked."""
        if self.dense_rank:
            found = "dense+keyword" if self.keyword_rank else "dense"
        else:
            found = "keyword" if self.keyword_rank else ""
        if self.linked:
            return f"{found}+linked" if found else "linked"
        return found


def without_keyword(found: Signals) -> Signals:
    """`found` as if the keyword search had not: for a candidate whose own words hold none of the
    query's terms (a stemmer's accident: "one" is indexed as "on"), a keyword hit is no evidence."""
    if found.keyword_rank is None:
        return found
    return found._replace(keyword_rank=None, keyword_score=None)


def keyword_similarity(keyword: Sequence[KeywordHit]) -> dict[str, float]:
    """{id: score / best score of this answer}: keyword scores only compare within one query."""
    best = max((hit.score for hit in keyword), default=0.0)
    out: dict[str, float] = {}
    for hit in keyword:
        out.setdefault(hit.id, hit.score / best if best > 0 else 0.0)
    return out


def relevance(cosine: float | None, keyword: float | None, config: RecallConfig) -> float:
    """The weighted mean of cosine⁺ and keyword similarity (a missing one counts 0), in [0, 1]."""
    return _weighted(cosine, keyword, config.dense_weight, config.keyword_weight)


def _weighted(cosine: float | None, keyword: float | None, dense_weight: float, keyword_weight: float) -> float:
    cosine, keyword = cosine or 0.0, keyword or 0.0  # each clamped to [0, 1] below, as min(max(x, 0.0), 1.0)
    dense_part = dense_weight * (0.0 if cosine < 0.0 else 1.0 if cosine > 1.0 else cosine)
    keyword_part = keyword_weight * (0.0 if keyword < 0.0 else 1.0 if keyword > 1.0 else keyword)
    return (dense_part + keyword_part) / (dense_weight + keyword_weight)


def fuse(dense: Sequence[VectorHit], keyword: Sequence[KeywordHit], config: RecallConfig) -> dict[str, Signals]:
    """{candidate id: signals}, in no particular order; duplicates within a list keep their best."""
    dense_ranks = _ranks(hit.id for hit in dense)
    keyword_ranks = _ranks(hit.id for hit in keyword)
    cosine = {hit.id: hit.score for hit in reversed(dense)}  # the first (best) occurrence wins
    similar = keyword_similarity(keyword)
    dense_weight, keyword_weight = config.dense_weight, config.keyword_weight
    fused: dict[str, Signals] = {}
    for candidate in dict.fromkeys([*dense_ranks, *keyword_ranks]):
        dense_score, keyword_score = cosine.get(candidate), similar.get(candidate)
        fused[candidate] = Signals(
            _weighted(dense_score, keyword_score, dense_weight, keyword_weight),
            dense_ranks.get(candidate),
            dense_score,
            keyword_ranks.get(candidate),
            keyword_score,
        )
    return fused


def grounded(signals: Mapping[str, Signals], turn_relevance: Mapping[str, float]) -> dict[str, Signals]:
    """The beliefs' signals, each relevance raised to that of the best candidate turn that stated the
    belief (`turn_relevance`: {memory id: relevance}); the ranks and raw scores are left as found."""
    out: dict[str, Signals] = {}
    for memory_id, found in signals.items():
        turn = turn_relevance.get(memory_id, 0.0)
        out[memory_id] = found._replace(relevance=turn) if turn > found.relevance else found
    return out


def stated_relevance(episodes: Sequence[tuple[Sequence[str], float]]) -> dict[str, float]:
    """{memory id: the best relevance of a turn that stated it}, from (the turn's memory ids, its
    relevance) pairs."""
    best: dict[str, float] = {}
    for memory_ids, relevance in episodes:
        for memory_id in memory_ids:
            best[memory_id] = max(best.get(memory_id, 0.0), relevance)
    return best


def _ranks(ids) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for rank, candidate in enumerate(ids, start=1):
        ranks.setdefault(candidate, rank)
    return ranks
