"""A possibly superseded item never comes alone: its newer statement is shown right before it (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from beliefs.episodes import Episode, episode_id_for
from beliefs.records import Role, Trust
from sidecar.recall.models import RecalledMemory
from sidecar.recall.newer_first import missing_newer, newer_first, replacing, replacing_quotes

NOW = datetime(2026, 10, 1, tzinfo=UTC)
SAID = datetime(2026, 9, 28, tzinfo=UTC)


def item(item_id: str, text: str, **labels) -> RecalledMemory:
    fields = {"type": "fact", "citations": ["t-" + item_id], **labels}
    return RecalledMemory(
        id=item_id, text=text, confidence=0.9, effective_confidence=0.9, score=0.6,
        recall_reason="matched query", valid_from=SAID, **fields,
    )  # fmt: skip


def possibly(item_id: str, text: str, newer: str) -> RecalledMemory:
    return item(item_id, text, possibly_superseded=True, superseded_by=newer, superseded_at=SAID, note="may be old")


def episode(turn_id: str, text: str) -> Episode:
    return Episode(
        id=episode_id_for("t", turn_id), tenant_id="t", user_id="u", session_id="s2", turn_id=turn_id,
        role=Role.USER, trust=Trust.TRUSTED, text=text, said_at=SAID, created_at=SAID,
    )  # fmt: skip


def test_a_newer_statement_the_answer_holds_moves_up_before_the_older() -> None:
    old = possibly("m-old", "User's office is in the Westgate building.", "m-new")
    other = item("m-other", "User takes the tram.")
    new = item("m-new", "User's office moved to the Canal Street campus.")
    ordered, added = newer_first([old, other, new], {})
    assert [m.id for m in ordered] == ["m-new", "m-old", "m-other"] and added == 0
    assert missing_newer([old, other, new], []) == []


def test_a_newer_statement_left_under_the_floor_is_fetched_and_shown_first_dated() -> None:
    old = possibly("m-old", "User's office is in the Westgate building.", "m-new")
    assert missing_newer([old], [("m-new", "below the similarity floor (cosine 0.10 < 0.15)")]) == ["m-new"]
    moved = episode("t2", "The company relocated us to the Canal Street campus.")
    ordered, added = newer_first([old], {"m-new": moved}, NOW)
    assert [m.id for m in ordered] == [moved.id, "m-old"] and added > 0
    assert ordered[0].said_at == SAID and ordered[0].type == "episode" and not ordered[0].possibly_superseded
    assert "may have replaced m-old" in ordered[0].recall_reason


def test_a_newer_statement_a_gate_withheld_stays_out() -> None:
    old = possibly("m-old", "User's usual is a flat white.", "m-new")
    assert missing_newer([old], [("m-new", "sensitive outside this request's domain")]) == []
    assert [m.id for m in newer_first([old], {})[0]] == ["m-old"]


def test_an_answer_without_possibly_superseded_items_is_left_as_it_is() -> None:
    items = [item("a", "User sings."), item("b", "User skis.", superseded=True, superseded_by="c")]
    assert newer_first(items, {})[0] == items and missing_newer(items, []) == []


def test_a_newer_statement_is_shown_only_in_the_room_the_budget_has_left() -> None:
    """It never displaces what relevance chose: without room the older stays, labelled and dated."""
    moved = episode("t2", "The company relocated us to the Canal Street campus.")
    old = possibly("m-old", "User's office is in the Westgate building.", "m-new")
    assert [m.id for m in newer_first([old], {"m-new": moved}, NOW, room=100)[0]] == [moved.id, "m-old"]
    assert newer_first([old], {"m-new": moved}, NOW, room=5) == ([old], 0)


def test_a_newer_statement_another_quote_shows_as_its_context_is_not_shown_twice() -> None:
    from sidecar.recall.models import EpisodeTurn

    moved = episode("t2", "The company relocated us to the Canal Street campus.")
    old = possibly("m-old", "User's office is in the Westgate building.", moved.id)
    context = EpisodeTurn(turn_id="t2", speaker=None, role=Role.USER, said_at=SAID, text=moved.text)
    quote = item("e-other", "New desks and all!", type="episode", citations=["t3", "t2"], context=[context])
    ordered, added = newer_first([old, quote], {moved.id: moved})
    assert [m.id for m in ordered] == ["e-other", "m-old"] and added == 0


def test_a_belief_drawn_from_the_newer_turn_is_moved_up_instead_of_quoting_the_turn_again() -> None:
    moved = episode("t2", "The company relocated us to the Canal Street campus.")
    old = possibly("m-old", "User's office is in the Westgate building.", moved.id)
    belief = item("m-new", "User's office is on the Canal Street campus.", citations=["t2"])
    ordered, added = newer_first([old, belief], {moved.id: moved})
    assert [m.id for m in ordered] == ["m-new", "m-old"] and added == 0


def test_the_statement_that_replaced_a_relevant_suppressed_quote_answers_in_its_place() -> None:
    """"Marmalade died" sits under the floor for "do we have any pets?"; the cat's first mention, found
    relevant and suppressed as replaced, brings it in, once, in the room the budget has left."""
    died = episode("t2", "Marmalade died last week, the house feels empty.")
    under = [(died.id, "below the similarity floor (cosine 0.14 < 0.15)"), ("e-old", "suppressed: replaced")]
    wanted = replacing([], under, [("e-old", died.id), ("e-older", died.id)])
    assert wanted == [("e-old", died.id)]
    shown, added = replacing_quotes([], wanted, {died.id: died}, NOW, room=100)
    assert [m.id for m in shown] == [died.id] and added > 0 and not shown[0].superseded
    assert "replaced e-old" in shown[0].recall_reason
    assert replacing_quotes([], wanted, {died.id: died}, NOW, room=2) == ([], 0)


def test_a_replacing_statement_a_gate_withheld_or_the_answer_holds_is_not_added() -> None:
    died = episode("t2", "Marmalade died last week.")
    assert replacing([], [(died.id, "sensitive (health) outside its domain")], [("e-old", died.id)]) == []
    held = item(died.id, died.text)
    assert replacing([held], [], [("e-old", died.id)]) == []
