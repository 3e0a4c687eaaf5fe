"""How much of a real conversation the rules extractor keeps: LoCoMo turns through the write path's
text steps (strip, redact, junk) and the extractor, counted by outcome.

A turn ends `skipped` with its junk reason, `no_memory_extracted` (readable, nothing recognised), or
`done` with memories. Reads ../shared/data/locomo10.json at run time (never copied).

    .venv/bin/python -m bench.extraction_coverage [--conversations 2] [--locomo PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from pathlib import Path

from beliefs.records import Turn
from bench.locomo import DEFAULT_PATH, locomo_turns
from reading.extract import RulesExtractor
from reading.prepare import clean_turn, extract_claims

#: Where the data sits when the checkout is a worktree next to ../shared rather than inside it.
FALLBACK_PATH = Path("/work/shared/data/locomo10.json")


def locomo_path(given: Path | None) -> Path | None:
    """The LoCoMo file to read (`--locomo`, else the shared data); None, said in one line, when absent."""
    path = given or (DEFAULT_PATH if DEFAULT_PATH.exists() else FALLBACK_PATH)
    if not path.exists():
        print(f"error: LoCoMo data not found at {path}; pass --locomo PATH", file=sys.stderr)
        return None
    return path


def conversation_turns(path: Path, conversations: int) -> list[Turn]:
    """The user turns of the first `conversations` conversations, in order."""
    turns = [Turn.model_validate(item) for item in locomo_turns(path, tenant="coverage")]
    users = list(dict.fromkeys(turn.user_id for turn in turns))[:conversations]
    return [turn for turn in turns if turn.user_id in users]


async def coverage(turns: list[Turn]) -> tuple[Counter[str], int, float]:
    """Outcome counts, the number of claims, and the extractor's CPU seconds (clean_turn excluded)."""
    prepared = [clean_turn(turn) for turn in turns]
    started = time.process_time()
    claims = await extract_claims(prepared, RulesExtractor())
    cpu = time.process_time() - started
    outcomes: Counter[str] = Counter()
    for item, found in zip(prepared, claims, strict=True):
        outcomes[item.skip_reason or ("done" if found else "no_memory_extracted")] += 1
    return outcomes, sum(len(found) for found in claims), cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Share of LoCoMo user turns that yield memories with the rules."
    )
    parser.add_argument("--conversations", type=int, default=2, help="how many conversations, from the first")
    parser.add_argument("--locomo", type=Path, default=None, help="path of locomo10.json")
    args = parser.parse_args(argv)
    path = locomo_path(args.locomo)
    if path is None:
        return 2
    turns = conversation_turns(path, args.conversations)
    outcomes, claims, cpu = asyncio.run(coverage(turns))
    print(f"{len(turns)} user turns, {claims} memories ({claims / len(turns):.3f} per turn), "
          f"extraction {cpu * 1000 / len(turns):.3f} ms CPU a turn")  # fmt: skip
    for outcome, count in outcomes.most_common():
        print(f"  {outcome}: {count} ({count / len(turns):.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
