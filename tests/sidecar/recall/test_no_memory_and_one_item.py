"""A question that needs no memory gets little or nothing, and a fact comes back once (issue 24, items 4-5):
the query that speaks of no one of the user's, a keyword hit that is no evidence, a quote carried on
its belief even when it says more, unless what it says more is needed (pure)."""

from __future__ import annotations

import pytest

from beliefs.records import MemoryType, Polarity, RecallSemantics
from sidecar.recall.carried_quotes import carry_quotes
from sidecar.recall.config import BALANCED, PRECISE
from sidecar.recall.episodes import EpisodeEntry
from sidecar.recall.floor import IMPERSONAL_WHY, similarity_floor
from sidecar.recall.fusion import Signals, without_keyword
from sidecar.recall.metadata_match import query_subject_terms, says_a_term
from sidecar.recall.models import RecallRequest
from sidecar.recall.reference import first_person, names_in, query_names, speaks_of_user
from sidecar.recall.scoring import Score
from sidecar.recall.select import select
from sidecar.recall.selection import RANKED, Entry
from sinks.recall import RecallScope
from tests.sidecar.recall.episode_seeding import said
from tests.sidecar.recall.seeding import NOW, mem

# --- whether a query speaks of its user ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "speaks"),
    [
        ("Where do I work?", True),
        ("What's our cat's name?", True),
        ("Can you book us a table where we went last time?", True),
        ("Book me a taxi to my office.", True),
        ("What's the capital of Australia?", False),
        ("Tell me a joke about penguins.", False),  # "me" is who the answer is for
        ("Could you give me a synonym for 'happy'?", False),
        ("Convert 25 degrees Celsius to Kelvin.", False),
        ("Find me a place to stay in Kyoto.", True),  # a verb of doing: the assistant acts for the user
        ("Help me get through the office party.", True),
    ],
)
def test_a_first_person_word_speaks_of_the_user_but_not_the_answers_recipient(query: str, speaks: bool) -> None:
    assert first_person(query) is speaks


def test_a_name_the_users_candidates_hold_speaks_of_the_user_whatever_its_case_there() -> None:
    names = names_in(["Mateo started at Hillcrest Primary.", "User's dog is a beagle."], ["Caroline", None])
    assert {"mateo", "hillcrest", "caroline"} <= names and "dog" not in names and "user" not in names
    assert speaks_of_user("Which school does Mateo go to?", names)
    assert speaks_of_user("When did Caroline go hiking?", names)
    assert not speaks_of_user("Who wrote Hamlet?", names)
    # a lower-case word the user's memories hold as a name is not the query naming it
    assert query_names("How does the knight move in chess?") == frozenset()
    assert not speaks_of_user("How does the knight move in chess?", names_in(["My surname is Knight."]))
    # numbers are no names: "91 kilos" does not make "is 91 a prime?" about the user
    assert not speaks_of_user("Is 91 a prime number?", names_in(["I'm 91 kilos at the moment."]))


# --- the floor of a query that speaks of no one of the user's ---------------------------------------------


def test_an_impersonal_query_needs_its_higher_floor_whatever_words_it_shares() -> None:
    shared_word = Signals(relevance=0.6, dense_rank=1, dense_score=0.22, keyword_rank=1, keyword_score=1.0)
    assert similarity_floor(shared_word, BALANCED).passes  # a personal query takes the shared word as evidence
    dropped = similarity_floor(shared_word, BALANCED, impersonal=True)
    assert not dropped.passes and dropped.why == f"{IMPERSONAL_WHY} (cosine 0.22 < {BALANCED.impersonal_min_similarity})"
    close = Signals(relevance=0.5, dense_rank=1, dense_score=BALANCED.impersonal_min_similarity + 0.01)
    assert similarity_floor(close, BALANCED, impersonal=True).passes  # what means what it asks still comes back
    assert not similarity_floor(close, BALANCED.tuned(impersonal_min_similarity=0.5), impersonal=True).passes
    # never under the ordinary floor of a stricter preset
    at = Signals(relevance=0.5, dense_rank=1, dense_score=0.29)
    assert not similarity_floor(at, PRECISE.tuned(impersonal_min_similarity=0.2), impersonal=True).passes
    # an unknown cosine (the dense search is down, or the hit is outside its list) is judged as any other
    unknown = Signals(relevance=0.3, keyword_rank=1, keyword_score=1.0)
    assert similarity_floor(unknown, BALANCED, impersonal=True).passes


def _select(query: str, memories, signals):
    return select(RecallRequest(user_id="u", query=query), BALANCED, NOW, RecallScope("t", "u"), signals, memories, [])


def test_select_applies_the_impersonal_floor_to_keyword_hits() -> None:
    capital = mem("t", "u", "User is raising capital for their coffee start-up.", type=MemoryType.FACT)
    signals = {capital.id: Signals(relevance=0.6, dense_rank=1, dense_score=0.22, keyword_rank=1, keyword_score=1.0)}
    query = "What's the capital of Australia?"
    assert [e.memory.id for e in _select(query, [capital], signals).chosen] == [capital.id]
    chosen = select(
        RecallRequest(user_id="u", query=query), BALANCED, NOW, RecallScope("t", "u"), signals, [capital], [],
        impersonal=True,
    )  # fmt: skip
    assert chosen.chosen == [] and dict(chosen.suppressed)[capital.id].startswith(IMPERSONAL_WHY)


# --- a keyword hit is evidence only when the text holds a query term ---------------------------------------


def test_a_keyword_hit_whose_text_holds_no_query_term_is_no_evidence() -> None:
    # the full-text index stems "one" as "on": "forty minutes on the ring road" meets "One Hundred Years"
    commute = mem("t", "u", "User's commute is forty minutes on the ring road.", type=MemoryType.FACT)
    question = "Which one of my routes has roadworks?"
    terms = query_subject_terms(question)
    assert not says_a_term(commute.text, terms) and says_a_term("The ring road has roadworks.", terms)
    hit = Signals(relevance=0.4, dense_rank=2, dense_score=0.09, keyword_rank=1, keyword_score=1.0)
    assert without_keyword(hit) == hit._replace(keyword_rank=None, keyword_score=None)
    chosen = _select(question, [commute], {commute.id: hit})
    assert chosen.chosen == [] and "below the similarity floor (cosine 0.09 < 0.15)" in dict(chosen.suppressed)[commute.id]
    roadworks = mem("t", "u", "User's route to work has roadworks on the bypass.", type=MemoryType.FACT)
    kept = _select(question, [roadworks], {roadworks.id: hit})
    assert [e.memory.id for e in kept.chosen] == [roadworks.id]  # its own word: evidence, the lower floor


# --- one item per fact -----------------------------------------------------------------------------------


def _pair(belief_text: str, turn_text: str, **belief_fields) -> tuple[Entry, EpisodeEntry]:
    turn = said("t", "u", turn_text)
    belief = mem("t", "u", belief_text, type=MemoryType.FACT, source_turn_ids=[turn.turn_id], **belief_fields)
    quote = EpisodeEntry(turn.model_copy(update={"memory_ids": [belief.id]}), [], 0.5, Score(0.5, 0.9, 0.45, 1.0, 0.5))
    return Entry(belief, RANKED, ["matched query (dense)"], 0.5), quote


def _carried(query: str, belief_text: str, turn_text: str, **belief_fields) -> bool:
    entry, quote = _pair(belief_text, turn_text, **belief_fields)
    left, carried = carry_quotes([entry], [quote], query)
    assert (left == []) is bool(carried) and (entry.evidence == [quote.episode]) is bool(carried)
    return bool(carried)


def test_a_quote_that_says_more_than_its_belief_is_still_carried_on_it() -> None:
    assert _carried("What's my job?", "User is a sous chef.", "I'm a sous chef at a tapas place, mostly doing the prep.")
    assert _carried(
        "What's my favourite book?",
        "User's favorite book is The Remains of the Day.",  # spelt otherwise: the same word as the query's
        "My favourite book is The Remains of the Day, I reread it every winter.",
    )


def test_a_quote_stays_an_item_when_what_it_says_more_holds_a_query_term() -> None:
    assert not _carried("How often do I run races?", "User ran the half marathon in Cardiff.",
                        "I ran the half marathon in Cardiff today. I run one race a year, that's plenty.")  # fmt: skip


def test_a_quote_stays_an_item_when_its_turn_ends_or_changes_something() -> None:
    # the turn says in words that something changed: what it says beyond the belief is the new value
    assert not _carried("What's my role in the association?", "User is no longer treasurer of the association.",
                        "I'm no longer treasurer of the association; I took over as secretary at the AGM.")  # fmt: skip
    # its belief states what ended (negative polarity)
    assert not _carried("What sport do I do?", "User quit squash.", "Quit squash for good, doing laps at the lido.",
                        polarity=Polarity.NEGATIVE)  # fmt: skip


def test_a_quote_stays_an_item_when_it_names_what_its_belief_leaves_unnamed() -> None:
    assert not _carried("Where do I work?", "User works at a small nonprofit.",
                        "I work at a small nonprofit, the Green Streets Trust, planting urban trees.")  # fmt: skip
    assert _carried("Where do I work?", "User works at Halden Logistics.",
                    "I work at Halden Logistics in Coventry as a route planner.")  # fmt: skip


def test_a_belief_quotes_the_turns_around_its_carried_quote_within_the_budget() -> None:
    """Carried, the quote costs nothing; the neighbouring turns the request asks for (`context_turns`)
    come with the belief, paid for and cited, as they came with the quote (no evidence turn is lost)."""
    from sidecar.recall.budget import estimate_tokens
    from sidecar.recall.evidence import merge
    from sidecar.recall.result import to_result
    from sidecar.recall.selection import Selection

    entry, quote = _pair("User is a sous chef.", "I'm a sous chef at a tapas place, mostly doing the prep.")
    before = said("t", "u", "What do you do for a living, Ana?", speaker="Bo")
    quote.neighbours = [before]
    left, _ = carry_quotes([entry], [quote], "What's my job?")
    assert left == [] and entry.neighbours == [before]
    belief_tokens = estimate_tokens(entry.memory.text)
    merged = merge(Selection(chosen=[entry], conflicts=[]), left, budget_tokens=200, limit=5)
    [item] = to_result(merged.selection, {}, False).memories
    assert item.citations == [quote.episode.turn_id, before.turn_id]
    assert [t.text for t in item.context] == [before.text] and [e.text for e in item.evidence] == [quote.episode.text]
    assert merged.selection.tokens_used == belief_tokens + estimate_tokens(before.text)
    # a budget that holds the belief and not its neighbour keeps the belief alone
    entry.context = []
    tight = merge(Selection(chosen=[entry], conflicts=[]), [], budget_tokens=belief_tokens, limit=5)
    [alone] = to_result(tight.selection, {}, False).memories
    assert alone.citations == [quote.episode.turn_id] and alone.context == []


def _labelled(quote: EpisodeEntry) -> EpisodeEntry:
    from sidecar.recall import currency

    quote.currency = currency.Currency(possibly_superseded=True, superseded_by="newer", note="may have been replaced")
    return quote


def test_a_labelled_quote_saying_nothing_more_is_carried_on_the_labelled_belief_of_its_turn() -> None:
    """One turn, one item of history: the belief and its quote both labelled not current."""
    entry, quote = _pair("User's landlord is Trevor Hale.", "My landlord is Trevor Hale.", possibly_superseded_by="newer")
    left, carried = carry_quotes([entry], [_labelled(quote)], "Who is my landlord?", saying_more=False)
    assert left == [] and entry.evidence == [quote.episode] and len(carried) == 1


def test_a_labelled_quote_saying_more_stays_an_item_beside_its_labelled_belief() -> None:
    """Its rank and neighbouring turns as an item are what a dated question needs (LoCoMo temporal)."""
    entry, quote = _pair("User's landlord is Trevor Hale.", "My landlord is Trevor Hale, he's slow to fix anything.",
                         possibly_superseded_by="newer")  # fmt: skip
    assert carry_quotes([entry], [_labelled(quote)], "Who is my landlord?", saying_more=True) == ([quote], [])


def test_a_quote_is_never_carried_on_a_belief_of_another_currency() -> None:
    """A current quote is not hidden under a belief labelled not current, nor a labelled quote under a current one."""
    entry, quote = _pair("User is a sous chef.", "I'm a sous chef.", possibly_superseded_by="newer")
    assert carry_quotes([entry], [quote], "What's my job?") == ([quote], [])
    entry, quote = _pair("User is a sous chef.", "I'm a sous chef.")
    assert carry_quotes([entry], [_labelled(quote)], "What's my job?") == ([quote], [])


def test_a_quote_saying_nothing_more_brings_no_neighbours_and_no_rank() -> None:
    """It would not have been an item: carrying it changes nothing but the duplicate (the turns around it
    would crowd the budget with context the answer never had)."""
    entry, quote = _pair("User is a sous chef.", "I'm a sous chef.")
    quote.neighbours = [said("t", "u", "What do you do for a living, Ana?", speaker="Bo")]
    quote.score = quote.score._replace(value=0.9)
    carry_quotes([entry], [quote], "What's my job?")
    assert entry.evidence == [quote.episode] and entry.neighbours == [] and entry.score.value == 0.0


def test_a_carried_quotes_relevance_orders_the_neighbours_and_its_turn_is_not_quoted_again() -> None:
    from sidecar.recall.evidence import merge
    from sidecar.recall.selection import Selection

    question = said("t", "u", "What kind of books do you have?", speaker="Bo")
    answer = said("t", "u", "Mostly kids' books, Dr. Seuss and the like.", days_ago=0.99)
    earlier = said("t", "u", "I've been reading a lot lately.", days_ago=1.01)
    hit = EpisodeEntry(question, [], 0.6, Score(0.6, 0.9, 0.45, 1.0, 0.6), neighbours=[earlier, answer])
    entry, _ = _pair("User has kids' books.", answer.text)
    carried = EpisodeEntry(answer, [], 0.5, Score(0.5, 0.9, 0.45, 1.0, 0.5))
    entry.evidence = [answer]
    # the hit has room for one neighbour: the carried quote's turn, more relevant than the earlier one
    from sidecar.recall.budget import estimate_tokens

    room = estimate_tokens(question.text) + estimate_tokens(answer.text)
    merged = merge(Selection(chosen=[], conflicts=[]), [hit], budget_tokens=room, limit=5, carried=[carried])
    assert [t.id for t in merged.episodes[0].context] == [answer.id]
    # a belief carrying that turn ranked first: the hit does not quote it again
    entry.score = entry.score._replace(value=0.9)
    merged = merge(Selection(chosen=[entry], conflicts=[]), [hit], 200, 5, carried=[carried])
    assert answer.id not in [t.id for t in merged.episodes[0].context]


def test_the_quote_of_a_constraints_turn_is_carried_on_it_whatever_it_says_more() -> None:
    turn_text = "Never suggest horror movies to me, I can't sleep for days after."
    rule, quote = _pair("Never recommend horror movies to User.", turn_text, recall_semantics=RecallSemantics.CONSTRAINT)
    left, carried = carry_quotes([rule], [quote], "What should I watch tonight?", saying_more=False)
    assert left == [] and rule.evidence == [quote.episode] and len(carried) == 1
    fact, quote = _pair("User can't sleep after horror movies.", turn_text)  # the same turn, a plain belief
    left, carried = carry_quotes([fact], [quote], "What should I watch tonight?", saying_more=False)
    assert left == [quote] and carried == []
