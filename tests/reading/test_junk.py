"""classify_junk: chit-chat, transient states, sarcasm and dumps are junk; disclosures are not."""

from __future__ import annotations

import pytest

from beliefs.records import Role
from reading.junk import JunkVerdict, classify_junk, sentence_junk_reason

JUNK = [
    ("", "empty"),
    ("   \n ", "empty"),
    ("hi", "greeting"),
    ("hello there!", "greeting"),
    ("Hey Mel! Good to see you! How have you been?", "greeting"),
    ("Good morning everyone", "greeting"),
    ("See you!", "greeting"),
    ("Thanks, that's helpful!", "pleasantry"),
    ("Thank you so much!", "pleasantry"),
    ("Thanks, Maria! It means a lot.", "pleasantry"),
    ("Wow, that's cool, Caroline! What happened that was so awesome?", "pleasantry"),
    ("ok", "acknowledgement"),
    ("sounds good", "acknowledgement"),
    ("got it", "acknowledgement"),
    ("lol", "acknowledgement"),
    ("Sure thing!", "acknowledgement"),
    ("😀🎉", "emoji_only"),
    ("...", "emoji_only"),
    ("👍", "emoji_only"),
    ("I'm tired today", "transient_state"),
    ("I'm hungry right now", "transient_state"),
    ("feeling a bit sick this morning", "transient_state"),
    ("Ugh, I'm so exhausted", "transient_state"),
    ("Oh great, another meeting", "sarcasm"),
    ("yeah right", "sarcasm"),
    ("just what I needed", "sarcasm"),
    ("What could possibly go wrong?", "sarcasm"),
    ("What's the weather?", "question_without_disclosure"),
    ("Can you explain recursion?", "question_without_disclosure"),
    ("What should I cook tonight?", "question_without_disclosure"),
    ("my password is hunter2", "secret_only"),
    ("here's my api key: sk-proj-abcDEF1234567890abcdefGHIJ", "secret_only"),
    ("my password is [REDACTED:password]", "secret_only"),
    ("test", "test_row"),
    ("this is a test message", "test_row"),
    ("[smoke] retain check 42", "test_row"),
    ("session started", "test_row"),
    ('{"event": "ping", "id": 3}', "raw_dump"),
    ("```python\nprint('hi')\n```", "raw_dump"),
    ('Traceback (most recent call last):\n  File "app.py", line 3\nValueError: boom', "raw_dump"),
]


@pytest.mark.parametrize(("text", "reason"), JUNK)
def test_junk_reasons(text: str, reason: str) -> None:
    assert classify_junk(text, Role.USER) == JunkVerdict(reason)


@pytest.mark.parametrize(
    "text",
    [
        "I always use dark mode",
        "I'm a backend engineer",
        "I chose PostgreSQL for this project",
        "No, I use pytest not unittest",
        "What if I were a doctor?",
        "As a vegetarian, what should I cook?",
        "Thanks! I'm allergic to peanuts.",
        "Hi! I just moved to Lisbon.",
        "I'm considering switching to Rust",
        "My kids love dinosaurs",
        "Never recommend Alto again, that was a disaster",
        "I'm tired of Java, I switched to Kotlin.",
        "I just love hiking with my dog.",
    ],
)
def test_disclosures_are_not_junk(text: str) -> None:
    assert classify_junk(text, Role.USER) is None


@pytest.mark.parametrize("role", [Role.ASSISTANT, Role.SYSTEM, Role.TOOL])
def test_non_user_roles_are_never_trusted_sources(role: Role) -> None:
    assert classify_junk("I'm a doctor and I live in Paris.", role) == JunkVerdict("non_user_role")


@pytest.mark.parametrize(
    "text",
    [
        "x" * 500,
        "Here is the code:\n```js\nconsole.log(1)\n```",
        '{"results": [1, 2, 3]}',
        'Traceback (most recent call last):\n  File "x.py", line 1',
    ],
)
def test_assistant_and_tool_dumps(text: str) -> None:
    assert classify_junk(text, Role.ASSISTANT) == JunkVerdict("assistant_dump")
    assert classify_junk(text, Role.TOOL) == JunkVerdict("assistant_dump")


def test_user_code_with_prose_is_not_a_dump() -> None:
    assert classify_junk("I work at Acme. ```print(1)```", Role.USER) is None


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("hi!", "greeting"),
        ("Thanks so much!", "pleasantry"),
        ("I'm a nurse.", None),
        ("Do you like jazz?", "question_without_disclosure"),
    ],
)
def test_sentence_level_reasons(sentence: str, reason: str | None) -> None:
    assert sentence_junk_reason(sentence) == reason


def test_verdict_is_frozen() -> None:
    verdict = JunkVerdict("greeting")
    with pytest.raises(AttributeError):
        verdict.reason = "other"  # type: ignore[misc]
