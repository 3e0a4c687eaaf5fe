"""Score an extractor on our labelled utterances (`tests/data/extraction_cases.jsonl`).

Each case is one turn with its label: `store` (a trusted memory), `skip` (nothing), or
`low_confidence` (nothing above 0.3: hypotheticals and rhetorical framings; storing nothing is as
good), and where one exists the expected claims (type, entity/attribute/value, polarity), details
the text must keep, steps it must keep in order, whether it must expire, and `topics`: the topics
(seed 000's namespaces) every stored claim of the turn may carry. `role` is the
speaker's role (default `user`); `context` is the preceding turn, for a reader: the rules read the
turn alone, as the pipeline does.

    .venv/bin/python -m bench.extraction_eval [--split dev|heldout|all] [--extractor rules|anthropic]

`--extractor anthropic` sends each case, cleaned as the write path cleans it and with its
`context` as the preceding turn (marked with its role), to Claude through the real API: it needs
`ANTHROPIC_API_KEY` (tests never set one, so nothing of the test suite reaches the API).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from beliefs.records import Claim, Role, Turn
from reading.extract import RulesExtractor

CASES = Path(__file__).resolve().parents[1] / "tests" / "data" / "extraction_cases.jsonl"
#: The turns' time: a Monday, so relative dates in the set resolve to known days.
TS = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
#: At most this confidence for anything said hypothetically or rhetorically.
LOW_CONFIDENCE = 0.3


def load_cases(split: str = "all", path: Path = CASES) -> list[dict]:
    """The labelled cases of one split (`dev`, `heldout`) or all of them."""
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [case for case in cases if split == "all" or case["split"] == split]


def case_turn(case: dict) -> Turn:
    return Turn(turn_id=case["id"], tenant_id="eval", user_id="u-eval", role=Role(case.get("role", "user")),
                text=case["text"], ts=TS)  # fmt: skip


def predicted_label(claims: list[Claim]) -> str:
    if not claims:
        return "skip"
    return "store" if max(claim.confidence for claim in claims) > LOW_CONFIDENCE else "low_confidence"


def _norm(value: object) -> str:
    return " ".join(str(value).casefold().split())


def _matches(expected: dict, claim: Claim, keys: Iterable[str]) -> bool:
    got = {"type": claim.type.value, "entity": claim.entity, "attribute": claim.attribute, "value": claim.value,
           "polarity": getattr(claim, "polarity", "positive")}  # fmt: skip
    return all(_norm(got[key]) == _norm(expected[key]) for key in keys if key in expected)


def _in_order(text: str, steps: list[str]) -> bool:
    at = 0
    lower = text.casefold()
    for step in steps:
        found = lower.find(step.casefold(), at)
        if found < 0:
            return False
        at = found + len(step)
    return True


@dataclass
class Score:
    """Counts per check; `failures` lists (case id, check, what was extracted)."""

    label: list[bool] = field(default_factory=list)
    type: list[bool] = field(default_factory=list)
    slot: list[bool] = field(default_factory=list)
    details: list[bool] = field(default_factory=list)
    expires: list[bool] = field(default_factory=list)
    low_capped: list[bool] = field(default_factory=list)
    topic: list[bool] = field(default_factory=list)
    secrets_stored: int = 0
    confusion: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    failures: list[tuple[str, str, str]] = field(default_factory=list)

    @staticmethod
    def share(checks: list[bool]) -> float:
        return sum(checks) / len(checks) if checks else 1.0

    def summary(self) -> dict[str, float | int]:
        """Each check's share; `topic` only where the split carries topic labels (dev)."""
        shares = {"store/skip": self.share(self.label), "type": self.share(self.type),
                  "entity/attribute/value": self.share(self.slot), "details": self.share(self.details),
                  "expires": self.share(self.expires), "low confidence capped": self.share(self.low_capped)}  # fmt: skip
        if self.topic:
            shares["topic"] = self.share(self.topic)
        return {**shares, "secrets stored": self.secrets_stored, "cases": len(self.label)}

    def report(self) -> str:
        lines = [f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}"
                 for key, value in self.summary().items()]  # fmt: skip
        lines.append("confusion (category: label -> predicted):")
        for category in sorted(self.confusion):
            lines.append(
                f"  {category}: " + ", ".join(f"{k} {n}" for k, n in sorted(self.confusion[category].items()))
            )
        lines.extend(f"  FAIL {case} [{check}] {got}" for case, check, got in self.failures)
        return "\n".join(lines)


def _describe(claims: list[Claim]) -> str:
    return "; ".join(f"{c.type.value} {c.entity}/{c.attribute}/{c.value}/{getattr(c, 'polarity', '+')} "
                     f"conf={c.confidence} exp={bool(c.expires_at)} topic={c.topic} {c.text!r}" for c in claims) or "nothing"  # fmt: skip


def score_case(case: dict, claims: list[Claim], score: Score) -> None:
    """Add one case's checks to `score`."""
    expected, predicted = case["label"], predicted_label(claims)
    right = predicted == expected or (expected == "low_confidence" and predicted == "skip")
    score.label.append(right)
    score.confusion[case["category"]][f"{expected}->{predicted}"] += 1
    failed: list[str] = [] if right else ["label"]
    if expected == "low_confidence":
        capped = all(claim.confidence <= LOW_CONFIDENCE for claim in claims)
        score.low_capped.append(capped)
        failed += [] if capped else ["low confidence"]
    if case.get("secret") and any(case["secret"] in json.dumps(c.model_dump(mode="json")) for c in claims):
        score.secrets_stored += 1
        failed.append("secret")
    if expected == "store" and right:
        for want in case.get("claims", []):
            if "type" in want:
                ok = any(_matches(want, claim, ("type", "attribute")) for claim in claims)
                score.type.append(ok)
                failed += [] if ok else ["type"]
            if "attribute" in want:
                ok = any(
                    _matches(want, claim, ("entity", "attribute", "value", "polarity")) for claim in claims
                )
                score.slot.append(ok)
                failed += [] if ok else ["slot"]
        texts = " | ".join(claim.text for claim in claims)
        if "text_has" in case or "text_order" in case:
            ok = all(word.casefold() in texts.casefold() for word in case.get("text_has", []))
            ok = (
                ok and any(_in_order(claim.text, case["text_order"]) for claim in claims)
                if "text_order" in case
                else ok
            )
            score.details.append(ok)
            failed += [] if ok else ["details"]
        if case.get("expires"):
            ok = any(claim.expires_at is not None for claim in claims)
            score.expires.append(ok)
            failed += [] if ok else ["expires"]
        if "topics" in case:
            ok = all(claim.topic in case["topics"] for claim in claims)
            score.topic.append(ok)
            failed += [] if ok else ["topic"]
    for check in failed:
        score.failures.append((case["id"], check, f"{case['text']!r} -> {_describe(claims)}"))


def score_rules(split: str = "dev") -> Score:
    """The rules extractor on one split of the labelled set."""
    extractor = RulesExtractor()
    score = Score()
    for case in load_cases(split):
        score_case(case, extractor.extract_turn(case_turn(case)), score)
    return score


def _preceding(case: dict) -> tuple:
    """The case's `context` ("assistant: ...") as the preceding turn of its request."""
    from llm.turn_context import PrecedingTurn

    role, _, text = str(case.get("context") or "").partition(": ")
    if not text or role not in {r.value for r in Role}:
        return ()
    return (PrecedingTurn(Role(role), text),)


async def score_anthropic(split: str = "dev") -> Score:
    """Claude (settings from the environment: the key, the model) on one split, through the real API."""
    from llm.extractor import AnthropicExtractor
    from llm.turn_context import TurnContext
    from reading.prepare import clean_turn, extract_claims
    from streams.settings import Settings

    cases = {case["id"]: case for case in load_cases(split)}

    async def context(turn: Turn) -> TurnContext:
        return TurnContext(_preceding(cases[turn.turn_id]))

    extractor = AnthropicExtractor(Settings(extractor="anthropic"), context=context, group=False)
    score = Score()
    try:
        for case in cases.values():
            (claims,) = await extract_claims([clean_turn(case_turn(case))], extractor)
            score_case(case, claims, score)
    finally:
        await extractor.aclose()
    print(f"claude: {extractor.stats.as_dict()}", file=sys.stderr)
    return score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score an extractor on the labelled utterances.")
    parser.add_argument(
        "--split", choices=("dev", "heldout", "all"), default="dev", help="which part of the set"
    )
    parser.add_argument(
        "--extractor", choices=("rules", "anthropic"), default="rules",
        help="anthropic: Claude through the real API (needs ANTHROPIC_API_KEY)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.extractor == "rules":
        print(score_rules(args.split).report())
        return 0
    import asyncio

    from beliefs.errors import ConfigurationError
    from llm.client import require_api_key
    from streams.settings import Settings

    try:
        require_api_key(Settings())
    except ConfigurationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(asyncio.run(score_anthropic(args.split)).report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
