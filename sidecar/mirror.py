"""The vector index follows a governance change that SQL has already committed, with its outbox entries.

A governance route never writes the index: its transaction marks the rows' points owed (or leaves
tombstones), and the process's projector (`agents.projector`) writes them. The route waits a
moment for that, so a caller usually finds the index in step when the answer arrives; if the index
is down it answers anyway, since recall hydrates every hit from SQL (a lagging point never surfaces
a revoked or erased memory) and the outbox keeps the change until the projector catches up.
"""

from __future__ import annotations

from sinks.vector_outbox import Projection

#: Longest a governance request waits for its change to reach the index.
SETTLE_S = 2.0


async def follow(projector: Projection | None) -> None:
    """Let the projector bring the index in step (bounded); without one, the owner of the index will."""
    if projector is not None:
        await projector.settle(SETTLE_S)
