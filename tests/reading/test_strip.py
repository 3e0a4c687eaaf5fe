"""strip_injected: every injected memory block form disappears, ordinary text is untouched."""

from __future__ import annotations

import pytest

from beliefs.errors import BeliefstreamError, ConfigurationError
from reading.errors import StripPatternError
from reading.strip import RECALL_BLOCK_TAG, strip_injected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<relevant-memories>User likes tea.</relevant-memories> I use vim.", "I use vim."),
        ("<memories>\n- likes tea\n- lives in Oslo\n</memories>\nI use vim.", "I use vim."),
        ("Before <memory>User is a chef.</memory> after", "Before after"),
        (
            f"<{RECALL_BLOCK_TAG}>1. User prefers dark mode.</{RECALL_BLOCK_TAG}>Hi, I moved to Rome.",
            "Hi, I moved to Rome.",
        ),
        ("<MEMORIES>shouting</MEMORIES> quiet", "quiet"),
        ('<memories source="recall" n=3>x</memories> kept', "kept"),
        ("<Relevant-Memories>\nmulti\nline\n</relevant-memories>\n\n\n\nkept", "kept"),
        ("I am here. <memories>never closed\nUser is a doctor.", "I am here."),
        ("<memories> outer <memory>inner</memory> still outer </memories> kept", "kept"),
        ("<memories> a <memories> b </memories> c </memories> kept", "kept"),
        ("<memories>one</memories> mid <memory>two</memory> end", "mid end"),
        ("stray closing </memories> tag", "stray closing tag"),
        ("<memories></memories>", ""),
    ],
)
def test_strips_every_block_form(text: str, expected: str) -> None:
    assert strip_injected(text) == expected


@pytest.mark.parametrize(
    "text",
    ["I always use dark mode.", "  spaced   text  ", "a < b and c > d", "<p>html is not a memory</p>", ""],
)
def test_text_without_blocks_is_returned_unchanged(text: str) -> None:
    assert strip_injected(text) == text


def test_memorable_is_not_a_memory_tag() -> None:
    assert strip_injected("<memorable>keep</memorable>") == "<memorable>keep</memorable>"


def test_extra_patterns_are_applied() -> None:
    text = "[[context: User likes tea]] I live in Oslo. [[context: other]]"
    assert strip_injected(text, [r"\[\[context:.*?\]\]"]) == "I live in Oslo."


def test_extra_patterns_are_case_insensitive_and_multiline() -> None:
    assert strip_injected("<CTX>\nsecret\n</ctx> body", ["<ctx>.*?</ctx>"]) == "body"


def test_invalid_extra_pattern_raises_named_error() -> None:
    with pytest.raises(StripPatternError) as caught:
        strip_injected("text", ["(unclosed"])
    assert isinstance(caught.value, ConfigurationError)
    assert isinstance(caught.value, BeliefstreamError)
    assert caught.value.pattern == "(unclosed"


def test_long_unclosed_input_is_fast() -> None:
    text = "<memories>" + "x <memory> y " * 5000
    assert strip_injected(text) == ""
