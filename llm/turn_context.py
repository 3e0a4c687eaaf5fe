"""What an extraction request is told besides the turn: the session's preceding turns and the
user's current beliefs that bear on it, each bounded.

The extractor takes a `TurnContextSource` (a narrow callable the wiring builds over the store and
recall, so llm/ never imports them) and adds the turns before this one in the same batch. The
window keeps the last `turns` turns and, like the beliefs, stops at a token bound (chars / 4).
Assistant turns stay marked as the assistant's: evidence of what was asked, never claims about
the user. Each offered belief gets a short handle (`b1`, `b2`, ...) that the answer may name to
update, retract or confirm it; a handle the request did not offer is refused.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from beliefs.records import Polarity, Role, Turn

#: Characters per token, the rough estimate every bound here uses.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """A rough token count (chars / 4, at least 1): enough to bound a window, not to bill."""
    return max(1, len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class PrecedingTurn:
    """One earlier turn of the session, cleaned text only (secrets were redacted before storing)."""

    role: Role
    text: str


@dataclass(frozen=True)
class OfferedBelief:
    """One current belief of the user offered to the model, by its memory id."""

    id: str
    text: str
    entity: str | None = None
    attribute: str | None = None
    value: str | None = None
    polarity: Polarity = Polarity.POSITIVE


@dataclass(frozen=True)
class TurnContext:
    """The preceding turns (oldest first) and the beliefs that bear on one turn."""

    preceding: tuple[PrecedingTurn, ...] = ()
    beliefs: tuple[OfferedBelief, ...] = ()


#: Builds the stored context of one turn: its session's turns before it and the beliefs on it.
TurnContextSource = Callable[[Turn], Awaitable[TurnContext]]


@dataclass(frozen=True)
class ContextBounds:
    """How much context one request carries at most."""

    turns: int = 6
    turn_tokens: int = 600
    belief_tokens: int = 600
    beliefs: int = 12


def within_bounds(
    stored: TurnContext, in_batch: Sequence[PrecedingTurn], bounds: ContextBounds
) -> TurnContext:
    """The stored turns then the batch's, the newest `bounds.turns` within the token bound (a turn
    that does not fit ends the window: older ones are not reached); beliefs in the order offered,
    within theirs."""
    window: list[PrecedingTurn] = []
    spent = 0
    for turn in reversed([*stored.preceding, *in_batch]):
        cost = estimate_tokens(turn.text)
        if len(window) >= bounds.turns or spent + cost > bounds.turn_tokens:
            break
        window.append(turn)
        spent += cost
    beliefs: list[OfferedBelief] = []
    spent = 0
    seen: set[str] = set()
    for belief in stored.beliefs:
        cost = estimate_tokens(belief.text)
        if belief.id in seen:
            continue
        if len(beliefs) >= bounds.beliefs or spent + cost > bounds.belief_tokens:
            break
        beliefs.append(belief)
        seen.add(belief.id)
        spent += cost
    return TurnContext(tuple(reversed(window)), tuple(beliefs))


@dataclass
class SessionWindows:
    """The turns of one `extract` call seen so far per session, for the turns after them."""

    seen: dict[tuple[str, str, str], list[PrecedingTurn]] = field(default_factory=dict)

    def before(self, turn: Turn) -> list[PrecedingTurn]:
        """The batch's earlier turns of this turn's session (none without a session id), then this one noted."""
        if turn.session_id is None:
            return []
        key = (turn.tenant_id, turn.user_id, turn.session_id)
        earlier = list(self.seen.get(key, ()))
        if turn.text.strip():
            self.seen.setdefault(key, []).append(PrecedingTurn(turn.role, turn.text))
        return earlier
