"""The similarity floor, and who passes it anyway (pure).

A candidate only the dense search found, with a cosine under `min_similarity`, is noise unless it is
important: a memory at or above `floor_bypass_importance` (an allergy, a medical need) is ranked
whatever its similarity, and says so in its recall reason. Nothing leaves silently: a dropped
candidate is listed in diagnostics with its cosine and the floor.
"""

from __future__ import annotations

from dataclasses import dataclass

from sidecar.recall.config import RecallConfig
from sidecar.recall.fusion import Signals


@dataclass(frozen=True)
class FloorVerdict:
    passes: bool
    why: str | None = None  # the recall reason of a bypass, or the suppression reason of a drop


#: The verdict of every candidate that passes on its similarity (most of them): one shared value.
PASSES = FloorVerdict(True)


def similarity_floor(importance: float, signals: Signals, config: RecallConfig) -> FloorVerdict:
    """Pass, pass by importance, or drop (with the measured cosine and the floor in `why`)."""
    cosine = signals.dense_score or 0.0
    if signals.keyword_rank is not None or cosine >= config.min_similarity:
        return PASSES
    if importance >= config.floor_bypass_importance:
        return FloorVerdict(
            True, f"important ({importance:.2f}): kept below the similarity floor ({cosine:.2f} < {config.min_similarity})"
        )
    return FloorVerdict(
        False,
        f"below the similarity floor (cosine {cosine:.2f} < {config.min_similarity}; "
        f"importance {importance:.2f} < {config.floor_bypass_importance} to bypass it)",
    )
