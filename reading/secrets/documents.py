"""Redact secrets in a raw record: every string of a JSON document, or the text when it is not JSON.

A rejected record is kept on the DLQ for an operator to read, so it must not keep what the write
path would never store. Redacting the JSON text as a whole would miss a secret written with
escapes (`"\\u0034111 1111 1111 1111"`) or split by them; each string of the parsed document
(keys included) is redacted as the text it stands for, and the document written back as JSON. A
value that does not parse (cut short, not JSON, too deep, a number too long to read) is redacted as
the text it spells, its `\\uXXXX` escapes decoded first.
"""

from __future__ import annotations

import json
import re
from typing import Any

from reading.secrets import redact_secrets


def redact_document(raw: str) -> tuple[str, list[str]]:
    """`raw` with each secret replaced by `[REDACTED:<kind>]`, and the kinds found, in order."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        return _redacted_text(raw)
    kinds: list[str] = []
    try:
        cleaned = _walk(document, kinds)
    except RecursionError:  # parsed, but deeper than a walk may go: redact the text instead
        return _redacted_text(raw)
    if not kinds:
        return raw, []  # nothing found: the record as it came, byte for byte
    return json.dumps(cleaned, ensure_ascii=True), list(dict.fromkeys(kinds))


def _walk(value: Any, kinds: list[str]) -> Any:
    if isinstance(value, str):
        text, found = redact_secrets(value)
        kinds.extend(found)
        return text
    if isinstance(value, list):
        return [_walk(item, kinds) for item in value]
    if isinstance(value, dict):
        return {_walk(key, kinds): _walk(item, kinds) for key, item in value.items()}
    return value


#: A JSON `\\uXXXX` escape outside the surrogates (a lone surrogate could not be written back out).
_ESCAPE = re.compile(r"\\u(?![dD][89a-fA-F])([0-9a-fA-F]{4})")


def _redacted_text(raw: str) -> tuple[str, list[str]]:
    """A value read as text: redacted when it holds a secret, else as it came."""
    text, kinds = redact_secrets(_unescaped(raw))
    return (text, kinds) if kinds else (raw, [])


def _unescaped(raw: str) -> str:
    """A value that is not a JSON document (cut short, malformed) read as the text it spells: its
    `\\uXXXX` escapes decoded, so a secret written with them is found like any other."""
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), raw) if "\\u" in raw else raw
