"""Synthetic but realistic recall datasets for `bench/recall.py`, bulk-loaded straight into the sinks.

Why synthetic: no public corpus has 1M governed memories spread over 10k users. Memories are
templated self-disclosures, preferences, decisions, profile facts and constraints across the
registry's attributes, with varied entities; single-valued attributes said twice leave the older
row superseded (so the currency filters have work to do), and a few rows are revoked or expired.

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
from beliefs.reconcile import text_fingerprint
from sinks.base import VectorPoint
from sinks.sql.store import SqlMemoryStore
from sinks.sql.tables import memories
from sinks.vectors.edge import EdgeVectorIndex

#: Bump when the generator changes: a dataset directory built by another version is rebuilt.
VERSION = 6  # 3: embeddings in memory_embeddings (migration 0004); 4: float16 vector storage; 5: polarity, sensitivity (0006); 6: vector_dirty_at (0011)
TENANTS = 10
AGENT = "planner"
NOISE = 0.012  # per-dimension sigma: a memory's cosine to its template is ~0.97

ENTITIES = {
    "food": "sushi ramen tacos dumplings pho curry paella falafel risotto lasagna bibimbap ceviche".split(),
    "city": "Lisbon Kyoto Berlin Oslo Toronto Austin Seoul Porto Prague Melbourne Denver Nairobi".split(),
    "tool": "Docker Kubernetes Terraform Postgres Redis Kafka Grafana Jira Notion Figma Airflow Ansible".split(),
    "editor": "Neovim Helix Emacs VSCode PyCharm Zed Sublime IntelliJ".split(),
    "lang": "Python Rust Go TypeScript Kotlin Elixir Haskell Java Swift Scala".split(),
    "instrument": "cello piano guitar violin drums saxophone ukulele trumpet".split(),
    "sport": "running cycling climbing swimming tennis yoga rowing chess hiking surfing".split(),
    "company": "Acme Globex Initech Umbrella Hooli Stark Wayne Vandelay Tyrell Cyberdyne".split(),
    "job": "backend engineer|data scientist|product manager|designer|SRE|team lead".split("|"),
    "pet": "dog cat parrot rabbit tortoise hamster".split(),
    "petname": "Miso Biscuit Luna Pepper Ziggy Nova Tofu Olive".split(),
    "allergen": "peanuts shellfish gluten lactose pollen penicillin sesame".split(),
    "diet": "vegan vegetarian pescatarian keto low-sodium halal".split(),
    "airline": "Ryanair Spirit Alto Wizz Frontier EasyJet".split(),
    "project": "billing search checkout onboarding analytics notifications".split(),
    "when": "morning afternoon evening".split(),
    "month": "March May July September October December".split(),
    "event": ["a marathon", "a half marathon", "a triathlon", "a century ride"],
    "name": "Ana Ben Chloe Dmitri Elif Farah Goran Hana Ivo Jun Kofi Lea".split(),
    "tz": "Europe/Lisbon America/Chicago Asia/Tokyo Europe/Berlin America/Toronto".split(),
    "language": "English Portuguese German Japanese Spanish French".split(),
    "style": "short and direct|detailed with examples|casual|formal".split("|"),
}


@dataclass(frozen=True)
class Template:
    attribute: str
    text: str
    recall_semantics: str = "default"
    trigger: tuple[tuple[str, str], ...] | None = None


# (attribute, text) ; the attribute's registry spec gives type, topic, profile and half-life
TEMPLATES = [
    Template("likes", "I really love {food}, it's my go-to comfort food."),
    Template("likes", "My favourite place in the world is {city}."),
    Template("dislikes", "I can't stand {food}, please never suggest it."),
    Template("hobby", "I play the {instrument} most weekends."),
    Template("hobby", "I've been getting into {sport} lately."),
    Template("uses_tool", "At work we use {tool} for most of our infrastructure."),
    Template("uses_tool", "I keep my notes and plans in {tool}."),
    Template("preferred_editor", "I write all my code in {editor}."),
    Template("preferred_programming_language", "My main programming language is {lang}."),
    Template("lives_in", "I live in {city} now."),
    Template("works_at", "I work at {company} as a {job}."),
    Template("role", "My role is {job}."),
    Template("has_pet", "I have a {pet} called {petname}."),
    Template("goal", "I'm training for {event} next {month}."),
    Template("goal", "I want to learn {lang} this year."),
    Template("located_in", "I'm in {city} this week for a conference."),
    Template("allergy", "I'm allergic to {allergen}."),
    Template("diet", "I follow a {diet} diet."),
    Template("decision", "We decided to move the {project} service to {tool}."),
    Template("decision", "The team agreed to rewrite {project} in {lang}."),
    Template("preferred_meeting_time", "I prefer meetings in the {when}."),
    Template("medical_condition", "I have mild asthma, so {sport} can be hard in cold weather."),
]
PROFILE_TEMPLATES = [
    Template("name", "My name is {name}."),
    Template("timezone", "My timezone is {tz}."),
    Template("preferred_language", "Please answer me in {language}."),
    Template("communication_style", "I like answers {style}."),
]
CONSTRAINT_TEMPLATES = [
    Template("avoid", "Never book flights with {airline}.", "constraint", (("action", "book_flight"),)),
    Template(
        "avoid",
        "Don't recommend restaurants that serve {food}.",
        "constraint",
        (("action", "recommend"), ("domain", "restaurant")),
    ),
]
QUESTIONS = [
    "What food do I like?",
    "Any restaurant ideas for tonight, maybe {food}?",
    "Which editor should I configure for {lang}?",
    "Where do I live these days?",
    "Can you book me a flight to {city}?",
    "What instrument do I play?",
    "Help me plan a training schedule for {event}.",
    "What tools does my team use for infrastructure?",
    "What did we decide about the {project} service?",
    "When do I like to have meetings?",
    "Am I allergic to anything I should tell the chef?",
    "Suggest a weekend activity involving {sport}.",
    "What's my pet's name?",
    "Where do I work and what do I do there?",
    "Should I use {tool} for the new project?",
    "What kind of diet do I follow?",
    "Recommend a good book about {lang} programming.",
    "What should I cook for dinner with {food}?",
]


OPENERS = ["", "", "Honestly, ", "Just so you know, ", "FYI: ", "As I said before, ", "Oh and "]
CLOSERS = ["", "", " That's been true for a while.", " Remember that.", " Since last year.", " (not a big deal)"]


def _fill(text: str, rng: random.Random) -> str:
    return text.format(**{key: rng.choice(values) for key, values in ENTITIES.items()})


def _phrase(text: str, rng: random.Random) -> str:
    """A filled template with the small variations of real speech around it."""
    filled = _fill(text, rng)
    opener = rng.choice(OPENERS)
    if opener:
        filled = opener + filled[0].lower() + filled[1:] if not filled.startswith("I") else opener + filled
    return filled + rng.choice(CLOSERS)


def template_pool(rng: random.Random, per_template: int = 200) -> list[tuple[Template, str]]:
    """Distinct (template, filled text) pairs: a few thousand texts, each embedded for real once."""
    pool: dict[str, Template] = {}
    for template in [*TEMPLATES, *PROFILE_TEMPLATES, *CONSTRAINT_TEMPLATES]:
        for _ in range(per_template):
            pool.setdefault(_phrase(template.text, rng), template)
    return [(template, text) for text, template in pool.items()]


ASK_OPENERS = ["", "", "Hey, ", "Quick question: ", "So, ", "Remind me: ", "Before we start, ", "Ok. ", "Hmm, "]
ASK_CLOSERS = [
    "", "", " Thanks!", " Keep it short.", " Be specific.", " This is for tomorrow.", " Any ideas?",
    " It's for {name}.", " We're in {city} on {month} 3rd.", " I have {tool} open.",
]


def questions(rng: random.Random, n: int) -> list[str]:
    """Natural-language recall queries; mostly distinct, a few repeated, as real traffic is."""
    return [
        _fill(rng.choice(ASK_OPENERS) + rng.choice(QUESTIONS) + rng.choice(ASK_CLOSERS), rng) for _ in range(n)
    ]


def user_ids(users: int) -> list[tuple[str, str]]:
    return [(f"t{u % TENANTS}", f"user{u:06d}") for u in range(users)]


def _stamp(moment: datetime) -> str:
    """SQLAlchemy's SQLite DateTime storage format (UTC, no offset), as the store writes it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class Generator:
    """Rows and vector points for `size` memories over `users` users, deterministic for a seed."""

    def __init__(self, pool: list[tuple[Template, str]], vectors: np.ndarray, seed: int = 11) -> None:
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
        self.pool, self.vectors, self.by_kind = pool, vectors, by_kind
        self.fingerprints = [text_fingerprint(text) for _, text in pool]
        self.columns = [c.name for c in memories.columns]

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

    def batch(
        self, users: list[tuple[str, str]], counts: list[int]
    ) -> tuple[list[tuple], list[tuple[str, bytes]], list[VectorPoint]]:
        """SQL parameter tuples of `memories` and of `memory_embeddings`, and vector points, for these users."""
        flat = [pair for (tenant, user), n in zip(users, counts, strict=True) for pair in self.user_rows(tenant, user, n)]
        picks = np.fromiter((pick for _, pick in flat), dtype=np.int64, count=len(flat))
        noisy = self.vectors[picks] + self.np_rng.normal(0.0, NOISE, (len(flat), self.vectors.shape[1]))
        noisy = (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype("<f4")
        params, embeddings, points = [], [], []
        for (row, _), vector in zip(flat, noisy, strict=True):
            params.append(tuple(row[c] for c in self.columns))
            embeddings.append((row["id"], vector.tobytes()))
            points.append(VectorPoint(row["id"], vector, _payload(row)))
        return params, embeddings, points


def _payload(row: dict) -> dict:
    """`sinks.base.vector_payload` of the row, without building a `Memory` per row."""
    return {
        "tenant_id": row["tenant_id"],
        "user_id": row["user_id"],
        "agent_id": row["agent_id"] or "",
        "visibility": row["visibility"],
        "state": row["state"],
        "type": row["type"],
        "topic": row["topic"],
        "profile": bool(row["profile"]),
        "recall_semantics": row["recall_semantics"],
        "confidence": row["confidence"],
        "importance": row["importance"],
        "decay_score": None,
    }


def spread(size: int, users: int, rng: random.Random) -> list[int]:
    """Memories per user: skewed (some users talk a lot), summing to `size`."""
    weights = [rng.paretovariate(2.0) for _ in range(users)]
    total = sum(weights)
    counts = [max(1, int(size * w / total)) for w in weights]
    diff = size - sum(counts)
    i = 0
    while diff != 0:
        step = 1 if diff > 0 else -1
        if counts[i % users] + step >= 1:
            counts[i % users] += step
            diff -= step
        i += 1
    return counts


def dataset_dir(data_dir: Path, size: int, users: int) -> Path:
    return data_dir / f"recall-v{VERSION}-{size}-{users}"


async def build(directory: Path, size: int, users: int, pool, pool_vectors: np.ndarray, log=print) -> None:
    """Create the database and the shard under `directory` (which must not be marked complete)."""
    await asyncio.to_thread(directory.mkdir, parents=True, exist_ok=True)
    db = directory / "memory.db"
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{db}")
    await store.setup()  # migrations: schema, indexes, FTS5 table and its triggers
    await store.close()
    index = EdgeVectorIndex(directory / "vectors")
    await index.setup()
    generator = Generator(pool, pool_vectors)
    ids = user_ids(users)
    counts = spread(size, users, random.Random(5))
    columns = generator.columns
    insert = f"INSERT INTO memories ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    started, done, step = time.perf_counter(), 0, 200
    try:
        for start in range(0, users, step):
            params, embeddings, points = generator.batch(ids[start : start + step], counts[start : start + step])
            with conn:
                conn.executemany(insert, params)
                conn.executemany("INSERT INTO memory_embeddings (memory_id, embedding) VALUES (?, ?)", embeddings)
            for i in range(0, len(points), 2000):
                await index.write(points[i : i + 2000])
            done += len(params)
            if (start // step) % 10 == 0:
                log(f"  loaded {done:,}/{size:,} memories ({time.perf_counter() - started:.0f} s)")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
        await index.close()
    (directory / "complete.json").write_text(json.dumps({"size": size, "users": users, "version": VERSION}))
    log(f"  built {size:,} memories in {time.perf_counter() - started:.0f} s")
