"""`consolidate`: find near-duplicate memories of a topic, merge each group into one canonical
memory, and (unless it is a dry run) write the merges.

Named steps: load (active memories with their stored embeddings; the missing ones embedded now)
→ partition (`compat.partition_of`) → cluster (`cluster.cluster`, with `compat.compatible`) →
merge (a `Merger` writes the text, `merge.canonical_memory` the fields) → write (one SQL
transaction: canonical rows, consolidated originals, events in the outbox, and the vector outbox
entries of the canonical point and the originals' state) → the projector is nudged to write them.
A dry run stops after merge and writes nothing.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from agents.consolidate import compat
from agents.consolidate.cluster import check_threshold, cluster, min_similarity, normalized
from agents.consolidate.merge import Merger, OfflineMerger, canonical_memory, consolidated, lead_order
from agents.metrics import worker_metrics
from agents.projector import VectorProjector
from beliefs.consolidation_diff import ConsolidationDiff, DiffGroup, DiffMember
from beliefs.records import EventKind, Memory, MemoryEvent, utcnow
from embedding.embedder import Embedder
from llm.prompts.merge_memories import MergeContext, MergeItem
from reading.secrets import redact_secrets
from sinks.manage import ConsolidationStore, MergeWrite
from sinks.reach import EVERY_AGENT, Reach

log = logging.getLogger(__name__)

#: A group as found: its members (lead first) and their embeddings (rows aligned).
Found = tuple[list[Memory], np.ndarray]


async def consolidate(
    store: ConsolidationStore,
    projector: VectorProjector | None,
    embedder: Embedder | None,
    tenant_id: str,
    topic: str,
    user_id: str | None = None,
    threshold: float = 0.85,
    dry_run: bool = True,
    merger: Merger | None = None,
    now: datetime | None = None,
    reach: Reach = EVERY_AGENT,
) -> ConsolidationDiff:
    """Consolidate one topic of one tenant (one user's memories, or each user's in turn).

    Scope on writes: only memories within `reach` are loaded, so a caller never merges (or sees in
    the diff) another agent's private memories; partitions keep each agent's apart from the shared.
    """
    check_threshold(threshold)
    started = time.perf_counter()
    merger = merger or OfflineMerger()
    now = now or utcnow()
    loaded = await store.consolidation_candidates(tenant_id, topic, user_id, reach)
    members, embeddings = await _with_embeddings(loaded, embedder)
    found = find_groups(members, embeddings, threshold)
    merges: list[tuple[MergeWrite, DiffGroup]] = []
    for group, vecs in found:
        merged = await merger.merge(merge_context(topic, group))
        canonical = canonical_memory(group, redact_secrets(merged.text)[0], now)  # a model may echo one
        diff = DiffGroup(
            canonical_id=canonical.id,
            canonical_text=canonical.text,
            user_id=canonical.user_id,
            merged_by=merged.merged_by,
            min_similarity=round(min_similarity(vecs, list(range(len(group)))), 4),
            member_ids=[m.id for m in group],
            members=[DiffMember(**m.model_dump(include=set(DiffMember.model_fields))) for m in group],
        )
        merges.append((merge_write(canonical, group, None), diff))
    groups = [diff for _, diff in merges]
    if not dry_run and merges:
        groups = await _apply(store, projector, embedder, tenant_id, merges, found)
    if not dry_run:
        merged = sum(len(g.member_ids) for g in groups if g.applied)
        worker_metrics().jobs.observe("consolidation", time.perf_counter() - started, {"scanned": len(loaded), "merged": merged})
    return ConsolidationDiff(
        tenant_id=tenant_id,
        topic=topic,
        user_id=user_id,
        similarity_threshold=threshold,
        dry_run=dry_run,
        scanned=len(loaded),
        without_embedding=len(loaded) - len(members),
        groups=groups,
    )


def find_groups(members: Sequence[Memory], embeddings: np.ndarray, threshold: float) -> list[Found]:
    """Groups of near-duplicates, never across a partition or an incompatible pair; lead first."""
    partitions: dict[compat.Partition, list[int]] = defaultdict(list)
    for index, memory in enumerate(members):
        partitions[compat.partition_of(memory)].append(index)
    found: list[Found] = []
    for indices in partitions.values():
        if len(indices) < 2:
            continue
        ordered = [indices[i] for i in _lead_positions([members[i] for i in indices])]
        part = [members[i] for i in ordered]
        vecs = embeddings[ordered]
        for group in cluster(vecs, threshold, lambda a, b, part=part: compat.compatible(part[a], part[b])):
            found.append(([part[i] for i in group], vecs[group]))
    return found


def _lead_positions(memories: list[Memory]) -> list[int]:
    order = {id(m): i for i, m in enumerate(memories)}
    return [order[id(m)] for m in lead_order(memories)]


def merge_context(topic: str, group: Sequence[Memory]) -> MergeContext:
    return MergeContext(
        topic=topic,
        memories=[MergeItem(text=m.text, type=m.type, importance=m.importance) for m in group],
    )


def merge_write(canonical: Memory, group: Sequence[Memory], embedding: Sequence[float] | None) -> MergeWrite:
    """The rows and events of one merge: `created` for the canonical, `superseded` for each original."""
    closed = [consolidated(m, canonical) for m in group]
    events = [MemoryEvent.about(EventKind.CREATED, canonical, canonical.created_at)]
    events += [MemoryEvent.about(EventKind.SUPERSEDED, m, m.valid_until) for m in closed]
    return MergeWrite(canonical=canonical, embedding=embedding, originals=closed, events=events)


async def _with_embeddings(
    loaded: Sequence[tuple[Memory, list[float] | None]], embedder: Embedder | None
) -> tuple[list[Memory], np.ndarray]:
    """Stored embeddings as they are; missing ones embedded now, or the memory left out without an embedder."""
    missing = [m.text for m, e in loaded if e is None]
    fresh = iter(await embedder.aembed(missing) if embedder is not None and missing else ())
    members: list[Memory] = []
    rows: list[np.ndarray] = []
    for memory, embedding in loaded:
        if embedding is None and embedder is None:
            continue
        members.append(memory)
        rows.append(np.asarray(embedding if embedding is not None else next(fresh), dtype=np.float32))
    matrix = np.vstack(rows) if rows else np.empty((0, 0), dtype=np.float32)
    return members, matrix


async def _apply(
    store: ConsolidationStore,
    projector: VectorProjector | None,
    embedder: Embedder | None,
    tenant_id: str,
    merges: list[tuple[MergeWrite, DiffGroup]],
    found: list[Found],
) -> list[DiffGroup]:
    """Embed the canonical texts and write the merges (with their vector outbox entries)."""
    texts = [write.canonical.text for write, _ in merges]
    if embedder is not None:
        vectors_ = list(await embedder.aembed(texts))
    else:  # no model at hand: the members' mean direction stands in until the text is re-embedded
        vectors_ = [normalized(vecs.mean(axis=0, keepdims=True))[0] for _, vecs in found]
    writes = [
        MergeWrite(w.canonical, [float(x) for x in v], w.originals, w.events)
        for (w, _), v in zip(merges, vectors_, strict=True)
    ]
    written = {w.canonical.id for w in await store.write_merges(tenant_id, writes)}
    if projector is not None and written:
        projector.wake()
    return [diff.model_copy(update={"applied": diff.canonical_id in written}) for _, diff in merges]
