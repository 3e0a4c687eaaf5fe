"""Validation errors as one line of field names and reasons; the input itself is never echoed back.

Pure, and free of the web framework, so the stdio MCP server (`beliefstream mcp`) words a bad
tool call exactly as the HTTP sidecar words a bad body.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def describe_validation_errors(errors: Sequence[Any]) -> str:
    """`body.turns.0.role: Input should be ...; ...`."""
    parts = []
    for error in errors:
        location = ".".join(str(part) for part in error.get("loc", ()))
        parts.append(f"{location}: {error.get('msg', 'invalid')}" if location else error.get("msg", ""))
    return "; ".join(parts) or "the request is invalid"
