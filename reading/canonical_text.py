"""One canonical form of a text for the safety checks: what a reader sees, not how it was typed.

An injected block or instruction hides from a pattern behind full-width brackets, a zero-width
character inside a word, HTML escaping or odd spacing; each is undone here, the same way for the
strip (`reading.strip`) and the provenance classifier (`reading.provenance`).
"""

from __future__ import annotations

import html
import re
import unicodedata

#: Invisible characters that split a word without showing: zero-width space/joiners, word joiner,
#: BOM, soft hyphen, Mongolian vowel separator, invisible operators, bidi marks and overrides.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
# brackets NFKC leaves alone but a reader takes for < > [ ]
_BRACKETS = str.maketrans({"\u3008": "<", "\u3009": ">", "\u300a": "<", "\u300b": ">", "\u2039": "<",
                           "\u203a": ">", "\u3010": "[", "\u3011": "]", "\u3014": "[", "\u3015": "]",
                           "\u3016": "[", "\u3017": "]", "\u27e8": "<", "\u27e9": ">"})  # fmt: skip
_SPACES = re.compile(r"[^\S\n]+")
_ESCAPED = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")


def normalise(text: str) -> str:
    """NFKC, invisible characters removed, HTML entities unescaped (twice: `&amp;lt;`), spaces
    collapsed (newlines kept: they carry structure)."""
    text = unicodedata.normalize("NFKC", text).translate(_BRACKETS)
    text = _INVISIBLE.sub("", text)
    for _ in range(2):
        if not _ESCAPED.search(text):
            break
        text = html.unescape(text)
    return _SPACES.sub(" ", text)


def needs_normalising(text: str) -> bool:
    """Whether `normalise` could change anything but spacing (most texts are plain ASCII)."""
    return not text.isascii() or "&" in text
