"""Synthetic but realistic recall datasets for `bench/recall.py`, bulk-loaded straight into the sinks.

Why synthetic: no public corpus has 1M governed memories and turns spread over 10k users. Memories
are templated self-disclosures, preferences, decisions, profile facts and constraints across the
registry's attributes, with varied entities; single-valued attributes said twice leave the older
row superseded (so the currency filters have work to do), and a few rows are revoked or expired.

Episodes are the turns of templated conversations, in sessions: user turns (some of them the very
text a memory of that user was extracted from, linked by `memory_ids` as the write path links them),
assistant answers (`caution`), pasted dumps and tool output (`untrusted`); a few are revoked,
expired (retention) or private to an agent. They go into `episodes` (its FTS5 trigger fires) and
`episode_embeddings`, and their points (kind `episode`) into the same shard.

Why bulk: the write path (reconcile, outbox, one vector upsert per memory) would take hours at 1M.
Rows go in with `executemany` on the migrated database (the FTS5 triggers of migration 0002 fire
for every row, exactly as for the write path); points go into the Edge shard in batches of 2,000.

Why template vectors: embedding 1M texts with the real model would take 20+ minutes on 2 cores, so
the few thousand distinct template texts are embedded for real and each memory gets its template's
vector plus small Gaussian noise, renormalized. Queries are embedded for real at recall time.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from beliefs.attributes import ATTRIBUTES
from beliefs.episodes import episode_id_for
from beliefs.reconcile import text_fingerprint
from bench.recall_texts import ENTITIES, EPISODE_KINDS, Template
from sinks.base import EPISODE_KIND, MEMORY_KIND, VectorPoint
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import episodes, memories
from sinks.vectors.edge import EdgeVectorIndex

#: Bump when the generator changes: a dataset directory built by another version is rebuilt.
VERSION = 7  # 3: embeddings in memory_embeddings (0004); 4: float16 vectors; 5: polarity, sensitivity (0006); 6: vector_dirty_at (0011); 7: episodes, payload kind
TENANTS = 10
AGENT = "planner"
NOISE = 0.012  # per-dimension sigma: a memory's cosine to its template is ~0.97

def user_ids(users: int) -> list[tuple[str, str]]:
    return [(f"t{u % TENANTS}", f"user{u:06d}") for u in range(users)]

def _stamp(moment: datetime) -> str:
    """SQLAlchemy's SQLite DateTime storage format (UTC, no offset), as the store writes it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class Generator:
    """Rows and vector points for `size` memories over `users` users, deterministic for a seed."""

    def __init__(
        self,
        pool: list[tuple[Template, str]],
        vectors: np.ndarray,
        seed: int = 11,
        episode_texts: list[tuple[str, str]] = (),
        episode_vectors: np.ndarray | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.now = datetime.now(UTC)
        by_kind: dict[str, list[int]] = {"plain": [], "profile": [], "constraint": []}
        for i, (template, _) in enumerate(pool):
            kind = (
                "constraint"
                if template.recall_semantics == "constraint"
                else "profile"
                if ATTRIBUTES[template.attribute].profile
                else "plain"
            )
            by_kind[kind].append(i)
        self.pool, self.by_kind = pool, by_kind
        self.fingerprints = [text_fingerprint(text) for _, text in pool]
        self.columns = [c.name for c in memories.columns]
        self.episode_columns = [c.name for c in episodes.columns]
        # rows of `vectors`: the memory texts, then the episode texts
        self.memory_texts, self.episode_texts = len(pool), list(episode_texts)
        self.vectors = vectors if episode_vectors is None else np.concatenate([vectors, episode_vectors])
        self.episode_kinds: dict[str, list[int]] = {kind: [] for kind in EPISODE_KINDS}
        for i, (kind, _) in enumerate(self.episode_texts):
            self.episode_kinds[kind].append(i)

    def user_rows(self, tenant: str, user: str, count: int) -> list[tuple[dict, int]]:
        """One user's rows (as column dicts) with the pool index of each row's text."""
        rng = self.rng
        n_profile = min(4, count // 8)
        n_constraint = 1 if count >= 10 else 0
        kinds = ["profile"] * n_profile + ["constraint"] * n_constraint
        kinds += ["plain"] * (count - len(kinds))
        current: dict[str, dict] = {}  # single-valued attribute -> its current row
        rows: list[tuple[dict, int]] = []
        moments = sorted(self.now - timedelta(days=rng.uniform(0.1, 700)) for _ in kinds)
        for kind, moment in zip(kinds, moments, strict=True):
            pick = rng.choice(self.by_kind[kind])
            template, text = self.pool[pick]
            spec = ATTRIBUTES[template.attribute]
            turn = uuid.UUID(int=rng.getrandbits(128), version=4).hex
            row = {
                "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "tenant_id": tenant,
                "user_id": user,
                "agent_id": None,
                "visibility": "user",
                "text": text,
                "type": spec.type.value,
                "topic": spec.topic,
                "importance": round(rng.uniform(0.3, 0.95), 2),
                "confidence": round(rng.uniform(0.6, 0.98), 2),
                "entity": "user",
                "attribute": template.attribute,
                "value": None,
                "context": None,
                "polarity": "positive",
                "sensitivity": None,
                "recall_semantics": template.recall_semantics,
                "trigger": json.dumps(dict(template.trigger)) if template.trigger else None,
                "profile": int(spec.profile),
                "source_role": "user",
                "source_session": f"s-{user}-{len(rows) // 20}",
                "source_turn_ids": json.dumps([f"turn-{turn}"]),
                "evidence": text,
                "trust": "caution" if rng.random() < 0.02 else "trusted",
                "state": "active",
                "created_at": _stamp(moment),
                "valid_from": _stamp(moment),
                "valid_until": None,
                "superseded_by": None,
                "expires_at": None,
                "revoked_at": None,
                "last_confirmed": None,
                "last_accessed": None,
                "access_count": 0,
                "decay_score": None,
                "half_life_days": spec.half_life_days,
                "vector_dirty": 0,
                "vector_dirty_at": None,
                "vector_version": 1,
                "text_norm_hash": self.fingerprints[pick],
            }
            if kind == "plain" and rng.random() < 0.05:  # private to one agent
                row["agent_id"], row["visibility"] = AGENT, "agent"
            if spec.single_valued and kind == "plain":
                older = current.get(template.attribute)
                if older is not None:  # said again: the older value is superseded, as reconcile does
                    older |= {"state": "superseded", "valid_until": row["valid_from"], "superseded_by": row["id"]}
                current[template.attribute] = row
            roll = rng.random()
            if row["state"] == "active" and roll < 0.01:
                row |= {"state": "revoked", "revoked_at": row["valid_from"], "valid_until": row["valid_from"]}
            elif roll < 0.02:
                row["expires_at"] = row["valid_from"]  # said "this week", long ago
            rows.append((row, pick))
        return rows

    def user_episodes(self, tenant: str, user: str, count: int, said: list[tuple[dict, int]]) -> list[tuple[dict, int]]:
        """One user's episodes (as column dicts) with the row of `self.vectors` of each text: sessions
        of alternating user and assistant turns; about a third of the user's turns are the text a
        memory of theirs came from (linked by `memory_ids`)."""
        rng = self.rng
        stated = [(row, pick) for row, pick in said if row["source_role"] == "user"]
        rng.shuffle(stated)
        speaker = rng.choice(ENTITIES["name"]) if rng.random() < 0.5 else None
        rows: list[tuple[dict, int]] = []
        session, turn_in_session, moment = 0, 0, self.now - timedelta(days=rng.uniform(1, 700))
        session_length = rng.randint(6, 24)
        while len(rows) < count:
            if turn_in_session >= session_length:  # a new conversation, some days later
                session, turn_in_session, session_length = session + 1, 0, rng.randint(6, 24)
                moment = self.now - timedelta(days=rng.uniform(1, 700))
            moment += timedelta(seconds=rng.uniform(20, 300))
            user_turn = turn_in_session % 2 == 0
            memory_ids: list[str] = []
            if user_turn and stated and rng.random() < 0.35:
                memory, pick = stated.pop()
                kind, text, memory_ids = "user", memory["text"], [memory["id"]]
            else:
                roll = rng.random()
                kind = ("pasted" if roll < 0.02 else "user") if user_turn else ("tool" if roll < 0.03 else "assistant")
                index = rng.choice(self.episode_kinds[kind])
                text, pick = self.episode_texts[index][1], self.memory_texts + index
            spec = EPISODE_KINDS[kind][0]
            turn = f"turn-{uuid.UUID(int=rng.getrandbits(128), version=4).hex}"
            row = {
                "id": episode_id_for(tenant, turn),
                "tenant_id": tenant,
                "user_id": user,
                "agent_id": None,
                "visibility": "user",
                "session_id": f"s-{user}-{session}",
                "turn_id": turn,
                "role": spec.role,
                "speaker": speaker if spec.role == "user" else None,
                "text": text,
                "said_at": _stamp(moment),
                "created_at": _stamp(moment),
                "trust": spec.trust,
                "memory_ids": json.dumps(memory_ids),
                "state": "active",
                "expires_at": None,
                "revoked_at": None,
                "vector_dirty": 0,
                "vector_version": 1,
                "vector_dirty_at": None,
            }
            roll = rng.random()
            if roll < 0.05:  # a turn through an agent's private channel
                row["agent_id"], row["visibility"] = AGENT, "agent"
            elif roll < 0.06:
                row |= {"state": "revoked", "revoked_at": row["said_at"]}
            elif roll < 0.07:
                row["expires_at"] = row["said_at"]  # past the retention window
            rows.append((row, pick))
            turn_in_session += 1
        return rows

    def batch(
        self, users: list[tuple[str, str]], counts: list[int], episode_counts: list[int] | None = None
    ) -> Batch:
        """SQL parameter tuples of `memories`, `memory_embeddings`, `episodes`, `episode_embeddings`,
        and the vector points, for these users."""
        episode_counts = episode_counts or [0] * len(users)
        memories_, episodes_ = [], []
        for (tenant, user), n, e in zip(users, counts, episode_counts, strict=True):
            rows = self.user_rows(tenant, user, n)
            memories_ += rows
            if e:
                episodes_ += self.user_episodes(tenant, user, e, rows)
        out = Batch([], [], [], [], [])
        for flat, is_episode in ((memories_, False), (episodes_, True)):
            if not flat:
                continue
            picks = np.fromiter((pick for _, pick in flat), dtype=np.int64, count=len(flat))
            noisy = self.vectors[picks] + self.np_rng.normal(0.0, NOISE, (len(flat), self.vectors.shape[1]))
            noisy = (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype("<f4")
            columns = self.episode_columns if is_episode else self.columns
            params = out.episodes if is_episode else out.memories
            embeddings = out.episode_embeddings if is_episode else out.memory_embeddings
            payload = _episode_payload if is_episode else _payload
            for (row, _), vector in zip(flat, noisy, strict=True):
                params.append(tuple(row.get(c) for c in columns))  # a column the rows do not set is NULL
                embeddings.append((row["id"], vector.tobytes()))
                out.points.append(VectorPoint(row["id"], vector, payload(row)))
        return out


@dataclass
class Batch:
    memories: list[tuple]
    memory_embeddings: list[tuple[str, bytes]]
    episodes: list[tuple]
    episode_embeddings: list[tuple[str, bytes]]
    points: list[VectorPoint]


def _scope_payload(row: dict) -> dict:
    """The payload keys every point carries (scope and state), from a row."""
    keys = ("tenant_id", "user_id", "visibility", "state")
    return {key: row[key] for key in keys} | {"agent_id": row["agent_id"] or ""}


def _payload(row: dict) -> dict:
    """`sinks.base.vector_payload` of the row, without building a `Memory` per row."""
    return _scope_payload(row) | {
        "type": row["type"],
        "topic": row["topic"],
        "profile": bool(row["profile"]),
        "recall_semantics": row["recall_semantics"],
        "confidence": row["confidence"],
        "importance": row["importance"],
        "decay_score": None,
        "kind": MEMORY_KIND,
    }


def _episode_payload(row: dict) -> dict:
    """`sinks.base.episode_payload` of the row."""
    return _scope_payload(row) | {
        "kind": EPISODE_KIND,
        "role": row["role"],
        "trust": row["trust"],
        "session_id": row["session_id"] or "",
    }


def spread(size: int, users: int, rng: random.Random) -> list[int]:
    """Items per user: skewed (some users talk a lot), summing to `size`; at least one each when
    there are enough."""
    weights = [rng.paretovariate(2.0) for _ in range(users)]
    total = sum(weights)
    least = 1 if size >= users else 0
    counts = [max(least, int(size * w / total)) for w in weights]
    diff = size - sum(counts)
    i = 0
    while diff != 0:
        step = 1 if diff > 0 else -1
        if counts[i % users] + step >= least:
            counts[i % users] += step
            diff -= step
        i += 1
    return counts


def split(size: int, episode_share: float) -> tuple[int, int]:
    """(memories, episodes) of `size` stored items."""
    if not 0 <= episode_share < 1:
        raise ValueError(f"episode share must be in [0, 1), got {episode_share}")
    episodes_ = round(size * episode_share)
    return size - episodes_, episodes_


def dataset_dir(data_dir: Path, size: int, users: int, episode_share: float = 0.0) -> Path:
    _, episodes_ = split(size, episode_share)
    return data_dir / f"recall-v{VERSION}-{size}-{users}-e{episodes_}"


def _insert(table) -> str:
    columns = [c.name for c in table.columns]
    return f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


async def build(
    directory: Path,
    size: int,
    users: int,
    pool,
    pool_vectors: np.ndarray,
    log=print,
    *,
    episode_share: float = 0.0,
    episode_texts: list[tuple[str, str]] = (),
    episode_vectors: np.ndarray | None = None,
) -> None:
    """Create the database and the shard under `directory` (which must not be marked complete):
    `size` items, `episode_share` of them episodes."""
    n_memories, n_episodes = split(size, episode_share)
    if n_episodes and episode_vectors is None:
        raise ValueError("episodes need the episode texts and their vectors")
    await asyncio.to_thread(directory.mkdir, parents=True, exist_ok=True)
    db = directory / "memory.db"
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{db}")
    await store.setup()  # migrations: schema, indexes, FTS5 tables and their triggers
    await store.close()
    index = EdgeVectorIndex(directory / "vectors")
    await index.setup()
    generator = Generator(pool, pool_vectors, episode_texts=episode_texts, episode_vectors=episode_vectors)
    ids = user_ids(users)
    counts = spread(n_memories, users, random.Random(5))
    episode_counts = spread(n_episodes, users, random.Random(5)) if n_episodes else [0] * users
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    started, done, step = time.perf_counter(), 0, 200
    try:
        for start in range(0, users, step):
            part = slice(start, start + step)
            batch = generator.batch(ids[part], counts[part], episode_counts[part])
            with conn:
                conn.executemany(_insert(memories), batch.memories)
                conn.executemany("INSERT INTO memory_embeddings (memory_id, embedding) VALUES (?, ?)", batch.memory_embeddings)
                conn.executemany(_insert(episodes), batch.episodes)
                conn.executemany(
                    "INSERT INTO episode_embeddings (episode_id, embedding) VALUES (?, ?)", batch.episode_embeddings
                )
            for i in range(0, len(batch.points), 2000):
                await index.write(batch.points[i : i + 2000])
            done += len(batch.points)
            if (start // step) % 5 == 0 or start + step >= users:
                elapsed = time.perf_counter() - started
                left = elapsed / done * (size - done) if done else 0
                log(f"  loaded {done:,}/{size:,} items ({elapsed:.0f} s, about {left:.0f} s left)", flush=True)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
        await index.close()
    meta = {"size": size, "memories": n_memories, "episodes": n_episodes, "users": users, "version": VERSION}
    (directory / "complete.json").write_text(json.dumps(meta))
    log(f"  built {n_memories:,} memories and {n_episodes:,} episodes in {time.perf_counter() - started:.0f} s")
