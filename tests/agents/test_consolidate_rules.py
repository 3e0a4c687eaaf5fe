"""The pure parts of consolidation: clustering, what may never merge, the offline merge, the fields."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from agents.consolidate import cluster, compatible, merge_texts
from agents.consolidate.cluster import min_similarity
from agents.consolidate.compat import conflicting, shared_claim
from agents.consolidate.errors import InvalidThresholdError
from agents.consolidate.merge import canonical_id, canonical_memory, consolidated
from agents.consolidate.run import find_groups
from beliefs.records import Memory, MemoryState, RecallSemantics, Trust, Visibility

T0 = datetime(2026, 6, 1, tzinfo=UTC)


def mem(key: str, text: str = "The user likes tea.", **fields) -> Memory:
    base = {
        "id": f"m-{key}",
        "tenant_id": "t",
        "user_id": "u",
        "text": text,
        "type": "preference",
        "topic": "work",
        "importance": 0.5,
        "confidence": 0.9,
        "source_turn_ids": [f"turn-{key}"],
        "created_at": T0,
        "valid_from": T0,
    }
    return Memory(**(base | fields))


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


# -- cluster -----------------------------------------------------------------------------------------


def test_cluster_groups_near_duplicates_seed_first() -> None:
    vectors = np.stack([unit(1, 0), unit(0, 1), unit(1, 0.1), unit(1, 0.05), unit(0, 0, 1)])
    assert cluster(vectors, 0.95) == [[0, 3, 2]]  # most similar first; singletons are not groups


def test_cluster_compares_to_the_seed_not_the_chain() -> None:
    # b is close to a, c is close to b, but c is far from a: no drift a -> b -> c
    vectors = np.stack([unit(1, 0), unit(1, 0.5), unit(1, 1.2)])
    groups = cluster(vectors, 0.85)
    assert groups == [[0, 1]]


def test_cluster_respects_compatibility_with_every_member() -> None:
    vectors = np.stack([unit(1, 0), unit(1, 0.01), unit(1, 0.02)])
    groups = cluster(vectors, 0.9, compatible=lambda a, b: {a, b} != {1, 2})
    assert groups == [[0, 1]]  # 2 is incompatible with 1, which joined first (more similar)


def test_cluster_blocks_give_the_same_answer() -> None:
    rng = np.random.default_rng(7)
    base = rng.standard_normal((40, 16)).astype(np.float32)
    vectors = np.vstack([base, base + 0.05 * rng.standard_normal((40, 16)).astype(np.float32)])
    assert cluster(vectors, 0.9, block=7) == cluster(vectors, 0.9, block=1000)
    assert len(cluster(vectors, 0.9)) == 40


def test_cluster_edge_cases() -> None:
    assert cluster(np.empty((0, 8), dtype=np.float32), 0.85) == []
    assert cluster(np.stack([unit(1)]), 0.85) == []
    assert cluster(np.stack([unit(1), unit(1)]), 1.0) == [[0, 1]]
    zeros = np.zeros((2, 8), dtype=np.float32)
    assert cluster(zeros, 0.5) == []  # a zero vector matches nothing
    for bad in (0.0, -0.1, 1.01, float("nan")):
        with pytest.raises(InvalidThresholdError):
            cluster(np.stack([unit(1)]), bad)
    assert min_similarity(np.stack([unit(1, 0), unit(1, 1)]), [0, 1]) == pytest.approx(2**-0.5, rel=1e-5)


# -- compatibility -------------------------------------------------------------------------------------


def slot(value: str, attribute: str = "preferred_meeting_time", context: str | None = None) -> dict:
    return {"entity": "user", "attribute": attribute, "value": value, "context": context}


@pytest.mark.parametrize(
    ("a", "b", "allowed"),
    [
        ({}, {}, True),
        ({}, {"recall_semantics": RecallSemantics.CONSTRAINT, "trigger": {"action": "recommend"}}, False),
        (
            {
                "recall_semantics": RecallSemantics.CONSTRAINT,
                "trigger": {"action": "recommend", "domain": "food"},
            },
            {
                "recall_semantics": RecallSemantics.CONSTRAINT,
                "trigger": {"action": "recommend", "domain": "food"},
            },
            True,
        ),
        (
            {
                "recall_semantics": RecallSemantics.CONSTRAINT,
                "trigger": {"action": "recommend", "domain": "food"},
            },
            {
                "recall_semantics": RecallSemantics.CONSTRAINT,
                "trigger": {"action": "recommend", "domain": "bars"},
            },
            False,
        ),
        ({}, {"user_id": "other"}, False),
        ({}, {"tenant_id": "other"}, False),
        ({}, {"visibility": Visibility.AGENT, "agent_id": "bot"}, False),
        (
            {"visibility": Visibility.AGENT, "agent_id": "a"},
            {"visibility": Visibility.AGENT, "agent_id": "b"},
            False,
        ),
        ({}, {"trust": Trust.CAUTION}, False),
        ({}, {"profile": True}, False),
        ({}, {"confidence": 0.2}, False),  # weak claims never launder into strong ones
        ({}, {"expires_at": T0 + timedelta(days=3)}, False),
        (slot("morning"), slot("afternoon"), False),  # conflicting values
        (slot("Morning."), slot("morning"), True),  # same normalized value
        (slot("morning", context="consulting"), slot("afternoon", context="main job"), False),
        (slot("morning"), slot("vim", attribute="preferred_editor"), False),  # two single-valued slots
        (slot("morning"), {}, True),  # a claim and a plain text
        (slot("jazz", attribute="likes"), slot("chess", attribute="likes"), True),  # multi-valued
        (slot("jazz", attribute="likes"), slot("morning"), False),
    ],
)
def test_what_may_merge(a: dict, b: dict, allowed: bool) -> None:
    assert compatible(mem("a", **a), mem("b", **b)) is allowed
    assert compatible(mem("b", **b), mem("a", **a)) is allowed


def test_conflict_is_single_valued_same_slot_different_value() -> None:
    assert conflicting(mem("a", **slot("morning")), mem("b", **slot("afternoon")))
    assert not conflicting(mem("a", **slot("jazz", "likes")), mem("b", **slot("rock", "likes")))
    assert not conflicting(mem("a", **slot("morning", context="x")), mem("b", **slot("evening", context="y")))


def test_shared_claim_is_kept_only_when_unambiguous() -> None:
    a, b, c = mem("a", **slot("Morning")), mem("b", **slot("morning")), mem("c")
    assert shared_claim([a, b, c]) == ("user", "preferred_meeting_time", "Morning", None)
    assert shared_claim([c, mem("d")]) == (None, None, None, None)
    assert shared_claim([mem("e", **slot("jazz", "likes")), mem("f", **slot("rock", "likes"))]) == (None,) * 4


def test_find_groups_never_crosses_partitions() -> None:
    members = [
        mem("a"),
        mem("b"),
        mem("c", recall_semantics=RecallSemantics.CONSTRAINT, trigger={"action": "recommend"}),
        mem("d", user_id="other"),
        mem("e", user_id="other"),
        mem("f", **slot("morning")),
        mem("g", **slot("afternoon")),
    ]
    embeddings = np.stack([unit(1)] * len(members))  # all identical: only the rules separate them
    groups = [[m.id for m in group] for group, _ in find_groups(members, embeddings, 0.85)]
    assert sorted(map(sorted, groups)) == [["m-a", "m-b", "m-f"], ["m-d", "m-e"]]


# -- the offline merge ---------------------------------------------------------------------------------


def test_merge_keeps_every_distinct_detail_in_one_sentence() -> None:
    merged = merge_texts(
        [
            "User prefers async communication over synchronous calls.",
            "User finds long meetings exhausting.",
            "User mentioned preferring written summaries over verbal updates.",
            "User says they're most productive in deep work blocks without interruptions.",
        ]
    )
    assert merged == (
        "User prefers async communication over synchronous calls; finds long meetings exhausting; "
        "mentioned preferring written summaries over verbal updates; and says they're most productive "
        "in deep work blocks without interruptions."
    )


def test_merge_drops_what_is_already_said() -> None:
    assert (
        merge_texts(["User prefers Python.", "User mentioned preferring Python."]) == "User prefers Python."
    )
    assert merge_texts(["The user prefers Python.", "User prefers Python"]) == "The user prefers Python."
    assert (
        merge_texts(["User prefers Python.", "User said Python is their go-to language."])
        == "User prefers Python; and said Python is their go-to language."
    )
    assert merge_texts(["Priya is vegetarian.", "Priya avoids fish. Priya is vegetarian."]) == (
        "Priya is vegetarian; and Priya avoids fish."
    )
    with pytest.raises(ValueError):
        merge_texts([])


def test_canonical_fields() -> None:
    now = T0 + timedelta(days=30)
    members = [
        mem("a", importance=0.6, confidence=0.8, access_count=2, last_confirmed=T0, half_life_days=180.0),
        mem(
            "b",
            importance=0.9,
            confidence=0.7,
            created_at=T0 + timedelta(days=1),
            valid_from=T0 + timedelta(days=1),
            access_count=3,
            last_accessed=T0 + timedelta(days=2),
            half_life_days=120.0,
            type="fact",
        ),
    ]
    canonical = canonical_memory(members, "merged", now)
    assert canonical.id == canonical_id("t", ["m-b", "m-a"])  # order-free
    assert canonical.type.value == "fact"  # the lead (most important) member's
    assert (canonical.importance, canonical.confidence) == (0.9, 0.8)
    assert canonical.source_turn_ids == ["turn-a", "turn-b"]
    assert canonical.valid_from == T0 and canonical.created_at == now
    assert canonical.access_count == 5 and canonical.last_accessed == T0 + timedelta(days=2)
    assert canonical.half_life_days == 120.0 and canonical.is_current
    closed = consolidated(members[0], canonical)
    assert closed.state is MemoryState.CONSOLIDATED
    assert closed.superseded_by == canonical.id and closed.valid_until == now


@pytest.mark.parametrize(
    ("a", "b", "allowed"),
    [
        ("User likes tea.", "User dislikes tea.", False),
        ("User drinks coffee.", "User never drinks coffee.", False),
        ("User doesn\u2019t eat meat.", "User does not eat meat.", True),
        ("User works in deep work blocks without interruptions.", "User finds meetings exhausting.", True),
        ("User has pets.", "User has no pets.", False),
    ],
)
def test_polarity_must_match(a: str, b: str, allowed: bool) -> None:
    assert compatible(mem("a", a), mem("b", b)) is allowed


def test_opposite_polarity_is_never_merged_and_the_canonical_memory_keeps_sensitivity() -> None:
    from agents.consolidate.compat import compatible
    from agents.consolidate.merge import canonical_memory
    from beliefs.records import Polarity
    from tests.sidecar.recall.seeding import mem

    likes = mem("t", "u", "The user likes jazz.", entity="user", attribute="likes", value="jazz")
    stopped = likes.model_copy(update={"id": "x", "text": "The user likes jazz", "polarity": Polarity.NEGATIVE})
    assert not compatible(likes, stopped)
    meds = mem("t", "u", "The user takes insulin daily.", sensitivity="health")
    plain = mem("t", "u", "The user takes insulin every day.")
    assert canonical_memory([plain, meds], "The user takes insulin every day.").sensitivity == "health"
