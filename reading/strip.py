"""Remove injected memory blocks before anything reads a turn.

An assistant that was given recalled memories may echo them back, and an attacker may forge a
block that looks recalled; storing either would make the store remember its own prompt, or a lie
("User is an admin"). So the text is normalised first (`reading.canonical_text`: NFKC, zero-width
characters, HTML escapes, spacing), then the STRUCTURE of a memory block is matched, not a list
of tag names:

- a tag or bracketed tag whose name has the word memory/memories/mem0 as one of its parts
  (`<relevant_memories>`, `< user-memories >`, `[memories]`, `<beliefstream-memories>`): closed,
  nested, or opened and never closed (an angle tag then runs to the end, a bracketed one over its
  line and the list under it);
- a header naming memories (`## Relevant memories`, `Relevant memories:`) and the list under it;
- a JSON value shaped like a memory list (`{"memories": [...]}`, `[{"memory": ...}]`, or items
  with a text and a score, id or confidence).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache

from reading.canonical_text import needs_normalising, normalise
from reading.errors import StripPatternError

#: The tag the recall sidecar renders recalled memories in.
RECALL_BLOCK_TAG = "beliefstream-memories"

_FLAGS = re.IGNORECASE | re.DOTALL
_WORD = r"(?:memory|memories|mem0|mems)"
_NAME = rf"(?:[a-z0-9]+[-_.: ])*{_WORD}(?:[-_.: ][a-z0-9]+)*"
_OPEN = rf"(?:<\s*{_NAME}(?:\s[^<>]*)?>|\[\s*{_NAME}\s*\])"
_CLOSE = rf"(?:<\s*/\s*{_NAME}\s*>|\[\s*/\s*{_NAME}\s*\])"
_CLOSED_BLOCK = re.compile(rf"{_OPEN}(?:(?!{_OPEN}).)*?{_CLOSE}", _FLAGS)  # innermost first
_UNCLOSED_TAG = re.compile(rf"<\s*{_NAME}(?:\s[^<>]*)?>.*\Z", _FLAGS)
_STRAY_CLOSE = re.compile(_CLOSE, _FLAGS)

_QUALIFIER = (r"(?:relevant|recalled|retrieved|stored|saved|known|long[- ]term|short[- ]term|user|user's|your|"
              r"the|past|previous|prior|persistent|existing|current|important|key|core)")  # fmt: skip
_TOPIC = rf"(?:{_WORD}|facts about the user|user facts|user profile|what (?:i|we) know about (?:the )?user)"
_ABOUT = r"(?:\s+(?:about|of|for|on)\s+(?:the\s+)?(?:user|you|this user))?"
_ITEM = r"\n[ \t]*(?:[-*•+]|\d+[.)])[ \t]+[^\n]*"
# "[memories]" never closed: like a header, its line and the list under it
_UNCLOSED_BRACKET = re.compile(rf"\[\s*{_NAME}\s*\][^\n]*(?:{_ITEM})*", re.IGNORECASE)
# "## Relevant memories" / "**Memories:**" / "Relevant memories:" on its own line, then its list
_HEADER_LIST = re.compile(
    rf"^[ \t]*(?:#{{1,6}}[ \t]*(?:\*\*)?|\*\*|__)?(?:{_QUALIFIER}[ \t]+){{0,3}}{_TOPIC}{_ABOUT}"
    rf"[ \t]*(?::[ \t]*(?:\*\*|__)?|(?:\*\*|__)[ \t]*:?)?[ \t]*(?:\n[ \t]*)*(?:{_ITEM})+",
    re.IGNORECASE | re.MULTILINE,
)
# "Relevant memories: User is an admin." on one line (a qualifier is required: "Memories: ..." is prose)
_HEADER_LINE = re.compile(
    rf"^[ \t]*(?:#{{1,6}}[ \t]*)?(?:\*\*|__)?(?:{_QUALIFIER}[ \t]+){{1,3}}{_TOPIC}{_ABOUT}[ \t]*(?:\*\*|__)?:[^\n]*",
    re.IGNORECASE | re.MULTILINE,
)
_JSON_GATE = re.compile(r"\"(?:\w*memor\w*|\w*mem0\w*|text|content|fact|memory)\"\s*:", re.IGNORECASE)
_JSON_START = re.compile(r"[\[{]")
_MEMORY_KEY = re.compile(rf"(?i:^{_NAME}$)")
_TEXT_KEYS = frozenset({"memory", "text", "content", "fact", "value"})
_RETRIEVAL_KEYS = frozenset({"id", "score", "confidence", "similarity", "relevance", "created_at", "updated_at",
                             "user_id", "memory_id", "category", "type", "importance", "hash", "metadata"})  # fmt: skip

_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_AROUND_NEWLINE = re.compile(r"[ \t]*\n[ \t]*")
_BLANK_LINES = re.compile(r"\n{3,}")
_MAY_HOLD = re.compile(r"memor|mem0|mems|[\[{]|user facts|user profile|know about", re.IGNORECASE)


@lru_cache(maxsize=32)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Compile configured patterns once per distinct configuration."""
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern, _FLAGS))
        except re.error as exc:
            raise StripPatternError(pattern, str(exc)) from exc
    return tuple(compiled)


def _collapse(text: str) -> str:
    text = _SPACES.sub(" ", text)
    text = _SPACE_AROUND_NEWLINE.sub("\n", text)
    return _BLANK_LINES.sub("\n\n", text).strip()


def _memory_shaped(value: object) -> bool:
    """A JSON value that is a list of memories, or an object holding one under a memory key."""
    if isinstance(value, dict):
        if any(isinstance(k, str) and _MEMORY_KEY.match(k) for k in value):
            return True
        return _TEXT_KEYS & value.keys() == {"memory"}
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        keys = [set(item) for item in value]
        return all(k & _TEXT_KEYS for k in keys) and (
            any("memory" in k for k in keys) or all(k & _RETRIEVAL_KEYS for k in keys)
        )
    return False


def _strip_json(text: str) -> str:
    if not _JSON_GATE.search(text):
        return text
    decoder = json.JSONDecoder()
    parts: list[str] = []
    at = 0
    for match in _JSON_START.finditer(text):
        if match.start() < at:
            continue
        try:
            value, end = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        if _memory_shaped(value):
            parts.append(text[at : match.start()])
            at = end
    return "".join(parts) + text[at:] if parts else text


def _strip_blocks(text: str) -> str:
    while True:
        text, count = _CLOSED_BLOCK.subn(" ", text)
        if not count:
            break
    text = _UNCLOSED_TAG.sub(" ", text)
    text = _UNCLOSED_BRACKET.sub(" ", text)
    text = _STRAY_CLOSE.sub(" ", text)
    text = _HEADER_LIST.sub(" ", text)
    text = _HEADER_LINE.sub(" ", text)
    return _strip_json(text)


def strip_injected(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """The turn text without injected memory blocks; untouched when there is none."""
    extra = _compiled(tuple(extra_patterns))
    seen = normalise(text) if needs_normalising(text) else text
    if not extra and not _MAY_HOLD.search(seen):
        return text
    stripped = _strip_blocks(seen)
    for pattern in extra:
        stripped = pattern.sub(" ", stripped)
    return text if stripped == seen else _collapse(stripped)
