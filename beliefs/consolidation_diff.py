"""What a consolidation run proposes (dry run) or did (apply): JSON-ready, the body of
`POST /v1/consolidate` and the answer of the `consolidate_memories` MCP tool."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from beliefs.records import MemoryType


class DiffMember(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    type: MemoryType
    importance: float
    confidence: float


class DiffGroup(BaseModel):
    """One group of near-duplicates and the canonical memory that replaces it."""

    model_config = ConfigDict(frozen=True)

    canonical_id: str
    canonical_text: str
    user_id: str
    merged_by: str = Field(description="the merger that wrote the text: offline or anthropic")
    min_similarity: float = Field(description="lowest pairwise cosine similarity inside the group")
    member_ids: list[str]
    members: list[DiffMember]
    applied: bool = Field(
        default=False, description="written (false on a dry run, or when a member changed meanwhile)"
    )


class ConsolidationDiff(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: str
    topic: str
    user_id: str | None = None
    similarity_threshold: float
    dry_run: bool
    scanned: int = Field(description="active memories of the topic considered")
    without_embedding: int = Field(default=0, description="memories left out: no embedding and no embedder")
    groups: list[DiffGroup] = Field(default_factory=list)

    @property
    def applied_groups(self) -> list[DiffGroup]:
        return [group for group in self.groups if group.applied]
