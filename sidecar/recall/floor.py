"""The similarity floor, and who passes it anyway (pure).

A candidate only the dense search found, with a cosine under `min_similarity`, is noise unless it is
important: a memory at or above `floor_bypass_importance` (an allergy, a medical need) is ranked
whatever its similarity, and says so in its recall reason. Nothing leaves silently: a dropped
candidate is listed in diagnostics with its cosine and the floor.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from sidecar.recall.config import RecallConfig
from sidecar.recall.fusion import Signals


class FloorVerdict(NamedTuple):
    passes: bool
    why: str | None = None  # the recall reason of a bypass, or the suppression reason of a drop


#: The verdict of every candidate that passes on its similarity (most of them): one shared value.
PASSES = FloorVerdict(True)


def similarity_floor(importance: float, signals: Signals, config: RecallConfig) -> FloorVerdict:
    """Pass, pass by importance, or drop (with the measured cosine and the floor in `why`)."""
    cosine = signals.dense_score or 0.0
    min_similarity = config.min_similarity
    if signals.keyword_rank is not None or cosine >= min_similarity:
        return PASSES
    bypass = config.floor_bypass_importance
    kept, dropped = _reasons(min_similarity, bypass)
    if importance >= bypass:
        return FloorVerdict(True, kept.format(importance=importance, cosine=cosine))
    return FloorVerdict(False, dropped.format(importance=importance, cosine=cosine))


@functools.lru_cache(maxsize=16)
def _reasons(min_similarity: float, bypass: float) -> tuple[str, str]:
    """The why of a bypass and of a drop under one floor, with the floor written in (a candidate's
    importance and cosine are formatted in per candidate)."""
    kept = f"important ({{importance:.2f}}): kept below the similarity floor ({{cosine:.2f}} < {min_similarity})"
    dropped = (
        f"below the similarity floor (cosine {{cosine:.2f}} < {min_similarity}; "
        f"importance {{importance:.2f}} < {bypass} to bypass it)"
    )
    return kept, dropped
