"""Records built from the store's rows without validation (`sinks.sql.row_builder`) equal validated ones:
every field's value and type, the fields set, frozenness, JSON; on rows of every shape and both backends."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from enum import Enum
from itertools import cycle
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from beliefs.episodes import Episode, EpisodeState
from beliefs.records import (
    Memory,
    MemoryState,
    MemoryType,
    Polarity,
    RecallSemantics,
    Role,
    Trust,
    Visibility,
)
from sinks.sql.convert import EPISODE_FIELDS, episode_of, episode_row, memory_of, memory_row
from sinks.sql.row_builder import row_builder, unbuildable
from sinks.sql.tables import episodes, memories

MEMORY_FIELDS = tuple(Memory.model_fields)
T0 = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)


def varied(n: int, *enums: type[Enum]) -> Iterator[tuple[int, bool, datetime, tuple[Any, ...]]]:
    """`n` shapes (i, full, at, members): each enum's members in turn, every other shape `full` (its
    optional fields set, its lists not empty), times with microseconds."""
    for i, members in zip(range(n), zip(*(cycle(enum) for enum in enums), strict=False), strict=False):
        yield i, i % 2 == 1, T0 + timedelta(days=i, microseconds=i), members


def owned(tenant: str, full: bool, visibility: Visibility) -> dict[str, Any]:
    return {
        "tenant_id": tenant,
        "user_id": "u1",
        "agent_id": "bot" if full else None,
        "visibility": visibility,
        "workspace_id": "ws1" if full else None,
    }


def memory_shapes(tenant: str) -> list[Memory]:
    """Every enum member somewhere, every optional field both NULL and set, lists empty and not."""
    shapes = []
    enums = (Visibility, MemoryType, Polarity, RecallSemantics, Role, Trust, MemoryState)
    for i, full, at, (visibility, type_, polarity, semantics, role, trust, state) in varied(6, *enums):
        shapes.append(
            Memory(
                id=f"{tenant}-m{i}",
                **owned(tenant, full, visibility),
                text=f"memory {i} — ünïcode",
                type=type_,
                topic="work",
                importance=(0.0, 1.0, 0.5)[i % 3],
                confidence=(1.0, 0.0, 0.73)[i % 3],
                entity="user" if full else None,
                attribute="timezone" if full else None,
                value="UTC+2" if full else None,
                context="travel" if full else None,
                polarity=polarity,
                sensitivity="health" if full else None,
                recall_semantics=semantics,
                trigger={"action": "book", "domain": "travel"} if full else None,
                profile=full,
                source_role=role,
                source_session="s1" if full else None,
                source_turn_ids=["t1", "t2"] if full else [],
                evidence="said so" if full else "",
                trust=trust,
                state=state,
                created_at=at,
                valid_from=at.astimezone(timezone(timedelta(hours=2))),  # written as UTC
                valid_until=at + timedelta(hours=1) if full else None,
                superseded_by=f"{tenant}-m0" if full else None,
                expires_at=at + timedelta(days=30) if full else None,
                revoked_at=at + timedelta(hours=2) if full else None,
                last_confirmed=at + timedelta(hours=3) if full else None,
                last_accessed=at + timedelta(hours=4) if full else None,
                access_count=i,
                decay_score=0.25 if full else None,
                half_life_days=30.0 if full else None,
                possibly_superseded_by="m-newer" if full else None,
                possibly_superseded_at=at + timedelta(hours=5) if full else None,
            )
        )
    return shapes


def episode_shapes(tenant: str) -> list[Episode]:
    shapes = []
    for i, full, at, (visibility, role, trust, state) in varied(4, Visibility, Role, Trust, EpisodeState):
        shapes.append(
            Episode(
                id=f"{tenant}-e{i}",
                **owned(tenant, full, visibility),
                session_id="s1" if full else None,
                turn_id=f"turn-{i}",
                role=role,
                speaker="Ana" if full else None,
                text=f"said {i}",
                said_at=at,
                created_at=at + timedelta(seconds=1),
                trust=trust,
                memory_ids=["m1", "m2"] if full else [],
                state=state,
                expires_at=at + timedelta(days=30) if full else None,
                revoked_at=at + timedelta(days=1) if full else None,
                superseded_by=f"{tenant}-e-later" if full and i % 2 else None,
                possibly_superseded_by=f"{tenant}-e-later" if full and not i % 2 else None,
                superseded_at=at + timedelta(days=2) if full else None,
            )
        )
    return shapes


def assert_same_record(built: BaseModel, validated: BaseModel, zones: bool = True) -> None:
    """Equal in every field's value and type, in the fields set, the instance state and the JSON
    (`zones`: datetimes in the same zone too; the store gives them back in UTC)."""
    assert type(built) is type(validated)
    for name in type(validated).model_fields:
        mine, theirs = getattr(built, name), getattr(validated, name)
        assert type(mine) is type(theirs), name
        assert mine == theirs, name
        if isinstance(theirs, datetime):
            assert mine.tzinfo == theirs.tzinfo or not zones, name
    assert list(built.__dict__) == list(validated.__dict__)
    assert built.__getstate__() == validated.__getstate__()
    assert built.model_fields_set == validated.model_fields_set
    assert type(built.model_fields_set) is type(validated.model_fields_set)
    assert built == validated
    if zones:
        assert built.model_dump_json() == validated.model_dump_json()
    assert pickle.loads(pickle.dumps(built)) == validated


def validated(model: type[BaseModel], fields: tuple[str, ...], row: Any) -> BaseModel:
    return model.model_validate(dict(zip(fields, row, strict=False)))


def test_a_memory_built_from_its_row_is_the_validated_memory() -> None:
    for memory in memory_shapes("t"):
        row = memory_row(memory, None)  # what the store writes: enum values, lists, datetimes
        values = [row[name] for name in MEMORY_FIELDS] + ["an extra column"]

        built = memory_of(values)

        assert_same_record(built, validated(Memory, MEMORY_FIELDS, values))
        assert_same_record(built, memory)
        assert memory_of(values).model_fields_set is not built.model_fields_set  # each record its own


def test_an_episode_built_from_its_row_is_the_validated_episode() -> None:
    for episode in episode_shapes("t"):
        row = episode_row(episode, None)
        values = [row[name] for name in EPISODE_FIELDS] + ["its seed"]

        built = episode_of(values)

        assert_same_record(built, validated(Episode, EPISODE_FIELDS, values))
        assert_same_record(built, episode)


def test_a_built_record_is_frozen_and_copies_like_a_validated_one() -> None:
    memory = memory_shapes("t")[1]
    built = memory_of([memory_row(memory, None)[name] for name in MEMORY_FIELDS])

    with pytest.raises(ValidationError, match="frozen"):
        built.text = "changed"
    assert_same_record(
        built.model_copy(update={"access_count": 9}), memory.model_copy(update={"access_count": 9})
    )
    assert built.model_dump(exclude_unset=True) == memory.model_dump(exclude_unset=True)


def test_a_value_outside_its_enum_or_a_short_row_goes_to_validation() -> None:
    values = [memory_row(memory_shapes("t")[1], None)[name] for name in MEMORY_FIELDS]
    short = values[:-1]  # no possibly_superseded_at: validation gives its default, and leaves it unset
    wrong = list(values)
    wrong[MEMORY_FIELDS.index("state")] = "archived"

    assert_same_record(memory_of(short), validated(Memory, MEMORY_FIELDS, short))
    assert "possibly_superseded_at" not in memory_of(short).model_fields_set
    with pytest.raises(ValidationError, match="state"):
        memory_of(wrong)


def test_models_that_validation_would_change_are_refused() -> None:
    class Stripped(BaseModel):
        model_config = ConfigDict(str_strip_whitespace=True)
        name: str

    class Checked(BaseModel):
        name: str

        @field_validator("name")
        @classmethod
        def _lower(cls, value: str) -> str:
            return value.lower()

    class Nested(BaseModel):
        inner: Checked
        at: datetime | None = None
        tags: tuple[str, ...] = ()

    assert unbuildable(Memory) == [] and unbuildable(Episode) == []
    assert unbuildable(Stripped) and unbuildable(Checked)
    assert {"inner", "tags"} <= {reason.split()[0] for reason in unbuildable(Nested)}
    with pytest.raises(TypeError, match="Checked records cannot be built"):
        row_builder(Checked)


async def test_rows_read_on_each_backend_build_the_records_that_were_written(store, tenant) -> None:
    written_memories, written_episodes = memory_shapes(tenant), episode_shapes(tenant)
    async with store._engine.begin() as conn:
        await conn.execute(memories.insert(), [memory_row(m, None) for m in written_memories])
        await conn.execute(episodes.insert(), [episode_row(e, None) for e in written_episodes])

    async def read(table: sa.Table, fields: tuple[str, ...]) -> list[Any]:
        statement = (
            sa.select(*(table.c[name] for name in fields))
            .where(table.c.tenant_id == sa.bindparam("tenant"))
            .order_by(table.c.id)
        )
        return await store._reader._read("rows", (statement, {"tenant": tenant}), list)  # recall's own road

    memory_rows, episode_rows = await read(memories, MEMORY_FIELDS), await read(episodes, EPISODE_FIELDS)

    assert len(memory_rows) == len(written_memories) and len(episode_rows) == len(written_episodes)
    for row, memory in zip(memory_rows, written_memories, strict=True):
        assert_same_record(memory_of(row), validated(Memory, MEMORY_FIELDS, row))
        assert_same_record(memory_of(row), memory, zones=False)
    for row, episode in zip(episode_rows, written_episodes, strict=True):
        assert_same_record(episode_of(row), validated(Episode, EPISODE_FIELDS, row))
        assert_same_record(episode_of(row), episode)
