"""Remove injected memory blocks before anything reads a turn.

An assistant that was given recalled memories may echo them back; storing them again would
make the store remember its own prompt (recursive memory). Every known block form is cut:
closed, nested, or opened and never closed (then everything to the end goes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from agents.errors import StripPatternError

#: The tag the recall sidecar renders recalled memories in.
RECALL_BLOCK_TAG = "beliefstream-memories"

_TAGS = f"relevant-memories|{RECALL_BLOCK_TAG}|memories|memory"
_FLAGS = re.IGNORECASE | re.DOTALL
# innermost block first: the body may not open another block of the family
_CLOSED_BLOCK = re.compile(rf"<({_TAGS})\b[^>]*>(?:(?!<(?:{_TAGS})\b).)*?</\1\s*>", _FLAGS)
_UNCLOSED_BLOCK = re.compile(rf"<(?:{_TAGS})\b[^>]*>.*\Z", _FLAGS)
_STRAY_CLOSE = re.compile(rf"</(?:{_TAGS})\s*>", _FLAGS)
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_AROUND_NEWLINE = re.compile(r"[ \t]*\n[ \t]*")
_BLANK_LINES = re.compile(r"\n{3,}")


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


def strip_injected(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """The turn text without injected memory blocks; untouched when there is none."""
    extra = _compiled(tuple(extra_patterns))
    if "<" not in text and not extra:
        return text
    stripped = text
    if "<" in stripped:
        while True:
            stripped, count = _CLOSED_BLOCK.subn(" ", stripped)
            if not count:
                break
        stripped = _UNCLOSED_BLOCK.sub(" ", stripped)
        stripped = _STRAY_CLOSE.sub(" ", stripped)
    for pattern in extra:
        stripped = pattern.sub(" ", stripped)
    return text if stripped == text else _collapse(stripped)
