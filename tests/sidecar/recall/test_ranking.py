"""The ranking rules of recall, each a test named after it (pure: fusion, floor, scoring)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from beliefs.age import recency
from beliefs.records import MemoryType
from sidecar.recall.config import BALANCED, RECENT
from sidecar.recall.floor import similarity_floor
from sidecar.recall.fusion import Signals, fuse, keyword_similarity, relevance
from sidecar.recall.metadata_match import metadata_matches, query_subject_terms
from sidecar.recall.models import RecallRequest
from sidecar.recall.scoring import recall_score
from sidecar.recall.select import select
from sinks.base import VectorHit
from sinks.recall import KeywordHit, RecallScope
from tests.sidecar.recall.seeding import NOW, mem


def test_relevance_is_the_cosine_not_the_rank_so_a_weak_top_hit_stays_weak() -> None:
    dense_only = BALANCED.tuned(keyword_weight=0.0)
    fused = fuse([VectorHit("only", 0.12)], [], dense_only)
    assert fused["only"].relevance == pytest.approx(0.12)
    strong = fuse([VectorHit("x", 0.7), VectorHit("y", 0.65)], [], dense_only)
    assert strong["x"].relevance == pytest.approx(0.7) and strong["y"].relevance == pytest.approx(0.65)
    assert fuse([VectorHit("only", 0.12)], [], BALANCED)["only"].relevance < 0.12  # no keyword match adds nothing


def test_negative_cosine_counts_as_no_similarity() -> None:
    assert relevance(-0.3, None, BALANCED) == 0.0


def test_keyword_scores_are_normalised_per_query() -> None:
    assert keyword_similarity([KeywordHit("a", 8.0), KeywordHit("b", 2.0), KeywordHit("a", 1.0)]) == {"a": 1.0, "b": 0.25}
    assert keyword_similarity([KeywordHit("a", 80.0)]) == keyword_similarity([KeywordHit("a", 0.8)])
    assert keyword_similarity([]) == {}


def test_relevance_is_the_weighted_mean_of_cosine_and_keyword_similarity() -> None:
    w_d, w_k = BALANCED.dense_weight, BALANCED.keyword_weight
    assert relevance(0.5, 1.0, BALANCED) == pytest.approx((0.5 * w_d + w_k) / (w_d + w_k))
    assert relevance(1.0, 1.0, BALANCED) == pytest.approx(1.0)
    assert relevance(None, 0.5, BALANCED) == pytest.approx(0.5 * w_k / (w_d + w_k))
    assert relevance(0.5, 1.0, BALANCED) > relevance(0.5, None, BALANCED)  # found by both beats found by one


def test_importance_outranks_a_more_similar_but_trivial_memory() -> None:
    allergy = mem("t", "u", "allergic to peanuts", importance=0.95, type=MemoryType.FACT)
    trivial = mem("t", "u", "had pasta on Tuesday", importance=0.2, type=MemoryType.FACT)
    assert recall_score(allergy, 0.2, NOW, BALANCED).value > recall_score(trivial, 0.35, NOW, BALANCED).value


def test_a_much_more_similar_memory_still_beats_a_slightly_more_important_one() -> None:
    a = mem("t", "u", "x", importance=0.6)
    b = mem("t", "u", "y", importance=0.5)
    assert recall_score(b, 0.7, NOW, BALANCED).value > recall_score(a, 0.2, NOW, BALANCED).value


def test_recency_uses_the_category_half_life_not_one_global_one() -> None:
    name = mem("t", "u", "x", days_ago=60, attribute="name")
    place = mem("t", "u", "x", days_ago=60, attribute="located_in")
    assert recency(name, NOW) > 0.98
    assert recency(place, NOW) < 0.01
    preference = mem("t", "u", "x", days_ago=180, type=MemoryType.PREFERENCE)
    assert recency(preference, NOW) == pytest.approx(math.exp(-1), abs=0.01)  # e^(-days / half-life)


def test_the_recent_preset_shortens_every_half_life() -> None:
    m = mem("t", "u", "x", days_ago=30, attribute="preferred_meeting_time")
    assert recency(m, NOW, RECENT.recency_scale) < recency(m, NOW, BALANCED.recency_scale)


def test_recency_counts_from_the_last_confirmation() -> None:
    old = mem("t", "u", "x", days_ago=365, type=MemoryType.FACT)  # a fact's half-life: 365 days
    assert recency(old, NOW) == pytest.approx(math.exp(-1), abs=0.001)
    reconfirmed = old.model_copy(update={"last_confirmed": NOW - timedelta(days=1)})
    assert recency(reconfirmed, NOW) == pytest.approx(0.997, abs=0.0005)  # the design reading's figure
    place = mem("t", "u", "x", days_ago=365, attribute="located_in")
    assert recency(place.model_copy(update={"last_confirmed": NOW - timedelta(days=1)}), NOW) < 0.9  # per category
    confirmed_now = old.model_copy(update={"last_confirmed": NOW})
    assert recency(confirmed_now, NOW) == 1.0


def test_a_reconfirmed_old_fact_outranks_an_unconfirmed_one_of_the_same_age() -> None:
    old = mem("t", "u", "lives in Porto", days_ago=365, type=MemoryType.FACT)
    reconfirmed = old.model_copy(update={"last_confirmed": NOW - timedelta(days=1)})
    assert recall_score(reconfirmed, 0.5, NOW, BALANCED).value > recall_score(old, 0.5, NOW, BALANCED).value


def test_floor_drops_a_dissimilar_memory_and_says_why() -> None:
    verdict = similarity_floor(Signals(relevance=0.05, dense_rank=4, dense_score=0.05), BALANCED)
    assert not verdict.passes
    assert "below the similarity floor" in verdict.why and "0.05" in verdict.why and "0.15" in verdict.why


def test_a_keyword_match_passes_at_its_own_lower_floor_not_whatever_its_meaning() -> None:
    near = Signals(relevance=0.2, dense_rank=9, dense_score=0.08, keyword_rank=1, keyword_score=1.0)
    far = Signals(relevance=0.2, dense_rank=9, dense_score=-0.03, keyword_rank=1, keyword_score=1.0)
    assert similarity_floor(near, BALANCED).passes  # shared words and a meaning not far off
    verdict = similarity_floor(far, BALANCED)  # shared words ("years") with a meaning far from the query's
    assert not verdict.passes and "keyword or metadata match" in verdict.why and "-0.03 < 0.0)" in verdict.why
    assert similarity_floor(Signals(relevance=0.2, dense_rank=1, dense_score=0.2), BALANCED).passes


def test_a_quote_of_a_belief_withheld_as_sensitive_is_withheld_with_it() -> None:
    from sidecar.recall.episodes import EpisodeEntry, EpisodeVerdicts
    from sidecar.recall.scored_quotes import Quotes
    from sidecar.recall.scoring import Score
    from tests.sidecar.recall.episode_seeding import said

    linked = said("t", "u", "I take insulin every morning.").model_copy(update={"memory_ids": ["m-health"]})
    other = said("t", "u", "I like long walks.")
    entries = [EpisodeEntry(e, [], 0.5, Score(0.5, 0.9, 0.3, 1.0, 0.5)) for e in (linked, other)]
    quotes = Quotes(EpisodeVerdicts(entries, [], []), frozenset(), None)
    kept = quotes.without_sensitive([("m-health", "sensitive (health) outside its domain"), ("m-x", "over the limit")])
    assert [e.episode.id for e in kept.entries] == [other.id]
    assert [i for i, _ in kept.suppressed] == [linked.id]
    assert quotes.without_sensitive([("m-health", "over the limit")]) is quotes


def test_a_query_naming_a_beliefs_entity_or_attribute_finds_it_under_the_text_floor() -> None:
    sister = mem("t", "u", "Jana started a pottery course in Brno.", type=MemoryType.FACT, entity="sister",
                 attribute="hobby", topic="family")  # fmt: skip
    home = mem("t", "u", "User's flat is above the bakery on Vine Street.", type=MemoryType.FACT, entity="user",
               attribute="lives_in", topic="home")  # fmt: skip
    noise = mem("t", "u", "User bought a blue umbrella.", type=MemoryType.FACT, entity="user", attribute="purchase")
    for question, named in (("How is my sister doing these days?", sister), ("Where do I live now?", home)):
        terms = query_subject_terms(question)
        assert metadata_matches(named, terms) >= 1 and metadata_matches(noise, terms) == 0
        low = {m.id: Signals(relevance=0.1, dense_rank=i + 1, dense_score=0.1) for i, m in enumerate((sister, home, noise))}
        chosen = select(RecallRequest(user_id="u", query=question), BALANCED, NOW, RecallScope("t", "u"), low, [sister, home, noise], [])
        [entry] = chosen.chosen
        assert entry.memory.id == named.id and "names 1 of the query's terms" in entry.reasons[-1]
        assert entry.relevance == pytest.approx(0.1 + BALANCED.metadata_weight)
        assert dict(chosen.suppressed)[noise.id].startswith("below the similarity floor")
    assert not similarity_floor(Signals(relevance=0.0, dense_rank=1, dense_score=-0.02), BALANCED, named=True).passes  # meaning away from the query
