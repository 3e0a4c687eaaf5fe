"""How a turn and what surrounds it are written into an extraction request, as data.

The turn's text and every caller-supplied label sit inside tags the model is told to read as data,
so anything in them that looks like our delimiter is defused (`quote_turn`) before it is written;
the preceding turns and the offered beliefs each have a block of their own. Both the one-turn
request (`llm.prompts.extract_memories`) and a group's (`llm.prompts.extract_request`) use them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from beliefs.records import Polarity
from llm.turn_context import OfferedBelief, PrecedingTurn

_TURN_TAG = re.compile(r"<(/?)\s*turn\b", re.IGNORECASE)


def quote_turn(text: str) -> str:
    """The turn text with anything that looks like our delimiter defused, so it cannot close the tag."""
    return _TURN_TAG.sub(lambda match: f"&lt;{match.group(1)}turn", text)


def one_line(value: str, limit: int = 100) -> str:
    """A caller-supplied label (speaker, topic hint) as one short line that cannot open a tag."""
    return quote_turn(" ".join(value.split())[:limit])


def turn_before(turn: PrecedingTurn) -> str:
    """One earlier turn, marked with its role."""
    return f'<turn_before role="{turn.role.value}">{quote_turn(turn.text)}</turn_before>'


def preceding_block(preceding: Sequence[PrecedingTurn]) -> str:
    """The `<preceding_turns>` block, oldest first; empty without turns."""
    if not preceding:
        return ""
    return "<preceding_turns>\n" + "\n".join(turn_before(turn) for turn in preceding) + "\n</preceding_turns>\n"


def beliefs_block(offered: dict[str, OfferedBelief]) -> str:
    """The `<current_beliefs>` block: one line per offered belief, under its handle."""
    if not offered:
        return ""
    lines = []
    for handle, belief in offered.items():
        slot = "/".join(part for part in (belief.entity, belief.attribute) if part)
        value = f" = {one_line(belief.value)}" if belief.value else ""
        negated = " (negative)" if belief.polarity is Polarity.NEGATIVE else ""
        lines.append(f"{handle}: {one_line(belief.text, 300)}" + (f" [{slot}{value}{negated}]" if slot else ""))
    return "<current_beliefs>\n" + "\n".join(lines) + "\n</current_beliefs>\n"
