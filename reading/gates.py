"""Substring gates: a cheap test in front of an expensive regex.

When every alternative of a regex contains one of a few lowercase literals, a text that contains
none of them cannot match, and most texts contain none, so the regex runs only where it could.
Used before the secret patterns (`reading.secrets`), the sarcasm pattern (`reading.junk`) and the
framing patterns (`reading.extract.framing`); `tests/reading/test_regex_gates.py` proves the sarcasm
and framing gates open wherever their regexes match.
"""

from __future__ import annotations


def contains_any(text: str, words: tuple[str, ...]) -> bool:
    """Whether `text`, lowercased, contains one of `words` (lowercase literals)."""
    return any(map(text.lower().__contains__, words))  # no Python frame per word: the gates run per sentence
