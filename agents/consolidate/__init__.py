"""Consolidation: near-duplicate memories of one topic merged into one canonical memory each.

consolidate()             agents.consolidate.run      the entry point (dry run by default)
Consolidator              agents.consolidate.consolidator  dependencies bound; the weekly sweep
cluster()                 agents.consolidate.cluster  greedy cosine clustering (pure)
compatible()              agents.consolidate.compat   what may never merge (pure)
merge_texts()             agents.consolidate.merge    the offline merge (pure)
AnthropicMerger           agents.consolidate.claude_merge
"""

from agents.consolidate.cluster import cluster
from agents.consolidate.compat import compatible
from agents.consolidate.consolidator import Consolidator, SweepReport
from agents.consolidate.merge import Merged, Merger, OfflineMerger, merge_texts
from agents.consolidate.run import consolidate
from beliefs.consolidation_diff import ConsolidationDiff, DiffGroup, DiffMember

__all__ = [
    "ConsolidationDiff",
    "Consolidator",
    "DiffGroup",
    "DiffMember",
    "Merged",
    "Merger",
    "OfflineMerger",
    "SweepReport",
    "cluster",
    "compatible",
    "consolidate",
    "merge_texts",
]
