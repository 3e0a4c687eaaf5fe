"""A found secret as a span of the text, and how overlapping finds become one redaction."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: The marker a redacted secret leaves behind: `[REDACTED:<kind>]`.
REDACTION_PREFIX = "[REDACTED:"


@dataclass(frozen=True, order=True)
class Span:
    """Characters `start:end` of the text hold a secret of `kind`."""

    start: int
    end: int
    kind: str


def merged(spans: Iterable[Span]) -> list[Span]:
    """Overlapping spans as one, named by the longest of them; in text order."""
    result: list[Span] = []
    longest: dict[int, int] = {}
    for span in sorted(spans):
        if result and span.start < result[-1].end:
            last = result[-1]
            kind = span.kind if span.end - span.start > longest[len(result) - 1] else last.kind
            longest[len(result) - 1] = max(longest[len(result) - 1], span.end - span.start)
            result[-1] = Span(last.start, max(last.end, span.end), kind)
        else:
            longest[len(result)] = span.end - span.start
            result.append(span)
    return result


def redacted(text: str, spans: list[Span]) -> str:
    """The text with each span replaced by its marker."""
    parts: list[str] = []
    at = 0
    for span in spans:
        parts.append(text[at : span.start])
        parts.append(f"{REDACTION_PREFIX}{span.kind}]")
        at = span.end
    parts.append(text[at:])
    return "".join(parts)


def inside_marker(text: str, start: int) -> bool:
    """Whether `start` is inside (or at) a marker an earlier redaction left."""
    opening = text.rfind(REDACTION_PREFIX, 0, start + 1)
    return opening >= 0 and text.find("]", opening) >= start
