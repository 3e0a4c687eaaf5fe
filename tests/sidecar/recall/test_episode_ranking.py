"""How quotes are ranked and fitted (pure `judge_episodes`, `merge`): by what they say, who said them
and when, not by the importance of the beliefs their turn produced (those compete on their own); each
turn quoted once, its neighbours decided in rank order with the budget."""

from __future__ import annotations

from beliefs.records import MemoryType
from sidecar.recall.config import BALANCED
from sidecar.recall.episodes import EpisodeEntry, judge_episodes
from sidecar.recall.evidence import episode_item, merge
from sidecar.recall.fusion import Signals
from sidecar.recall.scoring import Score
from sidecar.recall.selection import Selection
from tests.sidecar.recall.episode_seeding import said, with_memories
from tests.sidecar.recall.seeding import NOW, mem


def scores(episodes, signals, current=(), named=()) -> dict[str, float]:
    verdicts = judge_episodes(episodes, signals, {m.id: m for m in current}, NOW, BALANCED, named=named)
    return {entry.episode.id: entry.score.value for entry in verdicts.entries}


def test_a_turn_that_produced_an_important_belief_is_not_ranked_above_an_equally_relevant_one() -> None:
    plain = said("t", "u1", "We drove to the coast on Saturday.")
    learnt = said("t", "u1", "I drove my new car to the coast on Saturday.")
    [belief] = with_memories(learnt, mem("t", "u1", "User owns a new car.", importance=0.95, type=MemoryType.FACT))
    learnt = learnt.model_copy(update={"memory_ids": [belief.id]})
    same = Signals(relevance=0.6, dense_rank=1, dense_score=0.6)
    ranked = scores([plain, learnt], {plain.id: same, learnt.id: same}, current=[belief])
    assert ranked[plain.id] == ranked[learnt.id]


def test_the_named_speaker_s_own_turn_is_preferred_over_a_turn_that_only_names_them() -> None:
    own = said("t", "u1", "I took up pottery last month.", speaker="Ines")
    greeting = said("t", "u1", "Hey Ines! Pottery sounds like fun.", speaker="Bruno")
    same = Signals(relevance=0.5, dense_rank=1, dense_score=0.5)
    verdicts = judge_episodes([own, greeting], {own.id: same, greeting.id: same}, {}, NOW, BALANCED, named={"Ines"})
    by_id = {e.episode.id: e for e in verdicts.entries}
    assert by_id[own.id].score.value > by_id[greeting.id].score.value
    assert "about Ines" in by_id[own.id].reasons and "mentions Ines" in by_id[greeting.id].reasons
    assert by_id[greeting.id].relevance == 0.5  # named, not boosted


def entry(episode, value: float, neighbours=()) -> EpisodeEntry:
    return EpisodeEntry(episode, ["matched"], value, Score(value, 0.9, 0.45, 1.0, value), neighbours=list(neighbours))


def test_a_turn_is_quoted_once_as_the_best_hit_s_neighbour_and_never_lost_to_the_budget() -> None:
    question = said("t", "u1", "What did you name the puppy?", speaker="Bruno", days_ago=1.002)
    answer = said("t", "u1", "We called her Nala, after the film.", speaker="Ines", days_ago=1.001)
    after = said("t", "u1", "Such a sweet name!", speaker="Bruno", days_ago=1.0)
    long = said("t", "u1", "word " * 400, speaker="Bruno", days_ago=3)
    best = entry(question, 0.9, [answer])
    hit = entry(answer, 0.8, [question, after])
    huge = entry(long, 0.95)  # over the budget: cut, and it quotes nothing
    merged = merge(Selection(chosen=[], conflicts=[]), [huge, best, hit], budget_tokens=60, limit=5)
    [kept] = merged.episodes
    assert [t.id for t in kept.turns()] == [question.id, answer.id]
    why = dict(merged.selection.suppressed)
    assert why[answer.id] == f"quoted as context of {question.id}" and why[long.id] == "over the token budget"


def test_a_quote_too_long_with_its_neighbours_keeps_the_more_relevant_one_that_fits() -> None:
    asked = said("t", "u1", "Where did you go hiking? " * 8, speaker="Bruno", days_ago=1.002)  # 50 tokens
    answer = said("t", "u1", "Up the ridge above the lake.", speaker="Ines", days_ago=1.001)  # 7 tokens
    after = said("t", "u1", "Sounds lovely!", speaker="Bruno", days_ago=1.0)  # 4 tokens
    first = said("t", "u1", "We adopted a kitten.", speaker="Ines", days_ago=5)  # 5 tokens
    ranked = [entry(first, 0.9), entry(answer, 0.8, [asked, after]), entry(asked, 0.5)]
    merged = merge(Selection(chosen=[], conflicts=[]), ranked, budget_tokens=62, limit=5)
    quote = next(e for e in merged.episodes if e.episode.id == answer.id)
    assert [t.id for t in quote.context] == [asked.id]  # the neighbour that is itself a hit, not the shorter one
    merged = merge(Selection(chosen=[], conflicts=[]), ranked, budget_tokens=20, limit=5)
    quote = next(e for e in merged.episodes if e.episode.id == answer.id)
    assert [t.id for t in quote.context] == [after.id]  # the one that still fits, rather than no quote


def test_a_quote_cites_its_own_turn_first_then_its_neighbours_by_relevance() -> None:
    asked = said("t", "u1", "What did you name the puppy?", speaker="Bruno", days_ago=1.002)
    answer = said("t", "u1", "We called her Nala, after the film.", speaker="Ines", days_ago=1.001)
    after = said("t", "u1", "Such a sweet name!", speaker="Bruno", days_ago=1.0)
    ranked = [entry(answer, 0.8, [asked, after]), entry(after, 0.3)]
    [quote] = merge(Selection(chosen=[], conflicts=[]), ranked, budget_tokens=100, limit=5).episodes
    item = episode_item(quote, diagnostics=False, now=NOW)
    assert item.citations == [answer.turn_id, after.turn_id, asked.turn_id]
    assert [t.turn_id for t in item.context] == [asked.turn_id, after.turn_id]  # shown in the order said


def test_the_quote_of_a_belief_that_may_have_been_replaced_says_so_too() -> None:
    """Currency for every item (issue 24.2): the turn of a possibly superseded belief is labelled like
    it, though the episode itself carries no label (the supersession was decided on the belief)."""
    turn = said("t", "u1", "My gym membership is with Pulse Fitness.")
    [belief] = with_memories(turn, mem("t", "u1", "User's gym is Pulse Fitness.", type=MemoryType.FACT))
    belief = belief.model_copy(update={"possibly_superseded_by": "newer-1", "possibly_superseded_at": NOW})
    turn = turn.model_copy(update={"memory_ids": [belief.id]})
    found = Signals(relevance=0.6, dense_rank=1, dense_score=0.6)
    verdicts = judge_episodes([turn], {turn.id: found}, {belief.id: belief}, NOW, BALANCED)
    [entry] = verdicts.entries
    item = episode_item(entry, diagnostics=False, now=NOW)
    assert item.possibly_superseded and item.superseded_by == "newer-1" and item.note


def test_a_short_reply_gives_its_place_to_the_turn_beside_it_that_says_more() -> None:
    """A reply ranks on the turn it follows (its vector is made with it): the turn that says the answer
    is the item, the reply its context, whichever of the two ranked higher."""
    result = said("t", "u1", "Did 41:10 at the harbour 10k, so the next goal is sub-40.", days_ago=1.002)
    cheer = said("t", "u1", "Brilliant run!", speaker="assistant", days_ago=1.001)
    reply = said("t", "u1", "Still grinning.", days_ago=1.0)
    ranked = [entry(reply, 0.8, [result, cheer]), entry(result, 0.6, [reply])]
    merged = merge(Selection(chosen=[], conflicts=[]), ranked, budget_tokens=200, limit=5)
    [kept] = merged.episodes
    assert kept.episode.id == result.id and [t.id for t in kept.context] == [reply.id]
    assert dict(merged.selection.suppressed)[reply.id] == f"quoted as context of {result.id}"


def test_a_reply_keeps_its_place_beside_another_speaker_or_a_turn_that_says_no_more() -> None:
    question = said("t", "u1", "What did you name the new puppy in the end?", speaker="Bruno", days_ago=1.001)
    answer = said("t", "u1", "Nala.", speaker="Ines", days_ago=1.0)
    ranked = [entry(answer, 0.8, [question]), entry(question, 0.6, [answer])]
    [kept] = merge(Selection(chosen=[], conflicts=[]), ranked, budget_tokens=200, limit=5).episodes
    assert kept.episode.id == answer.id  # another speaker's question is context, not the answer
    before = said("t", "u1", "Booked the ferry.", days_ago=1.001)
    after = said("t", "u1", "Leaving Friday at nine.", days_ago=1.0)
    ranked = [entry(after, 0.8, [before]), entry(before, 0.6, [after])]
    [kept] = merge(Selection(chosen=[], conflicts=[]), ranked, budget_tokens=200, limit=5).episodes
    assert kept.episode.id == after.id  # the turn beside it says no more than twice as much
