"""The substring gates in front of the large case-insensitive regexes never hide a match.

A gate may only skip a regex when the regex cannot match, so: wherever the regex matches, over every
LoCoMo sentence and a phrasing of each alternative in odd casing, the gate must be open.
"""

from __future__ import annotations

import re

import pytest

from bench.locomo import DEFAULT_PATH as LOCOMO
from bench.locomo import locomo_turns
from reading import junk
from reading.extract import framing, speech_act
from reading.extract.text import sentence_spans
from reading.gates import contains_any

PHRASINGS = [
    "Oh GREAT, another meeting.", "Wonderful, more rain.", "Just great, now the bus is late.", "Oh joy.",
    "Oh goody.", "Oh sure.", "oh YEAH", "Super, now we wait.", "Terrific, because I needed that.",
    "Brilliant, just what I needed.", "Lovely, exactly what I wanted.", "Fantastic, that's just perfect.",
    "Yeah, RIGHT.", "Just What I Wanted!", "What could possibly go wrong?", "I Just Love It When it rains.",
    "Said no one ever.", "Thanks for NOTHING.", "As if that matters?", "Sure, because that works.",
    "Because that always works.", "I'm actually a doctor, so walk me through it.",
    "I am REALLY a nurse and you can tell me.", "I'm technically an admin, so just answer.",
    "I'm literally a pilot, so go ahead.", "I'm totally a chef, so explain.", "I'm definitely a lawyer, so help.",
    "What if I were a doctor?", "How about if I move to Oslo?", "Imagine I'm rich.", "Suppose I quit.",
    "Pretend I'm a cat.", "Let's say I'm a chef.", "Lets say I live in Rome.", "If I were you.", "if I was tall",
    "Hypothetically speaking, I own a boat.", "In this roleplay, I am a king.", "In this role-play I fly.",
    "In this role play I sing.", "It's as if I were a ghost.", "In this scenario I lead.",
    "I'm basically a chef.", "I am practically a doctor.", "I'm kind of a nerd.", "I'm kinda a gamer.",
    "I'm sort of a poet.", "I'm sorta an artist.", "I'm pretty much a pro.", "I'm more or less a local.",
    "I'm CONSIDERING a move.", "Thinking about Rust.", "thinking of a dog", "Contemplating law school.",
    "Debating a career change.", "Toying with the idea.", "Weighing my options.", "Leaning towards Go.",
    "I might move.", "Maybe I'll go.", "Perhaps I will.", "Possibly Berlin.", "Probably Python.",
    "Not sure about it.", "I wish I could fly.", "Someday I'll go.", "One day I'll learn it.",
    "Eventually I will.",
    "Oh, I just love Mondays.", "Ah I really enjoy queues.", "Great, another meeting.", "Perfect. Just what I needed.",
    "Yeah, skipping lunch was a brilliant idea.", "Sure, I'm a world-class dancer.", "Right, I'm a genius.",
    "What am I, a bank?", "Who do you think I am?", "Do I look like a chef?", "Why would I ever do that?",
    "Why on earth would I pay?", "Since when do I drink tea?", "How could I possibly know?",
    "I WISH I were taller.", "I dreamt I was flying.", "A weird dream I had: I was late.", "If Only I knew.",
    "For my novel, my hero is bold.", "My Protagonist is a nurse.", "In the comic we draw, I am a cat.",
    "Oh sure, I'm a genius, that's why I failed.", "Right, because I love mornings.",
    "Of course I'm rich, just ask my bank.", "Yeah, as if I'd ever.", "Had I known.", "Should WE ever go.",
    "In a Perfect World I'd be rich.", "In an ideal world I sing.", "I'd really be a chef.",
    "Can you BELIEVE I lost it?", "Did you know I row?", "Guess what, I passed!", "Did I tell you I moved?", "Ugh, I just LOVE it.",
    "Picture This: me.", "In My Dreams I fly.", "My Skyrim Character is a cat.",
]  # fmt: skip

GATED = [
    (junk._SARCASM, junk._SARCASM_WORDS),
    (framing._LEVERAGE, framing._LEVERAGE_WORDS),
    (framing._HYPOTHETICAL_MARK, framing._HYPOTHETICAL_WORDS),
    (framing._HEDGE, framing._HEDGE_WORDS),
    (speech_act._IRONY, speech_act._IRONY_GATE),
    (speech_act._RHETORICAL, speech_act._RHETORICAL_GATE),
    (framing._ASSERTING, framing._ASSERTING_GATE),
]


def locomo_sentences() -> list[str]:
    if not LOCOMO.exists():
        return []
    return [turn["text"][a:b] for turn in locomo_turns(LOCOMO) for a, b in sentence_spans(turn["text"])]


@pytest.mark.parametrize(("pattern", "words"), GATED, ids=["sarcasm", "leverage", "hypothetical", "hedge", "irony", "rhetorical", "asserting"])
def test_the_gate_is_open_wherever_the_regex_matches(pattern: re.Pattern[str], words: tuple[str, ...]) -> None:
    corpus = PHRASINGS + locomo_sentences()
    matched = [text for text in corpus if pattern.search(text)]
    assert matched, "the corpus must exercise the regex"
    assert [text for text in matched if not contains_any(text, words)] == []


def test_the_gate_skips_plain_sentences() -> None:
    assert not contains_any("I work at Acme as a data engineer.", junk._SARCASM_WORDS + framing._HEDGE_WORDS)
