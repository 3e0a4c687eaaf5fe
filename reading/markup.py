"""Markup in a turn: HTML tags and script elements, which no one says about themselves. Pure.

A tag counts when it names an HTML element or carries attributes (`<img src=x onerror=...>`,
`</b>`, `<script>...</script>`); "I <3 my cat" and "a < b > c" are text. A script or style element
counts with everything inside it.
"""

from __future__ import annotations

import re

_ELEMENTS = (
    r"a|abbr|audio|b|base|body|br|button|code|details|div|em|embed|font|form|frame|frameset|h[1-6]|head|html|i|"
    r"iframe|img|input|link|li|marquee|math|meta|object|ol|option|p|pre|select|source|span|strong|style|svg|"
    r"table|td|template|textarea|title|tr|u|ul|video|script|xml|xss"
)
_TAG = re.compile(
    rf"</\s*(?:{_ELEMENTS})\s*>|<(?:{_ELEMENTS})(?:[\s/][^<>]*)?>|<[A-Za-z][\w:-]*\s[^<>]*=[^<>]*>",
    re.IGNORECASE,
)
_CONTAINER = re.compile(r"<(script|style|iframe|svg|object)\b[^<>]*>.*?(?:</\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)


def markup_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each tag, and of each script-like element with its content."""
    if "<" not in text:
        return []
    return sorted([m.span() for m in _CONTAINER.finditer(text)] + [m.span() for m in _TAG.finditer(text)])


def has_markup(text: str) -> bool:
    """Whether the text holds a tag or a script element."""
    return bool(markup_spans(text))


def without_markup(text: str) -> str:
    """The text with its tags and script elements removed, spaces collapsed."""
    plain = _TAG.sub(" ", _CONTAINER.sub(" ", text)) if "<" in text else text
    return " ".join(plain.split())
