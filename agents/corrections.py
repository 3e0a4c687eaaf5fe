"""Value-only corrections on the write path and in re-extraction: "Sorry, it's 120, not 90." also
claims the belief it corrects with the new value (`reading.correction`), matched against the same
batch's earlier claims of the user, else the user's newest stored beliefs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from beliefs.records import Claim, Memory, MemoryState, Role
from reading.correction import corrected_claims, names_a_correction, visible_to
from reading.prepare import PreparedTurn
from sinks.contracts import MemoryListing

#: How many of the user's newest current beliefs a correction that names only values is matched against.
CORRECTION_LOOKBACK = 200


class NewestBeliefs(Protocol):
    async def list_memories(
        self, tenant_id: str, user_id: str, state: MemoryState | None = ..., limit: int = ...,
        cursor: str | None = ..., narrowing: MemoryListing = ...,
    ) -> tuple[list[Memory], str | None]: ...  # fmt: skip


async def with_corrections(
    store: NewestBeliefs, prepared: Sequence[PreparedTurn], claims: list[list[Claim]]
) -> list[list[Claim]]:
    """The claims per turn, each value-only correction's turn with the corrected belief's claim added."""
    out = list(claims)
    for index, item in enumerate(prepared):
        turn = item.turn
        if item.skip_reason is not None or turn.role is not Role.USER or not names_a_correction(item.text):
            continue
        earlier = [
            claim
            for before, found in zip(prepared[:index], out[:index], strict=True)
            if (before.turn.tenant_id, before.turn.user_id) == (turn.tenant_id, turn.user_id)
            and visible_to(turn, before.turn.agent_id, before.turn.visibility)
            for claim in found
        ]
        stored, _ = await store.list_memories(
            turn.tenant_id, turn.user_id, limit=CORRECTION_LOOKBACK, narrowing=MemoryListing(newest_first=True)
        )
        beliefs = earlier[::-1] + [m for m in stored if visible_to(turn, m.agent_id, m.visibility)]
        slots = {(claim.entity, claim.attribute) for claim in out[index]}
        out[index] = out[index] + [
            claim for claim in corrected_claims(item.text, beliefs) if (claim.entity, claim.attribute) not in slots
        ]
    return out
