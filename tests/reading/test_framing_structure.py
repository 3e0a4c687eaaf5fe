"""Framing by the structure of the sentence (reading.extract.framing, speech_act, reading.sincerity).

Each rule is read off the shape of the sentence: who the complement of "imagine" is about, whether an
"if" opens a condition or means "whether", a wish against how things are, a fiction's frame opening a
first-person clause, a conditional plan, mock assent with the evidence against it, a question that
asserts its complement. And one gate for both: what the extractor keeps under 0.3 (or drops), the
quote of its turn is read as insincere; what it keeps as said, the quote keeps too.
"""

from __future__ import annotations

import pytest

from reading import junk
from reading.extract.framing import Frame, asserted, frame_of
from reading.sincerity import Sincerity, sincerity_of
from tests.reading.rules_extraction import claims


def said(text: str) -> Sincerity:
    return sincerity_of(text).sincerity


@pytest.mark.parametrize(
    "sentence",
    [
        "Imagine I ran a ski school in Tignes, what would my winters look like?",
        "So suppose I sold the car, could I still get to the depot?",
        "Could you ever imagine me as a stand-up comic?",
        "Let's pretend I'm the captain of this ship.",
    ],
)
def test_imagining_is_a_hypothetical_when_it_is_an_imperative_or_about_the_speaker(sentence: str) -> None:
    assert frame_of(sentence).frame is Frame.HYPOTHETICAL
    assert said(sentence) is Sincerity.HYPOTHETICAL


@pytest.mark.parametrize(
    "sentence",
    [
        "I can imagine how draining the night shifts were for you.",
        "I can only imagine the noise at that stadium.",
        "I can't imagine my mornings without the dog, she gets me out the door.",
        "Can't imagine living anywhere but the coast now.",
        "There was a stretch when I wondered if I was in the wrong degree.",
        "I asked the landlord if I could paint the hallway, and I did it green.",
        "The garden felt like a church, as if I could hear my gran humming in it.",
    ],
)
def test_empathy_negation_whether_and_comparison_are_sincere(sentence: str) -> None:
    assert frame_of(sentence).frame is not Frame.HYPOTHETICAL
    assert said(sentence) is Sincerity.SINCERE


@pytest.mark.parametrize(
    ("sentence", "sincerity"),
    [
        ("I wish I lived closer to the mountains.", Sincerity.HYPOTHETICAL),
        ("Honestly I wish I were better at saying no.", Sincerity.HYPOTHETICAL),
        ("If only I had kept up the cello.", Sincerity.HYPOTHETICAL),
        ("I dreamed I was giving a lecture in Mandarin.", Sincerity.HYPOTHETICAL),
        ("I had a strange dream I was a lighthouse keeper.", Sincerity.HYPOTHETICAL),
        ("I wish I could bring you to the festival next year.", Sincerity.SINCERE),
        ("My dream is to cycle the length of Chile one day.", Sincerity.SINCERE),
    ],
)
def test_a_wish_against_how_things_are_and_a_dream_are_not_the_users_life(
    sentence: str, sincerity: Sincerity
) -> None:
    assert said(sentence) is sincerity


@pytest.mark.parametrize(
    ("sentence", "sincerity"),
    [
        ("For my screenplay, my heroine is a tugboat pilot in Hamburg.", Sincerity.HYPOTHETICAL),
        ("In the comic we're drafting, I play a retired astronaut.", Sincerity.HYPOTHETICAL),
        ("My protagonist works as a coroner in Leeds.", Sincerity.HYPOTHETICAL),
        ("My Skyrim character is a khajiit thief.", Sincerity.HYPOTHETICAL),
        ("My favourite character is Samwise.", Sincerity.SINCERE),
        ("I sold a short story to a magazine in March.", Sincerity.SINCERE),
        ("I got feedback for my novel that I'm still chewing on.", Sincerity.SINCERE),
    ],
)
def test_a_fictions_frame_over_a_first_person_clause_is_role_play(
    sentence: str, sincerity: Sincerity
) -> None:
    assert said(sentence) is sincerity


@pytest.mark.parametrize(
    ("sentence", "sincerity"),
    [
        ("If the visa is approved, I'll move to Toronto in August.", Sincerity.HYPOTHETICAL),
        ("We'd buy the cottage if the survey comes back clean.", Sincerity.HYPOTHETICAL),
        ("I'll drop by after work if that's alright.", Sincerity.SINCERE),
        ("I'll let you know if the tickets go on sale.", Sincerity.SINCERE),
        ("If you ever visit Porto, I'd love to show you around.", Sincerity.SINCERE),
    ],
)
def test_a_plan_that_hangs_on_a_condition_is_hypothetical_a_courtesy_is_not(
    sentence: str, sincerity: Sincerity
) -> None:
    assert said(sentence) is sincerity


def test_a_conditional_plan_makes_no_current_plan() -> None:
    assert all(
        c.confidence <= 0.3 for c in claims("If the visa is approved, I'll move to Toronto in August.")
    )


@pytest.mark.parametrize(
    ("sentence", "sincerity"),
    [
        ("Were I ten years younger, I'd retrain as a pilot.", Sincerity.HYPOTHETICAL),
        ("Had I stayed in Bremen, I would own a bakery by now.", Sincerity.HYPOTHETICAL),
        ("Should we ever move north, we'd get a wood stove.", Sincerity.HYPOTHETICAL),
        ("In a parallel universe I'm a jazz drummer.", Sincerity.HYPOTHETICAL),
        ("In my wildest dreams I'm a Formula 1 driver.", Sincerity.HYPOTHETICAL),
        ("Picture it: I'm running a vineyard in Mendoza.", Sincerity.HYPOTHETICAL),
        ("Here's a picture I took at the harbour in Bergen.", Sincerity.SINCERE),
        ("I'd be a terrible lawyer, to be fair.", Sincerity.HYPOTHETICAL),
        ("Should I book the ferry or fly?", Sincerity.SINCERE),
        ("I'd be glad to lend you the tent.", Sincerity.SINCERE),
    ],
)
def test_a_condition_by_inversion_and_another_world_are_hypothetical(
    sentence: str, sincerity: Sincerity
) -> None:
    assert said(sentence) is sincerity


@pytest.mark.parametrize(
    "sentence",
    [
        "Oh sure, I'm a gifted singer, that's why the neighbours moved out.",
        "Of course I'm great with money, just ask my overdraft.",
        "Right, because I'm the tidiest person alive.",
        "Saving money is my greatest talent, said no one ever.",
        "As if I'd ever wear socks with sandals.",
        "Ugh, I just love queueing at the post office.",
    ],
)
def test_mock_assent_with_the_evidence_against_it_is_not_sincere(sentence: str) -> None:
    assert said(sentence) is not Sincerity.SINCERE
    assert all(c.confidence <= 0.3 for c in claims(sentence))


@pytest.mark.parametrize(
    "sentence",
    [
        "Yeah, I'm a midwife, that's why I asked about night feeds.",
        "Oh yeah, we went to the beach in Tarifa last week.",
        "The hike was tough but the lake was calm, exactly what I needed.",
    ],
)
def test_plain_assent_and_praise_stay_sincere(sentence: str) -> None:
    assert said(sentence) is Sincerity.SINCERE
    assert junk.sentence_junk_reason(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        ("Can you believe I've never seen the sea?", "I've never seen the sea."),
        ("Did you know my grandmother was a welder?", "my grandmother was a welder."),
        ("Me, a lifelong vegetarian!", "I am a lifelong vegetarian."),
        ("Me, a marathon runner?", "Me, a marathon runner?"),
        ("Can you believe it?", "Can you believe it?"),
    ],
)
def test_a_question_or_exclamation_that_asserts_is_read_as_its_statement(
    sentence: str, statement: str
) -> None:
    assert asserted(sentence) == statement


def test_an_asserting_question_and_an_apposition_make_claims() -> None:
    texts = [c.text for c in claims("Would you believe I've never ridden a bike? Me, a PE teacher!")]
    assert any("never ridden a bike" in t for t in texts)
    assert any("PE teacher" in t for t in texts)


@pytest.mark.parametrize(
    ("text", "sincere"),
    [
        ("Suppose I worked at the harbour, would I need a boat licence?", False),
        ("I wish I owned a house with a workshop.", False),
        ("Last night I dreamt I was a pilot for Lufthansa.", False),
        ("If the transfer goes through, I'll be living in Basel by June.", False),
        ("In our campaign I'm an elf ranger from the northern woods.", False),
        ("Oh sure, I'm an early riser, that's why I missed the 9 o'clock train.", False),
        ("I work as a tram driver in Zagreb.", True),
        ("I'd rather take the train than fly.", True),
        ("Can you believe I've never been on a plane?", True),
    ],
)
def test_one_gate_for_a_belief_and_the_quote_of_its_turn(text: str, sincere: bool) -> None:
    """The quote is read as insincere exactly when the extractor keeps nothing of the turn above 0.3."""
    trusted = [c for c in claims(text) if c.confidence > 0.3]
    assert (said(text) is Sincerity.SINCERE) is sincere
    assert bool(trusted) is sincere, trusted


@pytest.mark.parametrize(
    ("text", "sincerity"),
    [
        ("I nearly took a job at a hotel kitchen in Bath last year.", "hypothetical"),  # what did not happen
        ("We almost moved to Leeds.", "hypothetical"),
        ("I almost always cycle to work.", "sincere"),  # a habit, not a near miss
        ("Who has time for a gym membership?", "rhetorical"),
        ("Do you think I've got a spare evening to learn Spanish?", "rhetorical"),
        ("Who has the recipe for the cake?", "sincere"),
        ("Obviously I'm a maths genius, that's why I need a calculator.", "sarcastic"),
        ("Obviously I need a new laptop.", "sincere"),
    ],
)
def test_near_misses_rhetorical_means_and_mock_assent(text: str, sincerity: str) -> None:
    assert sincerity_of(text).sincerity.value == sincerity
