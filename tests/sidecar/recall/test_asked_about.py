"""A special-category fact the question asks about bears on it (`sidecar.recall.asked`): the sensitivity
gate lets it through when its cosine reaches `asked_min_similarity` and the query speaks of the user,
and only for the statement said last, so an older value never comes back this way."""

from __future__ import annotations

from beliefs.records import Sensitivity
from sidecar.recall.asked import asked_ids
from sidecar.recall.config import BALANCED
from sidecar.recall.fusion import Signals
from sidecar.recall.policy import ItemGates
from sidecar.recall.sensitivity_gate import request_domains, sensitive_outside, sensitive_words_outside
from tests.sidecar.recall.episode_seeding import said, with_memories
from tests.sidecar.recall.seeding import mem

BAR = BALANCED.asked_min_similarity


def near(cosine: float) -> Signals:
    return Signals(relevance=cosine, dense_rank=1, dense_score=cosine)


def test_the_bar_lets_a_sensitive_fact_through_only_when_asked_about() -> None:
    fact = mem("t", "u", "User's postcode is EH3 9AB.", sensitivity=Sensitivity.LOCATION.value)
    domains = request_domains("What's my postcode?")
    assert sensitive_outside(fact, domains) is not None  # no location word in the question
    assert sensitive_outside(fact, domains, asked=True) is None
    assert sensitive_words_outside("My postcode is EH3 9AB.", domains) is not None
    assert sensitive_words_outside("My postcode is EH3 9AB.", domains, asked=True) is None


def test_a_quote_asked_about_passes_with_the_belief_it_stated() -> None:
    turn = said("t", "u", "I'm allergic to penicillin, it gives me hives.")
    [belief] = with_memories(turn, mem("t", "u", "User is allergic to penicillin.", sensitivity="health"))
    gates = ItemGates(domains=request_domains("My GP wants to prescribe amoxicillin, anything to mention?"))
    assert gates.quote_withheld(turn.text, [belief]) is not None
    assert gates.quote_withheld(turn.text, [belief], asked=True) is None


def test_only_the_statement_said_last_is_asked_about() -> None:
    old = said("t", "u", "My postcode is EH3 9AB.", days_ago=30)
    new = said("t", "u", "Typo, the postcode is EH3 9AR.", days_ago=29)
    [old_fact] = with_memories(old, mem("t", "u", "User's postcode is EH3 9AB.", sensitivity="location"))
    old = old.model_copy(update={"memory_ids": [old_fact.id]})
    signals = {old_fact.id: near(0.7)}
    episode_signals = {old.id: near(0.7), new.id: near(0.68)}
    found = asked_ids([old_fact], [old, new], signals, episode_signals, BALANCED)
    assert found == {new.id}
    # under the bar, nothing is asked about; an impersonal question asks about no one's postcode
    assert asked_ids([old_fact], [old, new], signals, {new.id: near(BAR - 0.01)}, BALANCED) == {old.id, old_fact.id}
    assert asked_ids([old_fact], [old, new], signals, episode_signals, BALANCED, impersonal=True) == frozenset()


def test_a_belief_an_older_turn_stated_is_not_let_through_by_a_later_turn_linked_to_it() -> None:
    """A retraction may be linked to the belief it retracts: the bypass goes to the later words only."""
    old = said("t", "u", "I'm allergic to penicillin.", days_ago=200)
    new = said("t", "u", "The allergist tested me: I'm not allergic to penicillin after all.", days_ago=2)
    [belief] = with_memories(old, mem("t", "u", "User is allergic to penicillin.", sensitivity="health"))
    old = old.model_copy(update={"memory_ids": [belief.id]})
    new = new.model_copy(update={"memory_ids": [belief.id]})
    found = asked_ids([belief], [old, new], {belief.id: near(0.6)}, {new.id: near(0.55)}, BALANCED)
    assert found == {new.id}
