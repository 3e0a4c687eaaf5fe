"""An episode's vector from the vectors of its two lines: its own, and the turn before it.

An episode is embedded as two lines (`reading.episode_text.EpisodeLines`: `speaker: turn` and the
previous turn's line in its session). Each line is embedded alone and the episode's vector is the
normalised sum of its own line's vector and the previous line's; without a previous line, its own.
A line is the same text whether it is a turn's own or the next turn's context, so within one model
call (which embeds each distinct text once) every turn costs the model one short text, instead of
one text twice as long that joins both lines.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reading.episode_text import EpisodeLines


def line_texts(lines: Sequence[EpisodeLines]) -> list[str]:
    """What to embed for `lines`: every own line, then every previous line there is, in order
    (a previous line is usually also the own line of the turn before: embed distinct texts once)."""
    return [line.own for line in lines] + [line.previous for line in lines if line.previous is not None]


def episode_vectors(lines: Sequence[EpisodeLines], vectors: np.ndarray) -> np.ndarray:
    """The vector of each episode from `vectors`, the rows of `line_texts(lines)` (unit length)."""
    own = np.asarray(vectors[: len(lines)], dtype=np.float32)
    if len(vectors) != len(line_texts(lines)):
        raise ValueError(f"expected {len(line_texts(lines))} line vectors, got {len(vectors)}")
    out = own.copy()
    with_previous = [i for i, line in enumerate(lines) if line.previous is not None]
    out[with_previous] += np.asarray(vectors[len(lines) :], dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.clip(norms, 1e-12, None)
