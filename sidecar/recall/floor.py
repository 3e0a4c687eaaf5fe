"""The similarity floor: relevance first, importance only orders what is relevant (pure).

A candidate passes when its cosine to the query is at least `min_similarity`, or when the keyword
search found it, the query names its entity, attribute or topic (`metadata_match`) or it is linked
to an entity or a time the query names (`linked`), and its
cosine is at least `keyword_min_similarity` or unknown (not among the dense
hits, or the dense search is down): shared words with a meaning far from the query's are not relevance. Importance never lifts
a candidate over the floor: what must reach the prompt without relevance (a fired constraint, a
safety fact in its domain, the profile block) is admitted by its tier in `select`, not here. The
floors are measured (`bench/recall_floor.py`, figures in docs/benchmarks.md) and shown in the
diagnostics; a dropped candidate is listed there with its cosine and the floor it missed.

A query that speaks of no one of the user's (`reference.speaks_of_user`: "what's the capital of
Australia?") asks more: its cosine must reach `impersonal_min_similarity`, whatever words or links
the candidate shares with it (one whose cosine is unknown, outside the dense hits or with the dense
search down, is judged as any other).

A candidate whose cosine reaches `asked_min_similarity` is what the question asks about (`asked_about`):
a special-category fact then bears on the request, whatever domains its words place it in.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from sidecar.recall.config import RecallConfig
from sidecar.recall.fusion import Signals


class FloorVerdict(NamedTuple):
    passes: bool
    why: str | None = None  # the suppression reason of a drop


#: The verdict of every candidate that passes (most of them): one shared value.
PASSES = FloorVerdict(True)

def asked_about(signals: Signals | None, config: RecallConfig) -> bool:
    """The question asks about this candidate: its cosine reaches `asked_min_similarity` (a sensitive
    fact then bears on the request whatever domains its words are in: `sensitivity_gate`)."""
    return signals is not None and signals.dense_score is not None and signals.dense_score >= config.asked_min_similarity


IMPERSONAL_WHY = "below the similarity floor of a query that speaks of no one of the user's"


def similarity_floor(
    signals: Signals, config: RecallConfig, named: bool = False, impersonal: bool = False
) -> FloorVerdict:
    """Pass, or drop (with the measured cosine and the floor in `why`). `named`: the query names the
    memory's entity, attribute or topic (`metadata_match`), evidence like a keyword match.
    `impersonal`: the query speaks of no one of the user's (`reference.speaks_of_user`)."""
    cosine = signals.dense_score
    if impersonal and cosine is not None:
        floor = max(config.impersonal_min_similarity, config.min_similarity)
        if cosine >= floor:
            return PASSES
        return FloorVerdict(False, f"{IMPERSONAL_WHY} (cosine {cosine:.2f} < {floor})")
    if signals.keyword_rank is not None or named or signals.linked:
        if cosine is None or cosine >= config.keyword_min_similarity:  # unknown: not among the dense hits
            return PASSES
        return FloorVerdict(False, _reasons(config.min_similarity, config.keyword_min_similarity)[1].format(cosine=cosine))
    cosine = cosine or 0.0
    if cosine >= config.min_similarity:
        return PASSES
    return FloorVerdict(False, _reasons(config.min_similarity, config.keyword_min_similarity)[0].format(cosine=cosine))


@functools.lru_cache(maxsize=16)
def _reasons(min_similarity: float, keyword_min_similarity: float) -> tuple[str, str]:
    """The why of a drop under one pair of floors, for a dense-only and for a keyword hit (a
    candidate's cosine is formatted in per candidate)."""
    dense = f"below the similarity floor (cosine {{cosine:.2f}} < {min_similarity})"
    keyword = (
        f"below the similarity floor for a keyword or metadata match (cosine {{cosine:.2f}} < {keyword_min_similarity})"
    )
    return dense, keyword
