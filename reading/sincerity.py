"""Whether a turn says what it means: its frame, read for a quote as the extractor reads it for a claim.

A quote carries the confidence of what it claims. "If I were a lawyer…", "I'm actually a doctor, so
walk me through it", "Why would I ever go back to Windows?" and "Sure, I'm a world-class chef" all
say something that is not true of the speaker, so their turn is no more trusted as evidence than the
claim the extractor would make of it (`HYPOTHETICAL_CONFIDENCE_CAP`). The readings are the
extractor's own (`reading.extract.framing`, `reading.extract.speech_act`): one list of markers for
beliefs and quotes, over the same text: quotations read as one phrase (`reading.quotation.masked`),
stock sarcasm as the extractor's junk check finds it. A turn is read sentence by sentence; the first insincere sentence frames the turn
(the rest of it is said in that breath: "Yeah, that was a brilliant idea. I'll do it every weekend."). Pure.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum

from beliefs.confidence import HYPOTHETICAL_CONFIDENCE_CAP
from reading import junk, quotation
from reading.extract import speech_act
from reading.extract.framing import Frame, frame_of
from reading.extract.text import sentence_spans


class Sincerity(StrEnum):
    SINCERE = "sincere"
    HYPOTHETICAL = "hypothetical"  # a counterfactual, supposition or roleplay
    RHETORICAL = "rhetorical"  # a credential used as leverage, a question asked to deny
    SARCASTIC = "sarcastic"


@dataclass(frozen=True, slots=True)
class Reading:
    """How a turn is said, the sentence that shows it, and the most its words may be trusted."""

    sincerity: Sincerity
    sentence: str | None = None

    @property
    def confidence_cap(self) -> float:
        return 1.0 if self.sincerity is Sincerity.SINCERE else HYPOTHETICAL_CONFIDENCE_CAP

    def describe(self) -> str:
        return f"{self.sincerity.value}: {self.sentence!r}" if self.sentence else self.sincerity.value


SINCERE = Reading(Sincerity.SINCERE)


def sentence_sincerity(sentence: str, following: str = "") -> Sincerity:
    """The frame of one sentence (`following`: the next one, where a credential's leverage may sit)."""
    if speech_act.is_sarcasm(sentence) or junk.is_sarcastic(sentence):  # the extractor skips both
        return Sincerity.SARCASTIC
    if speech_act.is_rhetorical(sentence):
        return Sincerity.RHETORICAL
    if frame_of(sentence, following).frame is Frame.HYPOTHETICAL:
        leverage = speech_act.is_leverage(sentence) or speech_act.is_leverage(f"{sentence} {following}".strip())
        return Sincerity.RHETORICAL if leverage else Sincerity.HYPOTHETICAL
    return Sincerity.SINCERE


@functools.lru_cache(maxsize=4096)
def sincerity_of(text: str) -> Reading:
    """How a turn is said: its first insincere sentence frames it, else it is sincere (remembered: a
    user's turns recur across recalls, and each is read with a few regexes per sentence)."""
    text = quotation.masked(text or "").text  # quoted words are a phrase of the sentence, as the extractor reads them
    spans = list(sentence_spans(text))
    for index, (left, right) in enumerate(spans):
        sentence = text[left:right].strip()
        following = text[slice(*spans[index + 1])].strip() if index + 1 < len(spans) else ""
        found = sentence_sincerity(sentence, following)
        if found is not Sincerity.SINCERE:
            return Reading(found, sentence)
    return SINCERE
