"""One item per fact for typed items: a safety fact admitted for the request's domain carries the quote
of its turn, whatever the quote says more; it is never folded away (`carried_quotes`, `folded_beliefs`)."""

from __future__ import annotations

from beliefs.records import MemoryType, RecallSemantics
from sidecar.recall.carried_quotes import carry_quotes
from sidecar.recall.episodes import EpisodeEntry
from sidecar.recall.folded_beliefs import foldable
from sidecar.recall.scoring import Score
from sidecar.recall.selection import CONSTRAINT, PROFILE, RANKED, Entry
from tests.sidecar.recall.episode_seeding import said
from tests.sidecar.recall.seeding import mem

ALLERGY_TURN = "I'm badly allergic to walnuts, one bite and I need my EpiPen."


def _pair(belief_text: str, turn_text: str, tier: int, **fields) -> tuple[Entry, EpisodeEntry]:
    turn = said("t", "u", turn_text)
    belief = mem("t", "u", belief_text, type=MemoryType.FACT, source_turn_ids=[turn.turn_id], **fields)
    quote = EpisodeEntry(turn.model_copy(update={"memory_ids": [belief.id]}), [], 0.5, Score(0.6, 0.9, 0.5, 1.0, 0.6))
    return Entry(belief, tier, ["safety fact for a food request"], 0.5), quote


def test_a_safety_fact_for_its_domain_carries_its_turns_quote_whatever_it_says_more() -> None:
    fact, quote = _pair("User is allergic to walnuts.", ALLERGY_TURN, CONSTRAINT)
    left, carried = carry_quotes([fact], [quote], "Suggest a cake for Sunday.", saying_more=False)
    assert left == [] and fact.evidence == [quote.episode]  # the EpiPen is still in the answer, on the fact
    assert carried == [(quote.episode.id, f"carried as the evidence of belief {fact.memory.id}")]
    assert fact.score.value == 0.0 and fact.neighbours == []  # no rank, no neighbouring turns taken from it


def test_the_same_fact_matched_by_relevance_alone_keeps_a_quote_that_says_more_as_an_item() -> None:
    fact, quote = _pair("User is allergic to walnuts.", ALLERGY_TURN, RANKED)
    left, carried = carry_quotes([fact], [quote], "Suggest a cake for Sunday.", saying_more=False)
    assert left == [quote] and carried == [] and fact.evidence == []


def test_a_quote_of_another_currency_is_never_carried_even_on_a_safety_fact() -> None:
    fact, quote = _pair("User is allergic to walnuts.", ALLERGY_TURN, CONSTRAINT)
    quote.superseded = True  # a later turn replaced what it said
    assert carry_quotes([fact], [quote], "Suggest a cake for Sunday.", saying_more=False) == ([quote], [])


def test_only_beliefs_held_by_relevance_or_as_profile_facts_may_fold_into_their_quote() -> None:
    ranked, _ = _pair("User ran the Leeds 10k.", "I ran the Leeds 10k today.", RANKED)
    profile, _ = _pair("User prefers to be called Rob.", "Call me Rob, nobody says Robert.", PROFILE)
    safety, _ = _pair("User is allergic to walnuts.", ALLERGY_TURN, CONSTRAINT)
    rule, _ = _pair("Never book User on red-eye flights.", "No red-eyes ever.", RANKED,
                    recall_semantics=RecallSemantics.CONSTRAINT)  # fmt: skip
    assert foldable([ranked, profile, safety, rule]) == {ranked.memory.id, profile.memory.id}
