"""Episodes: the evidence of what was said, each turn kept as said beside the beliefs it gave."""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from beliefs.records import ID_NAMESPACE, EventKind, Role, Trust, Visibility


class EpisodeState(StrEnum):
    ACTIVE = "active"
    REVOKED = "revoked"


class Episode(BaseModel):
    """One turn kept as it was said (after strip and secret redaction): evidence beside the beliefs.

    `role` is the provenance: a `user` episode is evidence of what the user said, any other role
    evidence of what was said to the user, never a claim about the user. `trust` says whether it
    may be shown by default (`reading.episode_keeping.episode_trust` decides): `untrusted` episodes (tool and
    system text, pasted or instruction-shaped content) are kept but recalled only when asked for.
    `memory_ids` are the beliefs this turn produced or confirmed, after reconcile.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    tenant_id: str
    user_id: str
    agent_id: str | None = None
    visibility: Visibility = Visibility.USER
    session_id: str | None = None
    workspace_id: str | None = None  # as `Memory.workspace_id`
    turn_id: str
    role: Role
    speaker: str | None = None
    text: str
    said_at: datetime
    created_at: datetime
    trust: Trust = Trust.TRUSTED
    memory_ids: list[str] = Field(default_factory=list)
    state: EpisodeState = EpisodeState.ACTIVE
    expires_at: datetime | None = None  # retention (`BELIEFSTREAM_EPISODE_RETENTION_DAYS`)
    revoked_at: datetime | None = None
    # currency (migration 0013, `beliefs.supersession`): a later statement of the user made this one
    # stale (`superseded_by`) or may have (`possibly_superseded_by`), said at `superseded_at`
    superseded_by: str | None = None
    possibly_superseded_by: str | None = None
    superseded_at: datetime | None = None

    @property
    def private_to(self) -> str | None:
        """The agent whose private turn this was ("" if it names none), or None when shared: the
        same rule as `Memory.private_to`, so evidence is scoped exactly like the beliefs it gave."""
        return (self.agent_id or "") if self.visibility is Visibility.AGENT else None


class EpisodeEvent(BaseModel):
    """An episode kept or revoked, published on `beliefstream.memory.events` beside `MemoryEvent`s
    (consumers tell them apart by `kind`: `episode_created`, `episode_revoked`)."""

    model_config = ConfigDict(frozen=True)

    kind: EventKind
    episode_id: str
    tenant_id: str
    user_id: str
    at: datetime
    turn_id: str
    session_id: str | None = None
    role: Role
    memory_ids: list[str] = Field(default_factory=list)

    @classmethod
    def about(cls, kind: EventKind, episode: Episode, at: datetime | None = None) -> EpisodeEvent:
        return cls(
            kind=kind,
            episode_id=episode.id,
            tenant_id=episode.tenant_id,
            user_id=episode.user_id,
            at=at or episode.created_at,
            turn_id=episode.turn_id,
            session_id=episode.session_id,
            role=episode.role,
            memory_ids=list(episode.memory_ids),
        )


def episode_id_for(tenant_id: str, turn_id: str) -> str:
    """Deterministic episode id of a turn: a replayed turn is the same episode."""
    return str(uuid.uuid5(ID_NAMESPACE, f"episode\x1f{tenant_id}\x1f{turn_id}"))
