"""`PATCH /v1/memories/{id}`: a person corrects a memory, and the correction is a new version.

An edit never rewrites a row in place: the corrected memory is a new version with its own id, and
the old one is superseded by it (`valid_until`, `superseded_by`), so `GET /v1/memories/{id}` shows
what the memory said before and since when. Provenance and trust are kept from the old version: an
edit states what the memory says, not who said it, and a caller's confidence is no authority to
turn an untrusted memory trusted. The new version's id is deterministic from the old id and the
edit, so a retried PATCH answers the version it created instead of creating another.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, model_validator

from beliefs.records import Memory, MemoryState, memory_id_for

#: The fields a person may edit.
EDITABLE = ("text", "value", "importance", "confidence", "topic")


class MemoryEdit(BaseModel):
    """The fields to change; at least one. Unknown fields (scope, state, provenance) are refused."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, min_length=1, max_length=2000, description="the corrected sentence(s)")
    value: str | None = Field(default=None, min_length=1, max_length=2000, description="the slot's new value")
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    topic: str | None = Field(default=None, min_length=1, max_length=64)

    @model_validator(mode="after")
    def _something(self) -> MemoryEdit:
        if not self.changes():
            raise ValueError(f"name at least one field to edit: {', '.join(EDITABLE)}")
        if self.text is not None and not self.text.strip():
            raise ValueError("text must not be blank")
        if self.value is not None and self.text is None:
            raise ValueError("a new value needs the text that states it (recall shows the text)")
        return self

    def changes(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True)


def edit_id(tenant_id: str, old_id: str, edit: MemoryEdit) -> str:
    """The new version's id: the same edit of the same memory is the same version."""
    digest = hashlib.sha256(json.dumps(edit.changes(), sort_keys=True).encode()).hexdigest()[:32]
    return memory_id_for(tenant_id, f"edit:{old_id}", digest)


def edited_version(old: Memory, edit: MemoryEdit, now: datetime) -> Memory:
    """The new, current version of `old` with the edit applied; `ValueError` when it cannot be."""
    changes = edit.changes()
    if "value" in changes and old.attribute is None:
        raise ValueError("this memory has no attribute, so it has no value to edit; edit its text")
    return old.model_copy(
        update={
            **changes,
            "id": edit_id(old.tenant_id, old.id, edit),
            "state": MemoryState.ACTIVE,
            "created_at": now,
            "valid_from": now,
            "valid_until": None,
            "superseded_by": None,
            "last_confirmed": now,
            "last_accessed": None,
            "access_count": 0,
            "decay_score": None,
        }
    )
