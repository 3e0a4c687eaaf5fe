"""The Claude extractor when an answer cannot be used or the API fails: one repair request for a
malformed tool call, then the fallback; SDK retries of rate limits and server errors; timeouts and
refused connections; a failing turn falling back alone."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from llm.errors import ExtractorError, MalformedAnswerError
from llm.prompts.extract_answer import read_tool_input
from tests.llm.extractor_helpers import TS, Make, StubExtractor, turn
from tests.llm.fake_anthropic import FakeAnthropic, Reply, free_port, memory


async def test_valid_tool_call_needs_no_second_request(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.memories(memory()))
    extractor = make(fake)
    (claims,) = await extractor.extract([turn("I use pytest")])
    assert [c.value for c in claims] == ["pytest"]
    assert fake.request_count == 1 and extractor.stats.repairs == 0


async def test_malformed_then_repaired(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.tool({"memories": [{"text": "The user uses pytest"}]}), Reply.memories(memory()))
    fallback = StubExtractor()
    extractor = make(fake, fallback=fallback)

    (claims,) = await extractor.extract([turn("I use pytest")])

    assert [c.value for c in claims] == ["pytest"]
    assert fake.request_count == 2
    repair = fake.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    (call,) = repair[1]["content"]
    assert call["type"] == "tool_use" and call["input"] == {"memories": [{"text": "The user uses pytest"}]}
    (result,) = repair[2]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == call["id"] and result["is_error"]
    assert "could not be used" in result["content"]
    assert extractor.stats.malformed == 1 and extractor.stats.repairs == 1 and extractor.stats.fallbacks == 0
    assert fallback.turns == []


async def test_malformed_twice_uses_the_fallback(
    fake: FakeAnthropic, make: Make, caplog: pytest.LogCaptureFixture
) -> None:
    fake.script(Reply.ok("not json"), Reply.ok("still {not json"))
    fallback = StubExtractor()
    extractor = make(fake, fallback=fallback)

    with caplog.at_level(logging.WARNING, logger="llm.extractor"):
        (claims,) = await extractor.extract([turn("I use pytest")])

    assert [c.text for c in claims] == ["fallback: I use pytest"]
    assert fake.request_count == 2
    assert extractor.stats.malformed == 2 and extractor.stats.fallbacks == 1
    warnings = [r for r in caplog.records if "fell back" in r.getMessage()]
    assert len(warnings) == 1 and "malformed" in warnings[0].getMessage()


async def test_malformed_twice_without_fallback_raises(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.ok("no"), Reply.ok("no"))
    with pytest.raises(ExtractorError, match="malformed"):
        await make(fake).extract([turn("I use pytest")])


@pytest.mark.parametrize("tool_input", [["a list"], {"memory": []}, {"memories": "none"}, {"memories": [{"text": "x"}]}])
def test_a_tool_input_outside_the_response_model_is_one_named_error(tool_input: Any) -> None:
    with pytest.raises(MalformedAnswerError):
        read_tool_input(tool_input, turn_ts=TS)


async def test_rate_limit_is_retried_by_the_sdk(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.rate_limited(), Reply.memories(memory()))
    extractor = make(fake, fallback=StubExtractor())

    (claims,) = await extractor.extract([turn("I use pytest")])

    assert [c.value for c in claims] == ["pytest"]
    assert fake.request_count == 2
    assert extractor.stats.calls == 1 and extractor.stats.api_errors == 0 and extractor.stats.fallbacks == 0


async def test_persistent_server_errors_use_the_fallback(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.error(500), Reply.error(500))
    fallback = StubExtractor()
    extractor = make(fake, fallback=fallback)

    (claims,) = await extractor.extract([turn("I use pytest")])

    assert claims[0].text.startswith("fallback:")
    assert fake.request_count == 2  # one try plus the SDK's one retry
    assert extractor.stats.api_errors == 1 and extractor.stats.fallbacks == 1


async def test_timeout_uses_the_fallback(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.hang(2.0))
    fallback = StubExtractor()
    extractor = make(fake, fallback=fallback, anthropic_timeout_s=0.3, anthropic_max_retries=0)

    (claims,) = await extractor.extract([turn("I use pytest")])

    assert claims[0].text.startswith("fallback:")
    assert extractor.stats.api_errors == 1 and extractor.stats.fallbacks == 1


async def test_connection_refused_without_fallback_raises(make: Make) -> None:
    extractor = make(f"http://127.0.0.1:{free_port()}", anthropic_max_retries=0)
    with pytest.raises(ExtractorError, match="unreachable"):
        await extractor.extract([turn("I use pytest")])
    assert extractor.stats.api_errors == 1


async def test_one_failing_turn_falls_back_alone(fake: FakeAnthropic, make: Make) -> None:
    fake.script(Reply.memories(memory()), Reply.ok("x"), Reply.ok("y"))
    extractor = make(fake, fallback=StubExtractor(), concurrency=1)

    first, second = await extractor.extract([turn("I use pytest", turn_id="a"), turn("hello", turn_id="b")])

    assert [c.value for c in first] == ["pytest"]
    assert [c.text for c in second] == ["fallback: hello"]
