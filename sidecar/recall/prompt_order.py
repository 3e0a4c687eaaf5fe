"""The order of the recalled beliefs in the prompt (Lost in the Middle: its start and end are read best).

Fired constraints and the profile block open it, the best-scoring memory closes it, the second best
follows the opening, the weakest sit in the middle.
"""

from __future__ import annotations

from collections.abc import Sequence

from sidecar.recall.budget import edges_last
from sidecar.recall.selection import RANKED, Entry


def prompt_order(kept: Sequence[Entry]) -> list[Entry]:
    """Fired constraints (safety facts among them), then the profile block, each by score: the
    beginning; then the ranked memories with the best one last and the second best first
    (`budget.edges_last`): the end."""
    head = sorted((e for e in kept if e.tier != RANKED), key=lambda e: (e.tier, -e.score.value, e.memory.id))
    ranked = sorted((e for e in kept if e.tier == RANKED), key=lambda e: (-e.score.value, e.memory.id))
    return head + edges_last(ranked)
