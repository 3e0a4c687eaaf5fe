"""`Quotes`: the scored episodes of one recall, with what the query named (a speaker, dates).

The service scores the hydrated episodes once (`episodes.judge_episodes`); a quote never shows what
policy withheld from the beliefs (`Quotes.without_sensitive`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sidecar.recall.episodes import EpisodeVerdicts
from sidecar.recall.query_dates import Window


@dataclass(frozen=True)
class Quotes:
    """The scored episodes of one recall, and what the query named (a speaker, dates)."""

    verdicts: EpisodeVerdicts
    named: frozenset[str]
    window: Window | None

    @property
    def entries(self):
        return self.verdicts.entries

    @property
    def suppressed(self) -> list[tuple[str, str]]:
        return self.verdicts.suppressed

    @property
    def labelled(self) -> list[tuple[str, str]]:
        return self.verdicts.labelled

    def without_sensitive(self, suppressed: Sequence[tuple[str, str]]) -> Quotes:
        """A quote never shows what policy withheld: an episode whose belief was suppressed as
        sensitive outside the request's domain is suppressed with it."""
        withheld = {memory_id for memory_id, why in suppressed if why.startswith("sensitive")}
        if not withheld:
            return self
        kept, dropped = [], []
        for entry in self.verdicts.entries:
            if withheld.intersection(entry.episode.memory_ids):
                dropped.append((entry.episode.id, "its belief is sensitive outside this request's domain"))
            else:
                kept.append(entry)
        verdicts = replace(self.verdicts, entries=kept, suppressed=[*self.verdicts.suppressed, *dropped])
        return replace(self, verdicts=verdicts)
