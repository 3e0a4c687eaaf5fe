"""`Reach`: which agents' private state a caller may see or change, as the stores take it.

Memories, jobs and contested pairs are either shared by the user's agents or private to one agent
(`Memory.private_to`, `Job.private_to`, `ContestedSlot.agent_id`). A caller reaches the shared
state and, besides, one agent's private state (an agent-bound key), every agent's (a tenant key
allowed to act for its agents) or none. Stores apply it in the query, so a limit never counts
rows the caller cannot see.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reach:
    """The shared state, plus the private state of `agent_id`, or of every agent."""

    agent_id: str | None = None
    every_agent: bool = False

    def sees(self, private_to: str | None) -> bool:
        """Whether state private to `private_to` (None: shared) is within reach."""
        if private_to is None or self.every_agent:
            return True
        return self.agent_id is not None and private_to == self.agent_id


#: A tenant operator's reach: every agent of the tenant.
EVERY_AGENT = Reach(every_agent=True)

#: Shared state only.
SHARED_ONLY = Reach()
