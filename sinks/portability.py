"""The export format: a user's belief state as JSON lines, written and read back.

The first line is a header (`{"kind": "header", "format": "beliefstream-export", "version": 1}`),
then per user every memory in creation order (`"kind": "memory"`: every field of the record, so the
supersession chains, states, citations, confidence, importance, timestamps, agent and visibility
travel), the user's contradiction loops (`"kind": "contested"`: the pair, its value history and
resolution), then the episodes in the order they were said (`"kind": "episode"`). The last line
counts the records (`{"kind": "end", "records": N}`), so a file cut short (a dropped connection, a
full disk) is told from a complete one. Embeddings are not exported: the importer recomputes them.
The output is deterministic, so two exports of the same state are byte-identical. An export reads
one snapshot of the store (`ExportSource.export_snapshot`), a page at a time: a write committed while
it runs is not in the file, which is the state of one moment. Rows are filtered by `Reach`: another
agent's private rows leave only for a caller that may read them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import TypeAdapter, ValidationError

from beliefs.contested import ContestedSlot
from beliefs.episodes import Episode
from beliefs.records import Memory, Visibility
from sinks.errors import ExportFormatError
from sinks.reach import Reach

FORMAT = "beliefstream-export"
VERSION = 1
#: Rows per store read while exporting.
PAGE = 500

HEADER = "header"
MEMORY = "memory"
CONTESTED = "contested"
EPISODE = "episode"
END = "end"

_CONTESTED = TypeAdapter(ContestedSlot)

Record = Memory | ContestedSlot | Episode


@runtime_checkable
class ExportReads(Protocol):
    """The reads of one export, every one against the same snapshot of the store (pages included)."""

    async def owners(self, tenant_id: str | None = None, user_id: str | None = None) -> list[tuple[str, str]]:
        """Every (tenant, user) with a memory or an episode, in order; of one tenant or user if given."""

    async def memory_page(
        self, tenant_id: str, user_id: str, cursor: str | None, limit: int
    ) -> tuple[list[Memory], str | None]:
        """One page of the user's memories (every state) in creation order, and the next cursor."""

    async def episode_page(
        self, tenant_id: str, user_id: str, cursor: str | None, limit: int
    ) -> tuple[list[Episode], str | None]:
        """One page of the user's episodes (every state) in the order said, and the next cursor."""

    async def contested_of(self, tenant_id: str, user_id: str, reach: Reach) -> list[ContestedSlot]: ...


@runtime_checkable
class ExportSource(Protocol):
    """A store an export reads from (`SqlMemoryStore` is one)."""

    def export_snapshot(self) -> AbstractAsyncContextManager[ExportReads]:
        """One consistent snapshot for the whole export: a write committed while it is open is not seen."""


@dataclass(frozen=True)
class Header:
    """The first line of an export."""

    version: int = VERSION


@dataclass(frozen=True)
class End:
    """The last line of an export: how many records (memories, contested pairs, episodes) precede it."""

    records: int


def header_line() -> str:
    return _dumps({"kind": HEADER, "format": FORMAT, "version": VERSION})


def end_line(records: int) -> str:
    return _dumps({"kind": END, "records": records})


def memory_line(memory: Memory) -> str:
    return _dumps({"kind": MEMORY, **memory.model_dump(mode="json")})


def contested_line(slot: ContestedSlot) -> str:
    return _dumps({"kind": CONTESTED, **_CONTESTED.dump_python(slot, mode="json")})


def episode_line(episode: Episode) -> str:
    return _dumps({"kind": EPISODE, **episode.model_dump(mode="json")})


def episode_private_to(episode: Episode) -> str | None:
    """Like `Memory.private_to`: the agent whose private turn this was ("" if none named), or None."""
    return (episode.agent_id or "") if episode.visibility is Visibility.AGENT else None


async def export(
    source: ExportSource, reach: Reach, tenant_id: str | None = None, user_id: str | None = None
) -> AsyncIterator[str]:
    """A whole export of the users (of one tenant, one user id) read from one snapshot, line by line."""
    async with source.export_snapshot() as snapshot:
        owners = await snapshot.owners(tenant_id, user_id)
        async for line in export_users(snapshot, owners, reach):
            yield line


async def export_users(
    snapshot: ExportReads, owners: Iterable[tuple[str, str]], reach: Reach
) -> AsyncIterator[str]:
    """A whole export, line by line (each without its newline): the header, each (tenant, user), the end."""
    yield header_line()
    records = 0
    for tenant_id, user_id in owners:
        async for line in export_user(snapshot, tenant_id, user_id, reach):
            records += 1
            yield line
    yield end_line(records)


async def export_user(snapshot: ExportReads, tenant_id: str, user_id: str, reach: Reach) -> AsyncIterator[str]:
    """The lines (no header, each without its newline) of one user's memories, contested pairs, episodes."""
    cursor: str | None = None
    while True:
        memories, cursor = await snapshot.memory_page(tenant_id, user_id, cursor, PAGE)
        for memory in memories:
            if reach.sees(memory.private_to):
                yield memory_line(memory)
        if cursor is None:
            break
    for slot in await snapshot.contested_of(tenant_id, user_id, reach):
        yield contested_line(slot)
    while True:
        episodes, cursor = await snapshot.episode_page(tenant_id, user_id, cursor, PAGE)
        for episode in episodes:
            if reach.sees(episode_private_to(episode)):
                yield episode_line(episode)
        if cursor is None:
            break


def parse_line(text: str, number: int) -> Header | End | Record | None:
    """One line of an export: its header, a record (memory, contested pair, episode) or its end line;
    None for a blank line."""
    if not text.strip():
        return None
    try:
        record: Any = json.loads(text)
    except ValueError as exc:
        raise ExportFormatError(f"line {number}: not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise ExportFormatError(f"line {number}: expected a JSON object")
    kind = record.pop("kind", None)
    if kind == HEADER:
        if record.get("format") != FORMAT or record.get("version") != VERSION:
            raise ExportFormatError(
                f"line {number}: not a {FORMAT} version {VERSION} header "
                f"(format {record.get('format')!r}, version {record.get('version')!r})"
            )
        return Header()
    if kind == END:
        records = record.get("records")
        if not isinstance(records, int) or isinstance(records, bool) or records < 0:
            raise ExportFormatError(f"line {number}: an end line needs its count of records, got {records!r}")
        return End(records)
    model = {MEMORY: Memory.model_validate, CONTESTED: _CONTESTED.validate_python, EPISODE: Episode.model_validate}
    if kind not in model:
        raise ExportFormatError(
            f"line {number}: unknown kind {kind!r} (expected header, memory, contested, episode or end)"
        )
    try:
        return model[kind](record)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or kind
        raise ExportFormatError(f"line {number}: invalid {kind}: {where}: {first['msg']}") from None


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
