"""The profile rules (`reading/extract/profile_rules.py`): a name said in a self-introduction."""

from __future__ import annotations

import pytest

from tests.reading.rules_extraction import claims


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hi! I'm Ada, I live in Leith with my partner.", "Ada"),
        ("Hello, I'm Tomas and I work at Fernhill.", "Tomas"),
        ("Hi there, I'm Priya.", "Priya"),
        ("I'm Ada, I live in Leith.", "Ada"),
        ("My name is Ada.", "Ada"),
    ],
)
def test_a_name_said_in_a_self_introduction_is_the_users_name(text: str, name: str) -> None:
    assert f"User's name is {name}." in [c.text for c in claims(text) if c.attribute == "name"]


@pytest.mark.parametrize(
    "text", ["Hey I'm Italian, I live in Rome.", "Hi, I'm back from holiday.", "I'm British, I live in Leith.", "I'm Ada's mum."]
)
def test_a_nationality_or_a_state_after_im_is_no_name(text: str) -> None:
    assert not [c for c in claims(text) if c.attribute == "name"]
