"""Greedy cosine clustering of memory embeddings. Pure: arrays in, groups of indices out.

Seeds are taken in the caller's order (most important first); each seed gathers every later,
still unassigned memory whose cosine similarity to the seed reaches the threshold and that is
`compatible` with every member gathered so far, most similar first. Comparing to the seed, not
to the last member added, keeps a chain of small steps from drifting into an unrelated topic.
Similarities are computed one block of seeds at a time, so 10,000 memories never need the full
10,000 × 10,000 matrix at once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.consolidate.errors import InvalidThresholdError

#: Seeds whose similarities are computed in one matrix product.
BLOCK = 512

Compatible = Callable[[int, int], bool]


def check_threshold(threshold: float) -> float:
    if not 0.0 < threshold <= 1.0:
        raise InvalidThresholdError(f"similarity threshold must be in (0, 1], got {threshold}")
    return float(threshold)


def normalized(embeddings: np.ndarray) -> np.ndarray:
    """Rows at unit length (cosine = dot product); an all-zero row stays zero and matches nothing."""
    matrix = np.asarray(embeddings, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def cluster(
    embeddings: np.ndarray,
    threshold: float = 0.85,
    compatible: Compatible | None = None,
    block: int = BLOCK,
) -> list[list[int]]:
    """Groups (of at least two indices, seed first) of near-duplicate rows of `embeddings`."""
    check_threshold(threshold)
    vectors = normalized(embeddings)
    count = len(vectors)
    assigned = np.zeros(count, dtype=bool)
    groups: list[list[int]] = []
    for start in range(0, count, block):
        stop = min(start + block, count)
        sims = vectors[start:stop] @ vectors[start:].T  # seeds of this block against every later row
        for seed in range(start, stop):
            if assigned[seed]:
                continue
            assigned[seed] = True
            row = sims[seed - start, seed - start + 1 :]
            near = np.flatnonzero((row >= threshold) & ~assigned[seed + 1 :]) + seed + 1
            group = [seed]
            for candidate in near[np.argsort(-row[near - seed - 1], kind="stable")]:
                if compatible is None or all(compatible(member, int(candidate)) for member in group):
                    group.append(int(candidate))
            if len(group) > 1:
                assigned[group] = True
                groups.append(group)
    return groups


def min_similarity(embeddings: np.ndarray, group: list[int]) -> float:
    """The lowest pairwise cosine similarity inside a group (how loose the merge is)."""
    vectors = normalized(embeddings[group])
    sims = vectors @ vectors.T
    return float(sims[np.triu_indices(len(group), k=1)].min()) if len(group) > 1 else 1.0
