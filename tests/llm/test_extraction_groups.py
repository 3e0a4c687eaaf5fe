"""Several turns of one session read in one Claude request when that costs less, against the fake:
the numbered transcript, each memory back on its own turn, and the token count it saves."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from beliefs.records import Claim, MemoryType, Role, Turn
from llm.extractor import AnthropicExtractor
from tests.llm.fake_anthropic import FakeAnthropic, Reply, claude_settings, memory

TS = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)


def turn(n: int, text: str, role: Role = Role.USER, user: str = "u-1", session: str | None = "s-1") -> Turn:
    return Turn(turn_id=f"t-{n}", tenant_id="acme", user_id=user, session_id=session, role=role, text=text,
                ts=TS + timedelta(minutes=n))  # fmt: skip


CONVERSATION = [
    turn(1, "I'm planning a trip to Japan in April."),
    turn(2, "Great! Do you prefer ryokans or western-style hotels?", Role.ASSISTANT),
    turn(3, "Ryokans, always. I'm also vegetarian, which makes food tricky."),
    turn(4, "Noted. Shall I look at Kyoto or Osaka first?", Role.ASSISTANT),
    turn(5, "Kyoto first, please."),
]


class Fallback:
    name = "stub"

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        return [[Claim(text=f"fallback: {t.text}", type=MemoryType.FACT, importance=0.5, confidence=0.5)] for t in turns]


@pytest.fixture
async def build(fake: FakeAnthropic) -> AsyncIterator[Any]:
    made: list[AnthropicExtractor] = []

    def make(group: bool = True, fallback: Any = None, **overrides: Any) -> AnthropicExtractor:
        settings = claude_settings(fake.url, **({"extractor": "anthropic", "anthropic_timeout_s": 5.0} | overrides))
        extractor = AnthropicExtractor(settings, group=group, fallback=fallback)
        made.append(extractor)
        return extractor

    yield make
    for extractor in made:
        await extractor.aclose()


async def test_a_sessions_turns_go_in_one_numbered_request_and_come_back_per_turn(fake: FakeAnthropic, build: Any) -> None:
    fake.script(
        Reply.memories(
            memory(text="The user prefers ryokans.", attribute="accommodation", value="ryokan", turn=2, evidence="Ryokans, always"),
            memory(text="The user is vegetarian.", type="fact", attribute="diet", value="vegetarian", turn=2, evidence="I'm also vegetarian"),
            memory(text="The user plans a trip to Japan in April 2027.", type="fact", attribute="plans", value="Japan trip", turn=1,
                   evidence="I'm planning a trip to Japan in April"),
            memory(text="Out of range.", turn=4),
        )
    )  # fmt: skip
    extractor = build()

    results = await extractor.extract(CONVERSATION)

    assert fake.request_count == 1
    (request,) = fake.requests
    content = request["messages"][0]["content"]
    first, second, third = (content.index(f'<turn n="{n}"') for n in (1, 2, 3))
    assistant = content.index('<turn_before role="assistant">Great! Do you prefer ryokans or western-style hotels?</turn_before>')
    assert first < assistant < second < third  # the assistant's question sits between the turns it separates
    assert content.count("I'm planning a trip to Japan") == 1  # said once, not repeated as context
    assert request["max_tokens"] > 1024
    assert [[c.value for c in claims] for claims in results] == [["Japan trip"], [], ["ryokan", "vegetarian"], [], []]
    assert extractor.stats.grouped_requests == 1 and extractor.stats.grouped_turns == 3
    assert extractor.stats.dropped_items == 1  # the memory of a turn the request did not number


async def test_the_group_costs_fewer_input_tokens_than_separate_requests(fake: FakeAnthropic, build: Any) -> None:
    def cost(usages: list[dict[str, int]]) -> float:  # plain-input units: a cache read costs a tenth
        return sum(u["input_tokens"] + 1.25 * u["cache_creation_input_tokens"] + 0.1 * u["cache_read_input_tokens"] for u in usages)

    fake.reset(default=Reply.memories())
    await build(group=False).extract(CONVERSATION)
    apart = cost(fake.usages)
    fake.reset(default=Reply.memories())
    await build(group=True).extract(CONVERSATION)
    together = cost(fake.usages)
    assert fake.request_count == 1
    assert together < apart


async def test_users_sessions_and_sessionless_turns_are_never_mixed(fake: FakeAnthropic, build: Any) -> None:
    fake.reset(default=Reply.memories())
    turns = [
        turn(1, "I live in Oslo.", user="u-1"),
        turn(2, "I live in Rome.", user="u-2"),
        turn(3, "I work nights.", user="u-1", session="s-2"),
        turn(4, "I like tea.", user="u-1", session=None),
        turn(5, "I like coffee.", user="u-1", session=None),
    ]
    await build().extract(turns)
    assert fake.request_count == 5
    assert all('<turn n="' not in r["messages"][0]["content"] for r in fake.requests)


async def test_a_failed_group_falls_back_turn_by_turn(fake: FakeAnthropic, build: Any) -> None:
    fake.script(Reply.error(500), Reply.error(500))
    extractor = build(anthropic_max_retries=1, fallback=Fallback())
    results = await extractor.extract(CONVERSATION)
    assert [[c.text for c in claims] for claims in results] == [
        ["fallback: I'm planning a trip to Japan in April."], [],
        ["fallback: Ryokans, always. I'm also vegetarian, which makes food tricky."], [],
        ["fallback: Kyoto first, please."],
    ]  # fmt: skip
    assert extractor.stats.fallbacks == 3 and fake.request_count == 2
