"""The Claude extractor under API failure: 429, 5xx, 529 overload and timeouts are retried by the
SDK, then the rules fallback takes the turn (counted); the API key never reaches a log line."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import pytest

from beliefs.records import Claim, MemoryType, Role, Turn
from llm.errors import ExtractorError
from llm.extractor import AnthropicExtractor
from tests.llm.fake_anthropic import FakeAnthropic, Reply, claude_settings, memory

KEY = "sk-ant-api03-THIS-KEY-MUST-NEVER-BE-LOGGED-0123456789abcdef"


def turn(text: str = "I use pytest", n: int = 1) -> Turn:
    return Turn(turn_id=f"t-{n}", tenant_id="acme", user_id="u-1", role=Role.USER, text=text)


class Fallback:
    name = "rules-stub"

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        return [[Claim(text="fallback", type=MemoryType.FACT, importance=0.5, confidence=0.5)] for _ in turns]


def extractor_for(fake: FakeAnthropic, retries: int = 1, fallback: Fallback | None = None, **overrides) -> AnthropicExtractor:
    settings = claude_settings(
        fake.url, **({"extractor": "anthropic", "anthropic_api_key": KEY, "anthropic_max_retries": retries,
                      "anthropic_timeout_s": 5.0} | overrides)
    )  # fmt: skip
    return AnthropicExtractor(settings, fallback=fallback)


@pytest.mark.parametrize("status", [429, 500, 503, 529])
async def test_a_transient_failure_is_retried_by_the_sdk(fake: FakeAnthropic, status: int) -> None:
    fake.script(Reply.error(status, retry_after_ms=1), Reply.memories(memory()))
    extractor = extractor_for(fake, fallback=Fallback())
    try:
        ((claim,),) = await extractor.extract([turn()])
    finally:
        await extractor.aclose()
    assert claim.value == "pytest" and fake.request_count == 2
    assert extractor.stats.fallbacks == 0 and extractor.stats.api_errors == 0


@pytest.mark.parametrize("status", [429, 500, 529])
async def test_a_persistent_failure_falls_back_to_the_rules_and_is_counted(fake: FakeAnthropic, status: int) -> None:
    fake.script(Reply.error(status, retry_after_ms=1), Reply.error(status, retry_after_ms=1))
    extractor = extractor_for(fake, fallback=Fallback())
    try:
        ((claim,),) = await extractor.extract([turn()])
    finally:
        await extractor.aclose()
    assert claim.text == "fallback"
    assert extractor.stats.api_errors == 1 and extractor.stats.fallbacks == 1


async def test_the_api_key_never_reaches_a_log_line_or_an_error(
    fake: FakeAnthropic, caplog: pytest.LogCaptureFixture
) -> None:
    """Every failure path, with every logger (ours, the SDK's, httpx's) at DEBUG."""
    fake.script(
        Reply.error(401, retry_after_ms=None),  # a refused key
        Reply.error(529, retry_after_ms=1), Reply.error(529, retry_after_ms=1),  # overloaded, retried, fallback
        Reply.ok("not a tool call"), Reply.tool({"memories": "no"}),  # malformed twice
        Reply.hang(1.0),  # timeout
    )  # fmt: skip
    fallback_extractor = extractor_for(fake, fallback=Fallback(), anthropic_timeout_s=0.5)
    bare_extractor = extractor_for(fake, retries=0)
    errors: list[str] = []
    with caplog.at_level(logging.DEBUG):
        try:
            with pytest.raises(ExtractorError) as refused:
                await bare_extractor.extract([turn(n=1)])
            errors.append(f"{refused.value!r} {refused.value.__cause__!r}")
            for n in (2, 3, 4):
                await fallback_extractor.extract([turn(n=n)])
        finally:
            await fallback_extractor.aclose()
            await bare_extractor.aclose()
    assert fallback_extractor.stats.fallbacks == 3
    assert fake.headers[0]["authorization"] == f"Bearer {KEY}"  # the key was really sent
    logged = [record.getMessage() for record in caplog.records] + [str(record.args) for record in caplog.records]
    assert any("fell back" in line for line in logged)
    assert caplog.records, "nothing was logged: the test would prove nothing"
    for line in logged + errors:
        assert KEY not in line
        assert KEY[-16:] not in line
