"""A live instruction in the request (`live_intent`: name → value), read for the stored defaults it sets.

`LiveIntent` decides by the words of the instruction and the vocabulary of the extractor (an
attribute it sets, a content word it shares with a default); `sidecar.recall.meaning` adds what only
meaning tells (a default near the instruction though no word is shared). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from beliefs.reconcile import normalize_value
from beliefs.records import Memory, MemoryType, Polarity, RecallSemantics
from reading.extract.instruction import answer_slots
from sidecar.recall.sensitivity_gate import is_safety_memory
from sidecar.recall.spoken_intent import REQUEST_WORDS, one_off_instruction, says_a_default

_TOKEN = re.compile(r"[a-z0-9]+")

_STOP_TERMS = frozenset(
    "the and for with from that this than then them they their you your yours our ours his her hers its "
    "are was were been being have has had not but all any some one can could would should will just also very "
    "really always usually never ever please want wants like likes prefer prefers love loves use uses user "
    "today tonight now time thing things something give make keep get set more less much only even".split()
)  # fmt: skip


def terms(text: str) -> frozenset[str]:
    """The content words of `text`, folded to a crude stem ("hotels" → "hotel", "jokey" → "joke"): how a
    live instruction and a stored default are seen to speak of the same thing."""
    found = set()
    for word in _TOKEN.findall(text.casefold().replace("_", " ")):
        if len(word) < 3 or word in _STOP_TERMS or word.isdigit():
            continue
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            word = word[:-1]
        if word.endswith("y") and len(word) > 4:
            word = word[:-1]
        found.add(word)
    return frozenset(found)


@dataclass(frozen=True)
class LiveIntent:
    """What the user just asked for (`live_intent`: attribute → value), read for meaning.

    A stored default yields to it when it sets the default's attribute (named, or read from its words
    by the extractor's vocabulary: "tone: casual" sets `communication_style`), or when the two speak of the
    same thing: a shared content word of the instruction's name or value and the default's attribute,
    value or text ("seat: aisle" and "prefers window seats"; "hotel_location" and "likes hotels in the
    old town"). Only defaults yield (preferences and procedures, or a value of the very attribute set):
    a fact of the user's life, a safety fact and a constraint never do.
    """

    attributes: frozenset[str] = frozenset()
    entries: tuple[tuple[str, str, frozenset[str]], ...] = ()
    setters: tuple[tuple[str, tuple[str, str]], ...] = ()  # attribute → the (name, value) that sets it
    spoken: tuple[str, frozenset[str]] | None = None  # the query's one-off instruction and its content words

    @classmethod
    def of_request(cls, live_intent: Mapping[str, str], query: str) -> LiveIntent:
        """The caller's `live_intent`; without one, the one-off instruction the query says (`spoken_intent`)."""
        if live_intent:
            return cls.of(live_intent)
        sentence = one_off_instruction(query)
        if sentence is None:
            return cls()
        return cls(spoken=(sentence, terms(sentence) - REQUEST_WORDS))

    @classmethod
    def of(cls, live_intent: Mapping[str, str]) -> LiveIntent:
        # `context` names the context a request speaks in (`named_contexts`), not a value it sets
        setting = {name: value for name, value in live_intent.items() if normalize_value(name) != "context"}
        entries = tuple((name, value, terms(f"{name} {value}")) for name, value in setting.items())
        setters = {
            normalize_value(slot): (name, value)
            for name, value in setting.items()
            for slot in answer_slots(f"{name} {value}")
        }
        setters |= {normalize_value(name): (name, value) for name, value in live_intent.items()}
        return cls(frozenset(setters), entries, tuple(setters.items()))

    def __bool__(self) -> bool:
        return bool(self.attributes) or self.spoken is not None

    def overrides(self, memory: Memory) -> str | None:
        """The live instruction that overrides stored default `memory`, described, else None."""
        if not self or memory.recall_semantics is RecallSemantics.CONSTRAINT:
            return None
        if memory.polarity is Polarity.NEGATIVE or is_safety_memory(memory):
            return None
        if self.spoken is not None:
            is_default = memory.type in (MemoryType.PREFERENCE, MemoryType.PROCEDURE) or says_a_default(memory.text)
            return self._spoken_over(memory.text) if is_default else None
        if memory.attribute and normalize_value(memory.attribute) in self.attributes:
            name, value = dict(self.setters)[normalize_value(memory.attribute)]
            return f"live intent sets {memory.attribute}: {name}={value!r}"
        if memory.type not in (MemoryType.PREFERENCE, MemoryType.PROCEDURE) and not says_a_default(memory.text):
            return None
        said = terms(" ".join(filter(None, (memory.attribute, memory.value, memory.text))))
        return self._shared(said)

    def overrides_quote(self, text: str) -> str | None:
        """A quote's words share the instruction's name ("seat", "units"); its value only when the quote
        states a default (`says_a_default`: "Sign my emails as Dr. Kwame Osei"), since any other quote may
        say anything beside it ("I'm Kwame" is no stored sign-off)."""
        if self.spoken is not None:
            return self._spoken_over(text) if says_a_default(text) else None
        said = terms(text)
        default = says_a_default(text)  # a habit or standing instruction is matched on the value too
        for name, value, wanted in self.entries:
            shared = (wanted if default else terms(name)) & said
            if shared:
                return f"live_intent: {name}={value!r} speaks of {', '.join(sorted(shared))}"
        return None

    def _spoken_over(self, text: str) -> str | None:
        sentence, wanted = self.spoken or ("", frozenset())
        shared = wanted & terms(text)
        return f"the query's one-off instruction {sentence!r} speaks of {', '.join(sorted(shared))}" if shared else None

    def _shared(self, said: frozenset[str]) -> str | None:
        for name, value, wanted in self.entries:
            shared = wanted & said
            if shared:
                return f"live_intent: {name}={value!r} speaks of {', '.join(sorted(shared))}"
        return None


def live_intent_attributes(live_intent: Mapping[str, str]) -> LiveIntent:
    """The live instruction as `yields_to_live_intent` reads it."""
    return LiveIntent.of(live_intent)


def yields_to_live_intent(memory: Memory, live: LiveIntent) -> bool:
    """A stored default the live instruction overrides (`LiveIntent.overrides`); constraints never yield silently."""
    return live.overrides(memory) is not None
