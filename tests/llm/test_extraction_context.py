"""What a Claude extraction request carries besides the turn (the session's preceding turns, the
user's current beliefs) and what the answer may do with an offered belief, against the local fake."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from beliefs.records import Polarity, Role, Turn
from llm.extractor import AnthropicExtractor
from llm.turn_context import ContextBounds, OfferedBelief, PrecedingTurn, TurnContext, within_bounds
from tests.llm.fake_anthropic import FakeAnthropic, Reply, claude_settings, memory

TS = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
BERLIN = OfferedBelief("mem-berlin", "The user lives in Berlin.", "user", "lives_in", "Berlin")
TEA = OfferedBelief("mem-tea", "The user drinks green tea every morning.", "user", "drinks", "green tea")


def turn(text: str, role: Role = Role.USER, n: int = 1, session: str | None = "s-1") -> Turn:
    return Turn(
        turn_id=f"t-{n}", tenant_id="acme", user_id="u-1", session_id=session, role=role, text=text,
        ts=TS + timedelta(seconds=n),
    )  # fmt: skip


def user_content(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


class Source:
    """A context source that answers one stored context and records what it was asked."""

    def __init__(self, context: TurnContext | None = None, fails: bool = False) -> None:
        self.context = context or TurnContext()
        self.fails = fails
        self.asked: list[str] = []

    async def __call__(self, turn: Turn) -> TurnContext:
        self.asked.append(turn.turn_id)
        if self.fails:
            raise ConnectionError("store down")
        return self.context


@pytest.fixture
async def build(fake: FakeAnthropic) -> AsyncIterator[Any]:
    made: list[AnthropicExtractor] = []

    def make(source: Source | None = None, **overrides: Any) -> AnthropicExtractor:
        defaults = {"extractor": "anthropic", "extraction_group_turns": False, "anthropic_timeout_s": 5.0}  # one request per turn
        settings = claude_settings(fake.url, **(defaults | overrides))
        extractor = AnthropicExtractor(settings, context=source)
        made.append(extractor)
        return extractor

    yield make
    for extractor in made:
        await extractor.aclose()


async def test_a_reply_is_sent_with_the_question_it_answers_marked_as_the_assistants(fake: FakeAnthropic, build: Any) -> None:
    fake.reset(default=Reply.memories())
    turns = [
        turn("Can you find me a table for Friday?", n=1),
        turn("Lupa has 7pm free, Nopi has 8pm. Which one?", Role.ASSISTANT, n=2),
        turn("the second one, please", n=3),
    ]
    extractor = build()

    assert await extractor.extract(turns) == [[], [], []]

    assert fake.request_count == 2  # the assistant's turn is context, never a request of its own
    first, second = (user_content(r) for r in fake.requests)
    assert "<preceding_turns>" not in first
    assert '<turn_before role="user">Can you find me a table for Friday?</turn_before>' in second
    assert '<turn_before role="assistant">Lupa has 7pm free, Nopi has 8pm. Which one?</turn_before>' in second
    assert second.index("</preceding_turns>") < second.index("<turn>\nthe second one, please\n</turn>")
    assert "never a fact about the speaker" in fake.requests[1]["system"][0]["text"]


async def test_other_sessions_and_turns_without_a_session_are_not_context(fake: FakeAnthropic, build: Any) -> None:
    fake.reset(default=Reply.memories())
    turns = [turn("I moved to Porto.", n=1, session="s-other"), turn("Nice weather.", n=2, session=None), turn("I like it here.", n=3)]
    await build().extract(turns)
    assert all("<preceding_turns>" not in user_content(r) for r in fake.requests)


def test_the_window_keeps_the_newest_turns_within_both_bounds() -> None:
    stored = TurnContext(tuple(PrecedingTurn(Role.USER, f"stored turn {i}") for i in range(10)))
    in_batch = [PrecedingTurn(Role.ASSISTANT, "batch turn")]
    window = within_bounds(stored, in_batch, ContextBounds(turns=3))
    assert [t.text for t in window.preceding] == ["stored turn 8", "stored turn 9", "batch turn"]
    long = [PrecedingTurn(Role.USER, "x" * 400), PrecedingTurn(Role.USER, "short and newest")]
    window = within_bounds(TurnContext(), long, ContextBounds(turns=6, turn_tokens=50))
    assert [t.text for t in window.preceding] == ["short and newest"]  # a turn over the bound ends the window
    beliefs = TurnContext(beliefs=(BERLIN, TEA, BERLIN))
    assert within_bounds(beliefs, [], ContextBounds(belief_tokens=9)).beliefs == (BERLIN,)
    assert within_bounds(beliefs, [], ContextBounds()).beliefs == (BERLIN, TEA)


async def test_offered_beliefs_can_be_retracted_updated_and_confirmed_by_handle(fake: FakeAnthropic, build: Any) -> None:
    source = Source(TurnContext((PrecedingTurn(Role.ASSISTANT, "Still in Berlin?"),), (BERLIN, TEA)))
    fake.script(
        Reply.memories(
            memory(text="The user no longer lives in Berlin.", type="fact", attribute="residence", value="Berlin",
                   action="retract", belief="b1", evidence="I left Berlin"),
            memory(text="The user drinks matcha every morning.", type="fact", attribute="beverage", value="matcha",
                   action="update", belief="b2", evidence="matcha now"),
        )
    )  # fmt: skip
    extractor = build(source)

    ((retracted, updated),) = await extractor.extract([turn("No, I left Berlin in May; and it's matcha now.")])

    content = user_content(fake.requests[0])
    assert "b1: The user lives in Berlin. [user/lives_in = Berlin]" in content
    assert "b2: The user drinks green tea every morning." in content
    assert "mem-berlin" not in content  # handles, not our ids
    assert '<turn_before role="assistant">Still in Berlin?</turn_before>' in content
    # each is anchored to the belief's slot; reconcile decides what it does to the belief
    assert (retracted.entity, retracted.attribute, retracted.value, retracted.polarity) == ("user", "lives_in", "Berlin", Polarity.NEGATIVE)
    assert (updated.entity, updated.attribute, updated.value, updated.polarity) == ("user", "drinks", "matcha", Polarity.POSITIVE)
    assert source.asked == ["t-1"]


async def test_a_confirmation_restates_the_belief(fake: FakeAnthropic, build: Any) -> None:
    fake.script(Reply.memories(memory(text="Still Berlin.", attribute="x", value="y", action="confirm", belief="b1")))
    ((confirmed,),) = await build(Source(TurnContext(beliefs=(BERLIN,)))).extract([turn("yes, still in Berlin")])
    assert (confirmed.text, confirmed.attribute, confirmed.value) == (BERLIN.text, "lives_in", "Berlin")


@pytest.mark.parametrize("handle", ["b3", "mem-berlin", "b0"])
async def test_a_handle_the_request_did_not_offer_is_refused(fake: FakeAnthropic, build: Any, handle: str) -> None:
    fake.script(
        Reply.memories(
            memory(action="update", belief=handle, value="Paris", attribute="lives_in"),
            memory(value="pytest"),
        )
    )
    extractor = build(Source(TurnContext(beliefs=(BERLIN, TEA))))
    ((kept,),) = await extractor.extract([turn("I live in Paris and use pytest")])
    assert kept.value == "pytest"
    assert extractor.stats.refused_ids == 1 and extractor.stats.repairs == 0


async def test_an_unavailable_context_source_does_not_stop_extraction(fake: FakeAnthropic, build: Any) -> None:
    fake.script(Reply.memories(memory()))
    extractor = build(Source(fails=True))
    ((claim,),) = await extractor.extract([turn("I use pytest")])
    assert claim.value == "pytest" and extractor.stats.context_failures == 1
