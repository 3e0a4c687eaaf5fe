"""What Claude extraction costs per 1,000 turns: LoCoMo turns through the write path's gate (strip,
secrets, junk) and the Claude extractor, against the local Messages API test server.

Counts requests, input / cache-write / cache-read / output tokens (the server's `usage`, counted
like the API's: JSON length / 4, a marked prefix of at least 4,096 tokens written once and read
after) and the share of turns that reach the model, for one request per turn and for grouped
requests (a session's turns of one window together). Dollars are at Claude Haiku 4.5's published
prices (input $1, cache write $1.25, cache read $0.10, output $5 per million tokens; the Message
Batches API halves each). The stand-in model answers each turn with the rules' claims for it, so
output sizes are plausible, not Claude's; beliefs are not offered (no store here). Nothing here
reaches the real API. Reads /work/shared/data/locomo10.json at run time (never copied).

    .venv/bin/python -m bench.llm_cost [--conversations 2] [--window 8] [--locomo PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from beliefs.records import Turn
from bench.extraction_coverage import conversation_turns, locomo_path
from llm.extractor import AnthropicExtractor
from llm.turn_context import PrecedingTurn, TurnContext
from reading.extract import RulesExtractor
from reading.prepare import clean_turn, extract_claims, gate_outcome

#: Claude Haiku 4.5, dollars per million tokens (published prices).
PRICES = {"input": 1.00, "cache_write": 1.25, "cache_read": 0.10, "output": 5.00}
#: The Message Batches API's discount on every token kind.
BATCH_DISCOUNT = 0.5

_TURN = re.compile(r'<turn(?: n="(\d+)"[^>]*)?>\n(.*?)\n</turn>', re.DOTALL)


@dataclass
class Tally:
    """One mode's totals."""

    turns: int = 0
    sent: int = 0
    requests: int = 0
    input: int = 0
    cache_write: int = 0
    cache_read: int = 0
    output: int = 0

    def dollars(self, discount: float = 1.0) -> float:
        tokens = {"input": self.input, "cache_write": self.cache_write, "cache_read": self.cache_read, "output": self.output}
        return sum(PRICES[kind] * count for kind, count in tokens.items()) / 1e6 * discount

    def per_thousand(self, value: float) -> float:
        return value * 1000 / self.turns


class StoredSessions:
    """The context source a store would be: each session's earlier windows' turns."""

    def __init__(self) -> None:
        self.said: dict[str, list[PrecedingTurn]] = {}

    async def __call__(self, turn: Turn) -> TurnContext:
        return TurnContext(tuple(self.said.get(turn.session_id or "", ())[-6:]))

    def keep(self, turns: list[Turn]) -> None:
        for turn in turns:
            self.said.setdefault(turn.session_id or "", []).append(PrecedingTurn(turn.role, turn.text))


async def rules_answer(body: dict[str, Any]) -> Any:
    """The stand-in model: for each turn of the request, the rules' claims as the tool's memories."""
    from tests.llm.fake_anthropic import Reply  # the local server's reply type

    content = body["messages"][0]["content"]
    rules = RulesExtractor()
    memories = []
    for number, text in _TURN.findall(content):
        (claims,) = await rules.extract([Turn(turn_id="x", tenant_id="t", user_id="u", role="user", text=text)])
        for claim in claims:
            memories.append({
                "text": claim.text, "type": claim.type.value, "topic": claim.topic or "personal",
                "importance": claim.importance, "confidence": claim.confidence, "entity": claim.entity,
                "attribute": claim.attribute, "value": claim.value, "polarity": claim.polarity.value,
                "evidence": claim.evidence or text[:80], "action": "add", "turn": int(number) if number else None,
            })  # fmt: skip
    return Reply.memories(*memories)


async def run_mode(fake: Any, turns: list[Turn], window: int, group: bool) -> tuple[Tally, Counter[str]]:
    """Every turn, window by window, through the gate and the extractor; the server's usage summed."""
    from tests.llm.fake_anthropic import claude_settings

    fake.reset()
    fake.responder = rules_answer
    sessions = StoredSessions()
    settings = claude_settings(fake.url, extractor="anthropic", anthropic_timeout_s=30.0, extraction_group_turns=group)
    extractor = AnthropicExtractor(settings, context=sessions)
    gate: Counter[str] = Counter()
    try:
        for start in range(0, len(turns), window):
            chunk = turns[start : start + window]
            prepared = [clean_turn(turn) for turn in chunk]
            gate.update(gate_outcome(p) for p in prepared)
            await extract_claims(prepared, extractor)
            sessions.keep([p.turn.model_copy(update={"text": p.text}) for p in prepared if p.episode_skip_reason is None])
    finally:
        await extractor.aclose()
    tally = Tally(turns=len(turns), sent=gate["extracted"], requests=fake.request_count)
    for usage in fake.usages:
        tally.input += usage["input_tokens"]
        tally.cache_write += usage["cache_creation_input_tokens"]
        tally.cache_read += usage["cache_read_input_tokens"]
        tally.output += usage["output_tokens"]
    return tally, gate


def report(name: str, tally: Tally) -> str:
    """One table row: per 1,000 turns."""
    k = tally.per_thousand
    cached_share = tally.cache_read / max(1, tally.input + tally.cache_write + tally.cache_read)
    return (
        f"| {name} | {k(tally.requests):.0f} | {k(tally.input):,.0f} | {k(tally.cache_write):,.0f} | "
        f"{k(tally.cache_read):,.0f} | {cached_share:.0%} | {k(tally.output):,.0f} | "
        f"${k(tally.dollars()):.3f} | ${k(tally.dollars(BATCH_DISCOUNT)):.3f} |"
    )


async def measure(path: Path, conversations: int, window: int) -> None:
    from tests.llm.fake_anthropic import FakeAnthropic

    turns = conversation_turns(path, conversations)
    with FakeAnthropic.running() as fake:
        one, gate = await run_mode(fake, turns, window, group=False)
        grouped, _ = await run_mode(fake, turns, window, group=True)
    print(f"{len(turns)} LoCoMo turns ({conversations} conversations), windows of {window} turns")
    print(f"reach the model: {one.sent} ({one.sent / len(turns):.1%}); the others, by reason:")
    for outcome, count in gate.most_common():
        if outcome != "extracted":
            print(f"  {outcome}: {count} ({count / len(turns):.1%})")
    print("\nper 1,000 turns:\n")
    print("| mode | requests | input | cache write | cache read | cached share of input | output | Haiku 4.5 | via Message Batches |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(report("one turn per request", one))
    print(report("grouped per session", grouped))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Requests, tokens and dollars of Claude extraction per 1,000 LoCoMo turns (local test server).")
    parser.add_argument("--conversations", type=int, default=2, help="how many conversations, from the first")
    parser.add_argument("--window", type=int, default=8, help="turns per micro-batch window")
    parser.add_argument("--locomo", type=Path, default=None, help="path of locomo10.json")
    args = parser.parse_args(argv)
    path = locomo_path(args.locomo)
    if path is None:
        return 2
    if args.conversations < 1 or args.window < 1:
        print("error: --conversations and --window must be at least 1", file=sys.stderr)
        return 2
    asyncio.run(measure(path, args.conversations, args.window))
    return 0


if __name__ == "__main__":
    sys.exit(main())
