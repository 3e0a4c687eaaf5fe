"""PrefEval explicit preferences through extraction and recall, in process.

Each stated preference is one user turn: strip, redact, junk, the rules extractor, the memory the
write path makes, written and reconciled by the SQL store (SQLite) with its vector point in Qdrant
Edge, embedded by the real MiniLM, all in a temporary directory. Grouping `profile` (default) gives
user k the k-th preference of every topic file (a profile of ~20 preferences on different subjects);
grouping `topic` gives one user all the preferences of one topic (~50 on the same subject, a much
harder race). Then each paired question goes through `RecallService.recall` with `limit` 5. Reported: the share of preferences
stored as a `preference` memory (and stored at all), and the share whose question recalls it.

Reads ../shared/data/prefeval/*.json at run time (never copied):

    .venv/bin/python -m bench.prefeval [--data DIR] [--limit-per-topic N] [--grouping profile|topic]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from beliefs.records import JobState, MemoryType, Role, Turn, job_id_for
from beliefs.write_plan import TurnOutcome
from embedding.embedder import load_default_embedder
from reading.extract import RulesExtractor
from reading.prepare import clean_turn, extract_claims, memories_from_claims
from sidecar.auth import Principal
from sidecar.recall.access import AccessRecorder
from sidecar.recall.audit import AuditLog
from sidecar.recall.models import RecallRequest
from sidecar.recall.service import RecallService
from sinks.base import VectorPoint, vector_payload
from sinks.sql.store import SqlMemoryStore
from sinks.sql.vector_outbox import SqlVectorOutbox
from sinks.vectors.edge import EdgeVectorIndex

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "prefeval"
FALLBACK_DATA = Path("/work/shared/data/prefeval")
TENANT = "prefeval"
TOP_K = 5
SAID_AT = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Item:
    topic: str
    index: int
    preference: str
    question: str
    grouping: str = "profile"

    @property
    def user_id(self) -> str:
        return f"prefeval-{self.topic}" if self.grouping == "topic" else f"prefeval-{self.index}"

    @property
    def turn_id(self) -> str:
        return f"{self.topic}-{self.index}"


def load_items(directory: Path, limit_per_topic: int | None = None, grouping: str = "profile") -> list[Item]:
    items = []
    for path in sorted(directory.glob("*.json")):
        for index, row in enumerate(json.loads(path.read_text())[:limit_per_topic]):
            items.append(Item(path.stem, index, row["preference"], row["question"], grouping))
    return items


def turn_of(item: Item, order: int) -> Turn:
    return Turn(turn_id=item.turn_id, tenant_id=TENANT, user_id=item.user_id, session_id=item.user_id,
                role=Role.USER, text=item.preference, ts=SAID_AT + timedelta(minutes=order))  # fmt: skip


async def write(
    items: list[Item], store: SqlMemoryStore, index: EdgeVectorIndex, embedder
) -> dict[str, list]:
    """Extract and write every preference; the memories made of each turn, by turn id."""
    turns = [turn_of(item, order) for order, item in enumerate(items)]
    prepared = [clean_turn(turn) for turn in turns]
    claims = await extract_claims(prepared, RulesExtractor())
    made: dict[str, list] = {}
    outcomes = []
    for item, turn, found in zip(prepared, turns, claims, strict=True):
        memories = memories_from_claims(turn, found, turn.ts)
        made[turn.turn_id] = memories
        vectors = embedder.embed([memory.text for memory in memories]) if memories else []
        state, reason = (
            (JobState.DONE, None)
            if memories
            else (JobState.SKIPPED, item.skip_reason or "no_memory_extracted")
        )
        outcomes.append(
            TurnOutcome(turn, job_id_for(TENANT, turn.turn_id), state, reason, memories, list(vectors))
        )
    for start in range(0, len(outcomes), 256):
        await store.write(outcomes[start : start + 256])
    pending = await SqlVectorOutbox.of(store).pending_vectors(limit=1_000_000)
    await index.write([VectorPoint(p.memory.id, p.embedding, vector_payload(p.memory)) for p in pending])
    await SqlVectorOutbox.of(store).mark_vectors_synced([p.memory.id for p in pending])
    return made


async def run(items: list[Item], show_misses: bool = False) -> dict:
    embedder = load_default_embedder()
    with tempfile.TemporaryDirectory(prefix="prefeval-") as directory:
        store = SqlMemoryStore(f"sqlite+aiosqlite:///{Path(directory) / 'memory.db'}")
        await store.setup()
        index = EdgeVectorIndex(Path(directory) / "vectors")
        await index.setup()
        service = RecallService(
            store, index, embedder, audit=AuditLog(store), access_recorder=AccessRecorder(store)
        )
        await service.start()
        try:
            started = time.perf_counter()
            made = await write(items, store, index, embedder)
            write_s = time.perf_counter() - started
            recalled = 0
            by_type: Counter[str] = Counter()
            misses: list[dict] = []
            for item in items:
                memories = made[item.turn_id]
                kind = _kind(memories)
                by_type[kind] += 1
                request = RecallRequest(
                    user_id=item.user_id, query=item.question, limit=TOP_K, budget_tokens=4000
                )
                result = await service.recall(Principal(TENANT), request)
                found = any(item.turn_id in memory.citations for memory in result.memories)
                recalled += found
                if show_misses and (kind != "preference" or not found):
                    misses.append(_miss(item, kind, memories, found))
        finally:
            await service.close()
            await index.close()
            await store.close()
    total = len(items)
    stored = total - by_type["nothing"]
    result = {"preferences": total, "stored_as_preference": by_type["preference"] / total,
            "preference_or_safety_fact": (by_type["preference"] + by_type["safety fact"]) / total, "stored": stored / total,
            "recalled_top5": recalled / total, "kinds": dict(by_type), "write_seconds": round(write_s, 1)}  # fmt: skip
    if show_misses:
        result["misses"] = misses
    return result


def _miss(item: Item, kind: str, memories: list, recalled: bool) -> dict:
    """One preference not stored as `preference` or not recalled: printed for reading, never saved."""
    made = [f"{memory.type.value}/{memory.attribute}: {memory.text}" for memory in memories]
    return {"turn": item.turn_id, "kind": kind, "recalled": recalled, "said": item.preference,
            "question": item.question, "made": made}  # fmt: skip


#: Facts the seed types as facts although they act as preferences at recall (diets, allergies, conditions).
SAFETY_FACTS = frozenset({"diet", "allergy", "medical_condition"})


def _kind(memories: list) -> str:
    if not memories:
        return "nothing"
    if any(memory.type is MemoryType.PREFERENCE for memory in memories):
        return "preference"
    if any(memory.attribute in SAFETY_FACTS for memory in memories):
        return "safety fact"
    return "other:" + memories[0].type.value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="PrefEval: preferences stored as `preference`, and recalled by their question."
    )
    parser.add_argument("--data", type=Path, default=None, help="the prefeval directory of *.json files")
    parser.add_argument(
        "--limit-per-topic", type=int, default=None, help="read only the first N of each topic"
    )
    parser.add_argument(
        "--misses", action="store_true", help="also print each preference missed (type or recall), to read"
    )
    parser.add_argument(
        "--grouping", choices=("profile", "topic"), default="profile", help="which preferences share a user"
    )
    args = parser.parse_args(argv)
    directory = args.data or (DEFAULT_DATA if DEFAULT_DATA.exists() else FALLBACK_DATA)
    if not directory.exists():
        print(f"error: PrefEval data not found at {directory}; pass --data DIR", file=sys.stderr)
        return 2
    result = asyncio.run(run(load_items(directory, args.limit_per_topic, args.grouping), args.misses))
    result["grouping"] = args.grouping
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
