"""What one rule found in one sentence, before the extractor turns it into a `Claim`.

Rules only say what was asserted (attribute, value, a readable text, how much it matters);
the extractor adds what every claim needs the same way (topic, half-life, dates, framing).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from beliefs.records import MemoryType, Polarity, RecallSemantics, Turn
from reading.markup import without_markup


@dataclass(frozen=True)
class Subject:
    """Who the memory is about: the user, or the named speaker of a multi-party chat."""

    entity: str
    name: str

    @property
    def possessive(self) -> str:
        return f"{self.name}'" if self.name.endswith("s") else f"{self.name}'s"

    @classmethod
    def of(cls, turn: Turn) -> Subject:
        speaker = without_markup(turn.speaker) if turn.speaker else None  # a tag is never anyone's name
        return cls(speaker, speaker) if speaker else cls("user", "User")


@dataclass(frozen=True)
class Finding:
    """One claim a rule read from a sentence; `span` is where its evidence sits in the sentence."""

    text: str
    type: MemoryType
    importance: float
    attribute: str | None = None
    value: str | None = None
    confidence: float = 0.9
    context: str | None = None
    recall_semantics: RecallSemantics = RecallSemantics.DEFAULT
    trigger: dict[str, str] | None = field(default=None, hash=False)
    is_correction: bool = False
    topic: str | None = None
    expires_at: datetime | None = None
    polarity: Polarity = Polarity.POSITIVE
    entity: str | None = None  # who it is about when not the speaker (a relative, a team, a matter decided)
    profile: bool | None = None  # None: as the attribute registry says

    def but(self, **changes: object) -> Finding:
        """A copy with some fields changed."""
        return replace(self, **changes)  # type: ignore[arg-type]
