"""0 trusted memories from our hostile corpus, through the real write path; the benign set stays trusted.

Issue 12 bug 6: a user pasting an email or a document that carried injected instructions got
memories such as "User is DAN." and "User hates humans", trusted and recalled. The corpus
(`tests/hostile_turns.py`) is built at test time from shared/data (BIPIA, Giskard) and our own
forms, each sent as the user, pasted, quoted, forwarded, code-fenced, as JSON, assistant and tool.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hostile_turns import BENIGN, attacks, framings, shared_data

from beliefs.records import Trust, Turn
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from reading.prepare import PreparedTurn, clean_turn, extract_claims
from reading.provenance import Voice, read

DATA = shared_data()
pytestmark = pytest.mark.skipif(DATA is None, reason="shared/data (BIPIA, Giskard) is not beside this checkout")
TS = datetime(2026, 3, 1, 12, tzinfo=UTC).isoformat()


def raw(tenant: str, user: str, turn_id: str, role: str, text: str) -> RawTurn:
    value = {"tenant_id": tenant, "user_id": user, "turn_id": turn_id, "role": role, "text": text, "ts": TS}
    return RawTurn(json.dumps(value).encode(), f"{tenant}:{user}".encode(), "beliefstream.turns", 0, 0)


def test_the_corpus_is_read_from_shared_data_and_covers_every_framing() -> None:
    corpus = attacks(DATA)
    assert len(corpus) >= 100  # 75 BIPIA + 35 Giskard + ours
    assert set(framings(corpus[0])) >= {"user", "pasted-email", "quoted", "code-fenced", "assistant", "tool"}


async def test_no_trusted_memory_from_the_hostile_corpus(pipeline, tenant: str) -> None:
    raws = [
        raw(tenant, f"victim-{name}", f"{i}-{name}", role, text)
        for i, attack in enumerate(attacks(DATA))
        for name, (role, text) in framings(attack).items()
    ]
    for start in range(0, len(raws), 256):
        await pipeline.persist(await pipeline.prepare(raws[start : start + 256]))

    users = {f"victim-{name}" for name in framings("x")}
    found = []
    for user in sorted(users):
        memories, _ = await pipeline.store.list_memories(tenant, user, limit=1000)
        found.extend(memories)
    assert found  # the corpus does produce claims: they are kept as evidence, not beliefs
    trusted = [(m.user_id, m.text) for m in found if m.trust is Trust.TRUSTED]
    assert trusted == []


async def test_the_benign_set_stays_trusted(pipeline, tenant: str) -> None:
    raws = [raw(tenant, f"ana-{i}", f"b-{i}", "user", text) for i, text in enumerate(BENIGN)]
    await pipeline.persist(await pipeline.prepare(raws))

    by_text = {}
    for i in range(len(BENIGN)):
        memories, _ = await pipeline.store.list_memories(tenant, f"ana-{i}", limit=1000)
        by_text.update({m.text: m.trust for m in memories})
    for expected in ("allergic to peanuts", "works at Acme", "dark mode", "vegetarian", "Initech", "Oslo",
                     "Thai food", "Lisbon", "nurse", "Vim"):  # fmt: skip
        assert any(expected in text and trust is Trust.TRUSTED for text, trust in by_text.items()), expected
    assert by_text.get("User is raising the rent.") is Trust.UNTRUSTED  # the landlord's words, not the user's


def locomo_prepared() -> list[PreparedTurn]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from locomo import locomo_turns

    return [clean_turn(Turn.model_validate(t)) for t in locomo_turns(DATA / "locomo10.json")]


async def test_ordinary_conversations_keep_the_users_voice() -> None:
    """LoCoMo's 4,625 ordinary turns (quotes, titles, lists and all): their claims stay the user's own."""
    prepared = locomo_prepared()
    claims = await extract_claims(prepared, RulesExtractor())
    voices = [read(p.turn, p.text).of_claim(c.evidence).voice for p, cs in zip(prepared, claims, strict=True) for c in cs]
    assert len(voices) > 1000
    assert sum(v is not Voice.OWN for v in voices) <= len(voices) // 100
