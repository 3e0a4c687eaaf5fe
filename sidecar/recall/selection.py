"""What selection works on and returns: an `Entry` per admitted memory, `Verdicts` while `select`
runs, the `Selection` it hands on (to quotes, the merged budget and the response body).

An entry's tier decides its place before its score: fired constraints (`CONSTRAINT`), then the
profile block (`PROFILE`), then the rest by `recall_score` (`RANKED`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from beliefs.episodes import Episode
from beliefs.records import Memory
from sidecar.recall import policy
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.scoring import Score
from sinks.recall import OpenContest

CONSTRAINT, PROFILE, RANKED = 0, 1, 2


@dataclass(slots=True)
class Entry:
    memory: Memory
    tier: int
    reasons: list[str]
    relevance: float = 0.0
    score: Score = Score(0.0, 0.0, 0.0, 0.0, 0.0)
    evidence: list[Episode] = field(default_factory=list)  # quotes of its turns (`carried_quotes`), oldest first
    neighbours: list[Episode] = field(default_factory=list)  # the turns around those quotes it may quote
    context: list[Episode] = field(default_factory=list)  # those quoted with it, within the budget (`evidence.merge`)

    def rank_key(self) -> tuple:
        return (self.tier, -self.score.value, self.memory.id)

    def tokens(self) -> int:
        """Of its text and the neighbouring turns quoted with it; its carried quotes cost nothing."""
        return estimate_tokens(self.memory.text) + sum(estimate_tokens(e.text) for e in self.context)


@dataclass(frozen=True)
class Selection:
    chosen: list[Entry]  # prompt order
    conflicts: list[policy.Conflict]
    contests: list[OpenContest] = field(default_factory=list)
    suppressed: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    tokens_used: int = 0
    dropped_stale: int = 0  # hydrated rows that failed the re-check (never listed: maybe not the caller's)
    confirmations: list[tuple[Memory, str]] = field(default_factory=list)  # (constraint, live instruction)
    now: datetime | None = None


@dataclass
class Verdicts:
    """Each memory's standing while `select` runs: admitted as an entry, or suppressed with a reason.

    A memory is in at most one of the two maps; admitting one clears its suppression and suppressing
    one drops its entry. `suppressed` keeps the order of suppression (the diagnostics list it so).
    """

    entries: dict[str, Entry] = field(default_factory=dict)
    suppressed: dict[str, str] = field(default_factory=dict)

    def admit(self, entry: Entry) -> None:
        self.suppressed.pop(entry.memory.id, None)
        self.entries[entry.memory.id] = entry

    def suppress(self, memory_id: str, why: str) -> Entry | None:
        """Suppress `memory_id`; its entry, if it had one."""
        self.suppressed[memory_id] = why
        return self.entries.pop(memory_id, None)

    def ranked(self) -> list[Entry]:
        return sorted(self.entries.values(), key=Entry.rank_key)
