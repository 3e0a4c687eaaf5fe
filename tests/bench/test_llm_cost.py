"""bench/llm_cost.py on a small conversation of our own, against the local test server."""

from __future__ import annotations

import json
from pathlib import Path

from bench.extraction_coverage import conversation_turns
from bench.llm_cost import Tally, main, run_mode
from tests.llm.fake_anthropic import FakeAnthropic

DIALOGUE = [
    ("Ana", "Hi Ben!"),
    ("Ben", "Hey Ana, how was the move?"),
    ("Ana", "Exhausting, but we live in Porto now and I love it."),
    ("Ben", "Porto! Are you still working at the bakery?"),
    ("Ana", "No, I started as a nurse at the city hospital last month."),
    ("Ben", "thanks for telling me"),
    ("Ana", "I'm allergic to cats, so no visits with Mittens please."),
]


def conversation(path: Path) -> Path:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": who, "dia_id": f"D1:{n}", "text": text} for n, (who, text) in enumerate(DIALOGUE, 1)],
        },
        "qa": [],
    }  # fmt: skip
    path.write_text(json.dumps([sample]))
    return path


async def test_grouping_costs_less_and_the_gate_says_why_turns_were_not_sent(fake: FakeAnthropic, tmp_path: Path) -> None:
    turns = conversation_turns(conversation(tmp_path / "locomo.json"), 1)
    one, gate = await run_mode(fake, turns, window=8, group=False)
    grouped, _ = await run_mode(fake, turns, window=8, group=True)
    assert gate["extracted"] == one.sent == one.requests < len(turns)
    assert set(gate) - {"extracted"}  # greetings and thanks stop at the junk step
    assert grouped.requests == 1 and grouped.output > 0
    assert grouped.dollars() < one.dollars()
    assert Tally(turns=1, input=1_000_000).dollars(0.5) == 0.5


def test_a_missing_file_is_one_line(tmp_path: Path, capsys) -> None:
    assert main(["--locomo", str(tmp_path / "nope.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
