"""An episode's vector, made one of two ways (`Settings.episode_vector`).

An episode is said with the turn before it in its session (`reading.episode_text`):
- `joined` (the default): the two lines joined in one text (`speaker: end of previous turn` then
  `speaker: turn`), embedded as one text.
- `line_sum`: each line embedded alone and the episode's vector the normalised sum of its own
  line's vector and the previous line's; without a previous line, its own. A line is the same text
  whether it is a turn's own or the next turn's context, so within one model call (which embeds each
  distinct text once) every turn costs the model one short text instead of one twice as long. It
  costs recall quality (docs/benchmarks.md, Ingest), hence not the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np

from beliefs.episodes import Episode
from reading.episode_text import EpisodeLines, SessionTails

EpisodeVector = Literal["joined", "line_sum"]
EPISODE_VECTORS: tuple[str, ...] = get_args(EpisodeVector)


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


@dataclass(frozen=True)
class EpisodeTexts:
    """What one model call embeds for some episodes (`texts`) and their vectors from its rows
    (`vectors`), the way `mode` says. `of` reads the session tails once (it moves them on)."""

    mode: EpisodeVector
    joined: list[str]
    lines: list[EpisodeLines]

    @classmethod
    def of(cls, episodes: Sequence[Episode | None], tails: SessionTails, mode: str = "joined") -> EpisodeTexts:
        """The texts of `episodes` (None skipped), each seeing the one before it in its session."""
        if mode == "joined":
            return cls("joined", tails.texts(episodes), [])
        if mode == "line_sum":
            return cls("line_sum", [], tails.lines(episodes))
        raise ValueError(f"episode vector must be one of {', '.join(EPISODE_VECTORS)}, got {mode!r}")

    def texts(self) -> list[str]:
        return list(self.joined) if self.mode == "joined" else line_texts(self.lines)

    def vectors(self, rows: np.ndarray) -> np.ndarray:
        """Each episode's vector (float32, unit length) from `rows`, the model's vectors of `texts()`."""
        if self.mode == "line_sum":
            return episode_vectors(self.lines, rows)
        if len(rows) != len(self.joined):
            raise ValueError(f"expected {len(self.joined)} episode vectors, got {len(rows)}")
        return np.asarray(rows, dtype=np.float32)
