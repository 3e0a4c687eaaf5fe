"""What the fake Messages API checks and counts in a request, as the real API does: the request
shapes it refuses with a 400, tokens (JSON length / 4, no tokenizer here), and the prefix up to the
last `cache_control` mark that its prompt cache writes and reads. Pure functions of the request body.
"""

from __future__ import annotations

import json
from typing import Any


def shape_errors(body: dict[str, Any]) -> list[str]:
    """What the real API would refuse with a 400 in a request's shape: a forced tool it was not
    given, more than 4 cache breakpoints, roles that do not alternate from `user`, a tool_result
    that answers no tool_use of the turn before it."""
    errors: list[str] = []
    names = {tool.get("name") for tool in body.get("tools") or []}
    choice = body.get("tool_choice") or {}
    if choice.get("type") == "tool" and choice.get("name") not in names:
        errors.append(f"tool_choice names {choice.get('name')!r}, which is not among the tools")
    marks = json.dumps([body.get("tools"), body.get("system"), body.get("messages")]).count('"cache_control"')
    if marks > 4:
        errors.append(f"{marks} cache_control breakpoints; at most 4 are allowed")
    messages = body.get("messages") or []
    roles = [m.get("role") for m in messages]
    if not roles or roles[0] != "user" or any(a == b for a, b in zip(roles, roles[1:], strict=False)):
        errors.append(f"messages must alternate user/assistant from user, not {roles}")
    for before, message in zip(messages, messages[1:], strict=False):
        content = message.get("content")
        results = [b for b in content if b.get("type") == "tool_result"] if isinstance(content, list) else []
        asked = before.get("content") if isinstance(before.get("content"), list) else []
        ids = {b.get("id") for b in asked if b.get("type") == "tool_use"}
        errors += [f"tool_result for unknown tool_use {r.get('tool_use_id')!r}" for r in results if r.get("tool_use_id") not in ids]
    return errors


def estimate_tokens(value: Any) -> int:
    """The fake's token count of any part of a request: its JSON length / 4 (no tokenizer here)."""
    return max(1, len(json.dumps(value, ensure_ascii=False)) // 4)


def cached_prefix(request: dict[str, Any]) -> list[Any]:
    """The request's parts up to its last `cache_control` mark, in the API's order (tools, system,
    messages' content blocks); [] when nothing is marked."""
    parts: list[Any] = list(request.get("tools") or [])
    system = request.get("system")
    parts += system if isinstance(system, list) else ([{"type": "text", "text": system}] if system else [])
    for message in request.get("messages") or []:
        content = message.get("content")
        parts += content if isinstance(content, list) else [{"type": "text", "text": content}]
    marked = [at for at, part in enumerate(parts) if isinstance(part, dict) and part.get("cache_control")]
    return parts[: marked[-1] + 1] if marked else []
