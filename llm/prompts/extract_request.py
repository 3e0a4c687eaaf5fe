"""One extraction request: a single turn, or several turns of one session's user read together.

A group costs one request: the stable prefix is read from the cache once instead of once per turn,
and the session's preceding turns and the beliefs are sent once instead of once per turn. `plan`
groups consecutive turns of one session when the estimate (chars / 4, the cached prefix weighted
at its read price) says the group is cheaper than the separate requests. Turns are numbered
(`<turn n="k">`) and each memory of the answer says which turn it comes from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from beliefs.records import Role
from llm.call import ToolCall
from llm.prompts.extract_memories import (
    EXAMPLES,
    MAX_GROUP_TURNS,
    SYSTEM,
    SYSTEM_PROMPT,
    TOOL,
    TOOL_NAME,
    ExtractionContext,
    user_message,
)
from llm.prompts.turn_markup import beliefs_block, preceding_block, quote_turn, turn_before
from llm.turn_context import OfferedBelief, PrecedingTurn, estimate_tokens

#: Output budget of one turn's answer: five memories with evidence fit well inside it.
MAX_TOKENS = 1024
#: What each further turn of a group adds to the budget (most turns give one memory or none).
MAX_TOKENS_PER_GROUPED_TURN = 512


def max_tokens_for(turns: int) -> int:
    """The output budget of a request reading `turns` turns."""
    return MAX_TOKENS + MAX_TOKENS_PER_GROUPED_TURN * (turns - 1)


#: What a cache read costs against a plain input token (Anthropic's published ratio).
CACHE_READ_RATIO = 0.1
#: The stable prefix's tokens (tool schema, instructions, examples) by the same estimate.
STABLE_TOKENS = estimate_tokens(json.dumps(TOOL) + SYSTEM_PROMPT + EXAMPLES)


@dataclass(frozen=True)
class ExtractionRequest:
    """What is sent (system blocks, messages) and what reading the answer needs: each turn's
    timestamp and the beliefs offered, by handle."""

    system: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    turn_times: tuple[datetime, ...]
    offered: dict[str, OfferedBelief]

    @property
    def grouped(self) -> bool:
        return len(self.turn_times) > 1


def _stamp(at: datetime) -> str:
    at = at.astimezone(UTC)
    return f"{at.isoformat().replace('+00:00', 'Z')} ({at.strftime('%A')})"


def between(previous: ExtractionContext, context: ExtractionContext) -> list[PrecedingTurn] | None:
    """The turns said after `previous` and before `context` (the assistant's reply, say), from
    `context`'s window; None when `previous` is not in that window (they cannot share a transcript)."""
    for at in range(len(context.preceding) - 1, -1, -1):
        turn = context.preceding[at]
        if turn.role is Role.USER and turn.text == previous.text:
            return list(context.preceding[at + 1 :])
    return None


def group_message(contexts: Sequence[ExtractionContext], offered: dict[str, OfferedBelief]) -> str:
    """One user message for consecutive turns of one session: the first turn's preceding window,
    the beliefs once, then the numbered turns with what was said between them."""
    first = contexts[0]
    speaker = (
        quote_turn(" ".join(first.speaker.split())[:100]) if first.speaker else "not given (write 'The user')"
    )
    parts = [
        f"Turns: {len(contexts)}, numbered; give each memory the number of its turn.\n"
        f"Role: {first.role.value}\nSpeaker: {speaker}\n",
        preceding_block(first.preceding),
        beliefs_block(offered),
    ]
    for number, context in enumerate(contexts, start=1):
        if number > 1:
            parts += [turn_before(turn) + "\n" for turn in between(contexts[number - 2], context) or ()]
        parts.append(
            f'<turn n="{number}" timestamp="{_stamp(context.turn_ts)}">\n{quote_turn(context.text)}\n</turn>\n'
        )
    return "".join(parts).rstrip("\n")


def request_for(contexts: Sequence[ExtractionContext]) -> ExtractionRequest:
    """The request of one turn, or of a group (`plan` decides which turns go together)."""
    if len(contexts) == 1:
        (context,) = contexts
        message = user_message(context)
        return ExtractionRequest(
            SYSTEM, [{"role": "user", "content": message}], (context.turn_ts,), context.offered()
        )
    beliefs: dict[str, OfferedBelief] = {}
    for context in contexts:
        for belief in context.beliefs:
            beliefs.setdefault(belief.id, belief)
    offered = {f"b{number}": belief for number, belief in enumerate(beliefs.values(), start=1)}
    message = group_message(contexts, offered)
    return ExtractionRequest(
        SYSTEM, [{"role": "user", "content": message}], tuple(c.turn_ts for c in contexts), offered
    )


def repaired(request: ExtractionRequest, call: ToolCall | None, error: str) -> ExtractionRequest:
    """The request again, with the unusable call answered by an error tool_result that says why
    (the tool-use protocol's way to ask for a corrected call); without a call, the same request."""
    if call is None:
        return request
    result = f"That call could not be used: {error[:1000]}. Call {TOOL_NAME} again with valid memories."
    messages = [
        *request.messages,
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call.id, "name": TOOL_NAME, "input": call.input}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call.id, "is_error": True, "content": result}],
        },
    ]
    return ExtractionRequest(request.system, messages, request.turn_times, request.offered)


def request_cost(request: ExtractionRequest) -> float:
    """Estimated input cost in plain-token units: the message, plus the cached prefix at its read price."""
    message = sum(estimate_tokens(m["content"]) for m in request.messages if isinstance(m["content"], str))
    return message + CACHE_READ_RATIO * STABLE_TOKENS


def plan(
    contexts: Sequence[ExtractionContext], sessions: Sequence[tuple[str, ...] | None]
) -> list[list[int]]:
    """Indices of `contexts` grouped: consecutive turns of one session (`sessions[i]`, None: alone),
    at most `MAX_GROUP_TURNS`, each turn joining the group only when that costs less than its own request."""
    groups: list[list[int]] = []
    open_group: dict[tuple[str, ...], list[int]] = {}
    for index, (context, session) in enumerate(zip(contexts, sessions, strict=True)):
        group = open_group.get(session) if session is not None else None
        if (
            group is not None
            and len(group) < MAX_GROUP_TURNS
            and between(contexts[group[-1]], context) is not None
        ):
            members = [contexts[i] for i in group]
            together = request_cost(request_for([*members, context]))
            apart = request_cost(request_for(members)) + request_cost(request_for([context]))
            if together < apart:
                group.append(index)
                continue
        group = [index]
        groups.append(group)
        if session is not None:
            open_group[session] = group
    return groups
