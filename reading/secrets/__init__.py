"""Redact secrets before a turn can become a claim, and before any write keeps a text.

A memory store is read back into prompts, logs and vector payloads; a secret that reaches it
leaks everywhere at once. Three finders, each behind a cheap gate, return spans: secrets of a
recognisable shape (`keys`: vendor-prefixed API keys, key blocks, tokens, connection strings),
validated numbers (`numbers`: cards, IBANs, SSNs) and secrets introduced by words (`prose`).
Overlapping spans merge; each becomes `[REDACTED:<kind>]`, the words that introduced it kept.
"""

from __future__ import annotations

from reading.secrets.keys import key_spans
from reading.secrets.numbers import number_spans
from reading.secrets.prose import prose_spans
from reading.secrets.spans import REDACTION_PREFIX, inside_marker, merged, redacted

__all__ = ["REDACTION_PREFIX", "contains_secret", "redact_secrets"]


def _spans(text: str):
    found = [*key_spans(text), *number_spans(text), *prose_spans(text)]
    if REDACTION_PREFIX in text:  # already redacted: a marker is not a secret
        found = [span for span in found if not inside_marker(text, span.start)]
    return merged(found)


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """The text with each secret replaced by `[REDACTED:<kind>]`, and the kinds found, in order."""
    spans = _spans(text)
    if not spans:
        return text, []
    kinds = list(dict.fromkeys(span.kind for span in spans))
    return redacted(text, spans), kinds


def contains_secret(text: str) -> bool:
    """Whether the text holds any secret redact_secrets would remove."""
    return bool(_spans(text))
