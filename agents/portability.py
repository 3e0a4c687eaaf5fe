"""Importing an export (`sinks.portability`): parse, embed, and write one user at a time.

Embeddings are not in the file: each memory's and episode's text is embedded again with the
running model (an episode with its speaker and the turn before it, as the write path does), in one
model call per user (as the write path embeds a batch), and the rows are
written through the store's import (`SqlMemoryStore.import_user`), which reconciles them and
leaves their vector points for the projector like any write. A user's rows are one transaction,
up to `MAX_ROWS` rows (a larger user is written in several, each idempotent). Ids are kept, so
importing the same file again inserts nothing (and embeds nothing: stored ids are looked up first).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from beliefs.contested import ContestedSlot
from beliefs.episodes import Episode
from beliefs.import_plan import Embedding, ImportCounts
from beliefs.records import Memory
from embedding.embedder import Embedder
from embedding.episode_vectors import EpisodeTexts
from reading.episode_text import SessionTails
from sinks.errors import ExportFormatError
from sinks.portability import FORMAT, End, Header, Record, parse_line

#: Most rows of one user written in one transaction.
MAX_ROWS = 10_000


@runtime_checkable
class ImportTarget(Protocol):
    async def import_user(
        self,
        memories: Sequence[tuple[Memory, Embedding]],
        episodes: Sequence[tuple[Episode, Embedding]],
        contested: Sequence[ContestedSlot] = (),
    ) -> ImportCounts: ...

    async def known_ids(self, tenant_id: str, ids: Sequence[str]) -> set[str]: ...


def read_records(lines: Iterable[str]) -> Iterable[Record]:
    """The records of an export, in file order, between its header and its end line.

    A file without its end line was cut short: `ExportFormatError` once the lines run out (the
    records before it have been handed out; `check_complete` tells it before any).
    """
    header_seen = False
    read = 0
    end: End | None = None
    for number, text in enumerate(lines, start=1):
        record = parse_line(text, number)
        if record is None:
            continue
        if end is not None:
            raise ExportFormatError(f"line {number}: a line after the end line")
        if isinstance(record, Header):
            header_seen = True
        elif not header_seen:
            raise ExportFormatError(f"line {number}: not a {FORMAT} file (the first line must be its header)")
        elif isinstance(record, End):
            if record.records != read:
                raise ExportFormatError(f"line {number}: the end line counts {record.records} records, the file has {read}")
            end = record
        else:
            read += 1
            yield record
    if not header_seen:
        raise ExportFormatError(f"the file is empty: not a {FORMAT} file")
    if end is None:
        raise ExportFormatError(f"the file ends after {read} records without its end line: it was cut short")


def check_complete(lines: Iterable[str]) -> int:
    """The number of records of a complete export, read without building them; `ExportFormatError`
    when the file is not one or was cut short (so an import can refuse it before writing anything)."""
    filled = 0
    last: tuple[int, str] | None = None
    for number, text in enumerate(lines, start=1):
        if text.strip():
            filled += 1
            last = (number, text)
    if last is None:
        raise ExportFormatError(f"the file is empty: not a {FORMAT} file")
    ending = parse_line(last[1], last[0])
    if not isinstance(ending, End):
        raise ExportFormatError(f"the file ends at line {last[0]} without its end line: it was cut short")
    if ending.records != filled - 2:  # neither the header nor the end line is a record
        raise ExportFormatError(f"line {last[0]}: the end line counts {ending.records} records, the file has {filled - 2}")
    return ending.records


async def import_records(
    records: Iterable[Record], store: ImportTarget, embedder: Embedder, max_rows: int = MAX_ROWS,
    episode_vector: str = "joined",
) -> ImportCounts:
    """Write the records, grouped by consecutive (tenant, user), each group embedded in one call;
    episode vectors made the way `episode_vector` says (`Settings.episode_vector`, as the write path)."""
    total = ImportCounts()
    tails = SessionTails()
    group: list[Record] = []
    for record in records:
        if group and (_owner(group[0]) != _owner(record) or len(group) >= max_rows):
            total.add(await _write_group(group, store, embedder, tails, episode_vector))
            group = []
        group.append(record)
    if group:
        total.add(await _write_group(group, store, embedder, tails, episode_vector))
    return total


async def _vectors(said: Sequence[Memory | Episode], tails: SessionTails, embedder: Embedder, episode_vector: str) -> list:
    """A memory's vector from its text; an episode's as the write path makes it
    (`embedding.episode_vectors`), each episode seeing the one said before it in its session."""
    memories = [i for i, r in enumerate(said) if not isinstance(r, Episode)]
    episodes = sorted((i for i, r in enumerate(said) if isinstance(r, Episode)), key=lambda i: said[i].said_at)
    episode_texts = EpisodeTexts.of([said[i] for i in episodes], tails, episode_vector)
    vectors = await embedder.aembed([said[i].text for i in memories] + episode_texts.texts())
    out: list = [None] * len(said)
    for row, i in enumerate(memories):
        out[i] = vectors[row]
    for row, vector in zip(episodes, episode_texts.vectors(vectors[len(memories) :]), strict=True):
        out[row] = vector
    return out


async def _write_group(
    group: list[Record], store: ImportTarget, embedder: Embedder, tails: SessionTails, episode_vector: str
) -> ImportCounts:
    known = await store.known_ids(group[0].tenant_id, [r.id for r in group])
    group = [r for r in group if r.id not in known]  # a repeated import embeds nothing
    if not group:
        return ImportCounts(skipped=len(known))
    said = [r for r in group if isinstance(r, Memory | Episode)]
    vectors = await _vectors(said, tails, embedder, episode_vector) if said else []
    memories = [(r, v) for r, v in zip(said, vectors, strict=True) if isinstance(r, Memory)]
    episodes = [(r, v) for r, v in zip(said, vectors, strict=True) if isinstance(r, Episode)]
    counts = await store.import_user(memories, episodes, [r for r in group if isinstance(r, ContestedSlot)])
    counts.skipped += len(known)
    return counts


def _owner(record: Record) -> tuple[str, str]:
    return record.tenant_id, record.user_id
