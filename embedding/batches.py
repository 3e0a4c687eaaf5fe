"""How to cut texts into model calls: few padded tokens, few calls.

A transformer call costs about (rows × longest row) tokens plus a fixed overhead per call, so a
batch of mixed lengths pays for padding: one 40-token text among 15-token ones more than doubles the
work. `plan_batches` sorts by length and chooses the cut points that minimise the estimated cost
(overhead per call + padded tokens), exactly, by dynamic programming over the distinct lengths.
Measured on the LoCoMo memory texts (mean 15 tokens, max 40): random chunks of 20 texts ran at 242
texts/s, the same texts planned this way at well over 400 (see docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

#: The fixed cost of one model call, in padded tokens (≈ 2 ms against ≈ 0.14 ms per token here).
CALL_OVERHEAD_TOKENS = 16


def plan_batches(
    lengths: Sequence[int], max_rows: int, call_overhead: int = CALL_OVERHEAD_TOKENS
) -> list[list[int]]:
    """Indices of `lengths`, grouped into calls of at most `max_rows`, shortest texts first.

    Texts of equal length always share calls; each group of consecutive distinct lengths is cut
    into ⌈rows / max_rows⌉ calls padded to the group's longest text.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows must be >= 1, got {max_rows}")
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    runs = [(length, len(list(members))) for length, members in groupby(lengths[i] for i in order)]
    cuts = _cheapest_cuts(runs, max_rows, call_overhead)
    batches: list[list[int]] = []
    start = 0
    for first, last in cuts:
        rows = sum(count for _, count in runs[first : last + 1])
        group = order[start : start + rows]
        batches.extend(group[i : i + max_rows] for i in range(0, rows, max_rows))
        start += rows
    return batches


def _cheapest_cuts(runs: Sequence[tuple[int, int]], max_rows: int, call_overhead: int) -> list[tuple[int, int]]:
    """The partition of the runs (first, last run index) with the least overhead + padded tokens."""
    best = [0.0] + [float("inf")] * len(runs)
    cut_at = [0] * (len(runs) + 1)
    for end in range(1, len(runs) + 1):
        width = runs[end - 1][0]
        rows = 0
        for begin in range(end, 0, -1):
            rows += runs[begin - 1][1]
            calls = -(-rows // max_rows)
            cost = best[begin - 1] + calls * call_overhead + rows * width
            if cost < best[end]:
                best[end], cut_at[end] = cost, begin - 1
    cuts: list[tuple[int, int]] = []
    end = len(runs)
    while end > 0:
        cuts.append((cut_at[end], end - 1))
        end = cut_at[end]
    return cuts[::-1]
