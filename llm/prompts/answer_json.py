"""The JSON inside a model's answer: fenced blocks first, then the whole text, prose around skipped.

Models wrap JSON in code fences or a sentence of prose; each prompt's reader takes the first value
here that fits its schema, and raises `ResponseSchemaError` itself when none does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)


def _candidates(text: str) -> Iterator[str]:
    """Where the JSON may be: inside code fences first, then the whole answer."""
    for match in _FENCE.finditer(text):
        yield match.group(1)
    yield text


def json_values(text: str) -> Iterator[Any]:
    """Every JSON array or object that decodes from a `[` or `{` of the answer, in that order."""
    decoder = json.JSONDecoder()
    for candidate in _candidates(text):
        for match in re.finditer(r"[\[{]", candidate):
            try:
                found, _ = decoder.raw_decode(candidate, match.start())
            except json.JSONDecodeError:
                continue
            yield found
