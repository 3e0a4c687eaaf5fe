"""Every bound on an input field, in one place, and the pure checks that enforce them.

A turn arrives over Kafka (`reading.decode`) or HTTP (`sidecar.schemas`); both refuse the same
things with the same words, so a turn the sidecar accepts is never one the pipeline rejects.
Checks walk values iteratively: a value nested 100k levels deep is refused, never recursed into.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

#: Turn, tenant, user, agent, session and memory ids, and idempotency keys.
MAX_ID_LENGTH = 256
#: `metadata.speaker`: a person's name or handle, which becomes part of memory texts.
MAX_SPEAKER_CHARS = 128
#: `metadata` as compact JSON.
MAX_METADATA_BYTES = 16 * 1024
#: Nesting of `metadata`: `{"a": {"b": 1}}` is depth 2.
MAX_METADATA_DEPTH = 8
#: Keys and list items in `metadata`, counted over every level.
MAX_METADATA_ITEMS = 1000
#: Turns in one `POST /v1/retain` body.
MAX_TURNS_PER_REQUEST = 1000
#: A memory's text (one or two sentences) and a structured value.
MAX_MEMORY_TEXT_CHARS = 2000
#: The evidence span of a memory.
MAX_EVIDENCE_CHARS = 4000
#: A topic name.
MAX_TOPIC_CHARS = 64
#: Structured names: entity, attribute, context.
MAX_NAME_LENGTH = 256
#: Source turn ids of one memory.
MAX_SOURCE_TURN_IDS = 100
#: Entries of a constraint's trigger, and the length of each key and value.
MAX_TRIGGER_ITEMS = 8
MAX_TRIGGER_CHARS = 128


@dataclass(frozen=True)
class Violation:
    """Why a value is refused: a stable snake_case reason and a message that names the place."""

    reason: str
    detail: str


def _bad_char(text: str) -> str | None:
    """The first character no store can keep: a lone surrogate (not Unicode text) or NUL."""
    for index, char in enumerate(text):
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            return f"a lone surrogate (\\u{code:04x}) at character {index}, which is not valid Unicode text"
        if code == 0:
            return f"a NUL character (\\u0000) at character {index}"
    return None


def _needs_char_scan(text: str) -> bool:
    # a str is UTF-8 encodable exactly when it has no lone surrogate; NUL is checked separately
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def text_violation(text: str, where: str) -> Violation | None:
    """A lone surrogate or a NUL in `text`, named by its place (`text`, `metadata.speaker`)."""
    if not _needs_char_scan(text):
        return None
    problem = _bad_char(text)
    return Violation("invalid_text", f"{where} contains {problem}") if problem else None


def unencodable_violation(value: Any, where: str) -> Violation | None:
    """The first string (key or value) anywhere in `value` that `text_violation` refuses.

    The walk is iterative and stops at `MAX_METADATA_DEPTH * 4` levels, deeper than any accepted
    value; a deeper one is refused by `structure_violation` anyway.
    """
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if found := text_violation(item, path):
                return found
        elif depth < MAX_METADATA_DEPTH * 4 and isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and (found := text_violation(key, f"{path} (a key)")):
                    return found
                stack.append((child, f"{path}.{key}", depth + 1))
        elif depth < MAX_METADATA_DEPTH * 4 and isinstance(item, list):
            stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
    return None


def structure_violation(value: Any, where: str) -> Violation | None:
    """Too deep or too many items, found without recursing (metadata, or any JSON value)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    items = 0
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_METADATA_DEPTH:
            return Violation(
                "too_deep", f"{where} is nested more than {MAX_METADATA_DEPTH} levels deep"
            )
        children = item.values() if isinstance(item, dict) else item
        items += len(item)
        if items > MAX_METADATA_ITEMS:
            return Violation("too_large", f"{where} has more than {MAX_METADATA_ITEMS} keys and items")
        stack.extend((child, depth + 1) for child in children)
    return None


def metadata_violation(metadata: Any) -> Violation | None:
    """Every bound on a turn's `metadata`: shape, characters, speaker, size."""
    if not isinstance(metadata, dict):
        return None  # the model's own type check names it
    found = structure_violation(metadata, "metadata") or unencodable_violation(metadata, "metadata")
    if found:
        return found
    speaker = metadata.get("speaker")
    if speaker is not None and not isinstance(speaker, str):
        return Violation("invalid_field", "metadata.speaker must be a string (a name)")
    if isinstance(speaker, str) and len(speaker) > MAX_SPEAKER_CHARS:
        return Violation(
            "too_large",
            f"metadata.speaker is {len(speaker)} characters; the limit is {MAX_SPEAKER_CHARS}",
        )
    try:
        size = len(json.dumps(metadata, separators=(",", ":"), allow_nan=False).encode())
    except (TypeError, ValueError) as exc:
        return Violation("invalid_field", f"metadata is not plain JSON: {exc}")
    if size > MAX_METADATA_BYTES:
        return Violation("too_large", f"metadata is {size} bytes as JSON; the limit is {MAX_METADATA_BYTES}")
    return None
