"""The LoCoMo harness's scoring, on a tiny conversation of our own (not LoCoMo)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.locomo import sample_questions, sample_turns
from bench.locomo_score import (
    Bm25,
    Tally,
    dense_top,
    local_turn_id,
    normalise_evidence,
    recall_at,
    turn_recall_at,
)

CONVERSATION = {
    "sample_id": "tiny-1",
    "conversation": {
        "speaker_a": "Mira",
        "speaker_b": "Tomas",
        "session_1_date_time": "9:05 am on 3 March, 2024",
        "session_1": [
            {"speaker": "Mira", "dia_id": "D1:1", "text": "I adopted a grey kitten called Pixel."},
            {"speaker": "Tomas", "dia_id": "D1:2", "text": "Lovely! I started rowing on the river."},
        ],
        "session_2_date_time": "6:40 pm on 11 April, 2024",
        "session_2": [
            {"speaker": "Mira", "dia_id": "D2:1", "text": "Pixel knocked my telescope over."},
            {"speaker": "Tomas", "dia_id": "D2:2", "text": "My rowing club won a regatta."},
        ],
    },
    "qa": [
        {"question": "What is the kitten called?", "evidence": ["D1:1"], "category": 4},
        {"question": "What did Pixel break, and what is Pixel?", "evidence": ["D01:01; D2:1"], "category": 1},
        {"question": "An unanswerable one", "evidence": [], "category": 5},
    ],
}


def test_normalise_evidence_splits_packed_ids_and_strips_leading_zeros():
    assert normalise_evidence(["D01:003; D2:5", "D8:6 D9:17", "D:4:2", "D"]) == {"D1:3", "D2:5", "D8:6", "D9:17", "D4:2"}


def test_local_turn_id_drops_the_conversation_prefix():
    assert local_turn_id("tiny-1:D2:01") == "D2:1"
    assert local_turn_id("D2:1") == "D2:1"


def test_recall_at_is_the_share_of_evidence_within_the_first_k_items():
    cited = [["D1:2"], ["D1:1", "D1:2"], ["D2:1"]]
    evidence = frozenset({"D1:1", "D2:1"})
    assert recall_at(cited, evidence, 1) == 0.0
    assert recall_at(cited, evidence, 2) == 0.5
    assert recall_at(cited, evidence, 3) == 1.0
    with pytest.raises(ValueError):
        recall_at(cited, frozenset(), 3)


def test_tally_averages_over_questions_overall_and_per_category():
    tally = Tally(ks=(1, 2))
    tally.add("4", [["D1:1"]], frozenset({"D1:1"}))
    tally.add("1", [["D1:2"], ["D2:1"]], frozenset({"D1:1", "D2:1"}))
    means = tally.means()
    assert means["overall"] == {"n": 2, "R@1": 50.0, "R@2": 75.0}
    assert means["1"] == {"n": 1, "R@1": 0.0, "R@2": 50.0}


def test_questions_without_evidence_are_not_scored():
    asked = sample_questions(CONVERSATION)
    assert [q["evidence"] for q in asked] == [{"D1:1"}, {"D1:1", "D2:1"}]


def test_turns_carry_speaker_session_date_and_tenant_unique_ids():
    turns = list(sample_turns(CONVERSATION))
    assert [t["turn_id"] for t in turns] == ["tiny-1:D1:1", "tiny-1:D1:2", "tiny-1:D2:1", "tiny-1:D2:2"]
    assert turns[2]["metadata"] == {"speaker": "Mira"}
    assert turns[3]["ts"].startswith("2024-04-11T18:40:30")


def test_bm25_ranks_the_turn_sharing_the_rare_words_first():
    texts = [t["text"] for t in sample_turns(CONVERSATION)]
    bm25 = Bm25(texts)
    assert bm25.top("who has a kitten?", 1) == [0]
    assert bm25.top("rowing regatta", 2) == [3, 1]
    assert bm25.scores("nothing matches") == [0.0] * 4


def test_dense_top_orders_by_cosine():
    turns = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    assert dense_top(turns, np.array([0.0, 1.0], dtype=np.float32), 2) == [1, 2]


def test_turn_level_recall_counts_cited_turns_not_items():
    cited = [["D1:1", "D1:2", "D1:3"], ["D2:1"]]
    evidence = frozenset({"D1:3", "D2:1"})
    assert turn_recall_at(cited, evidence, 2) == 0.0
    assert turn_recall_at(cited, evidence, 3) == 0.5
    assert turn_recall_at(cited, evidence, 4) == 1.0
    assert recall_at(cited, evidence, 1) == 0.5  # the item-level figure is more generous
