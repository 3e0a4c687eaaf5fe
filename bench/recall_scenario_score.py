"""Judging one recall answer against a scenario's expectations, and the figures over many (pure).

Everything is judged on what the assistant sees: the returned items' text and the labels they carry.
Whether an item is *presented as current* is decided in one place, `presented_as_current`, so the
judgment follows the recall contract as it grows new labels.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.recall_scenario_data import HARM_KINDS, Fact, Recall, Scenario
from sidecar.recall.budget import estimate_tokens

#: Labels (a boolean field, or a value of `labels` / `label` / `state` / `status`) by which an item says
#: it is not the current truth: recalled as history, dated, beside what replaced it.
NOT_CURRENT_LABELS = frozenset({
    "superseded", "possibly_superseded", "contested", "retracted", "revoked", "expired", "stale",
    "outdated", "not_current", "hypothetical",
})  # fmt: skip

#: A claim recalled at this confidence or lower is offered as a doubtful one, not as a fact.
DOUBTFUL_CONFIDENCE = 0.3

_NOT_WORD = re.compile(r"[\W_]+")


def presented_as_current(item: Mapping[str, Any]) -> bool:
    """Whether the assistant would take this item as a current, trusted fact about the user.

    Not when the item labels itself not current (`superseded: true`, or a label of
    `NOT_CURRENT_LABELS`), when it is not the user's own trusted voice (an assistant or tool quote,
    `trust` other than trusted), or when it comes at a doubtful confidence (≤ 0.3). Anything else
    returned is presented as current, whatever its rank.
    """
    if any(item.get(flag) is True for flag in NOT_CURRENT_LABELS):
        return False
    if _labels(item) & NOT_CURRENT_LABELS:
        return False
    if item.get("trust", "trusted") != "trusted":
        return False
    if (item.get("role") or item.get("source_role") or "user") != "user":
        return False
    return float(item.get("confidence", 1.0)) > DOUBTFUL_CONFIDENCE


def _labels(item: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()
    for name in ("labels", "label", "state", "status"):
        value = item.get(name)
        if isinstance(value, str):
            found.add(value.lower())
        elif isinstance(value, Mapping):
            found.update(str(k).lower() for k, v in value.items() if v)
        elif isinstance(value, Iterable):
            found.update(str(v).lower() for v in value)
    return found


def normalised_text(text: str) -> str:
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def duplicate_tokens(items: Sequence[Mapping[str, Any]]) -> int:
    """Tokens spent saying something twice: an episode quoting a turn a returned belief was learnt
    from (the quote's tokens), and any item whose normalised text an earlier item already had."""
    belief_turns = {
        turn for item in items if item.get("type") != "episode" for turn in item.get("citations", [])
    }
    seen: set[str] = set()
    total = 0
    for item in items:
        text = normalised_text(item.get("text", ""))
        citations = item.get("citations") or []
        quotes_a_belief = item.get("type") == "episode" and bool(citations) and citations[0] in belief_turns
        if quotes_a_belief or text in seen:
            total += estimate_tokens(item.get("text", ""))
        seen.add(text)
    return total


@dataclass(frozen=True)
class Harm:
    fact: str
    kind: str
    item_text: str


@dataclass(frozen=True)
class Verdict:
    """One recall judged: which `must` facts were found, which `must_not` were presented as current."""

    scenario: str
    category: str
    split: str
    query: str
    needs_memory: bool
    found: tuple[bool, ...]
    missing: tuple[str, ...]
    harms: tuple[Harm, ...]
    items: int
    tokens: int
    duplicate_tokens: int
    max_items: int | None = None  # the recall's: a right answer has at most this many items

    @property
    def too_many(self) -> bool:
        """More items than the recall's `max_items` (one fact said twice, or beside what does not bear on it)."""
        return self.max_items is not None and self.items > self.max_items

    @property
    def passed(self) -> bool:
        return not self.missing and not self.harms and (self.needs_memory or self.items == 0) and not self.too_many


def judge(scenario: Scenario, recall: Recall, answer: Mapping[str, Any]) -> Verdict:
    items = list(answer.get("memories", []))
    current = [item for item in items if presented_as_current(item)]
    found = tuple(any(fact.found_in(item.get("text", "")) for item in current) for fact in recall.must)
    harms = tuple(_harms(recall.must_not, current))
    return Verdict(
        scenario=scenario.id,
        category=scenario.category,
        split=scenario.split,
        query=recall.query,
        needs_memory=recall.needs_memory,
        found=found,
        missing=tuple(f.fact for f, ok in zip(recall.must, found, strict=True) if not ok),
        harms=harms,
        items=len(items),
        tokens=int(answer.get("tokens_used", 0)),
        duplicate_tokens=duplicate_tokens(items),
        max_items=recall.max_items,
    )


def _harms(facts: Iterable[Fact], current: Sequence[Mapping[str, Any]]) -> Iterable[Harm]:
    for fact in facts:
        hit = next((item for item in current if fact.found_in(item.get("text", ""))), None)
        if hit is not None:
            yield Harm(fact.fact, str(fact.harm), hit.get("text", ""))


@dataclass
class Tally:
    """The figures of a group of recalls (a split, a category of a split)."""

    scenarios: set[str] = field(default_factory=set)
    recalls: int = 0
    passed: int = 0
    must: int = 0
    must_found: int = 0
    harmful_recalls: int = 0
    harms: Counter = field(default_factory=Counter)
    no_memory_recalls: int = 0
    no_memory_items: int = 0
    items: int = 0
    tokens: int = 0
    duplicate_tokens: int = 0

    def add(self, verdict: Verdict) -> None:
        self.scenarios.add(verdict.scenario)
        self.recalls += 1
        self.passed += verdict.passed
        self.must += len(verdict.found)
        self.must_found += sum(verdict.found)
        self.harmful_recalls += bool(verdict.harms)
        self.harms.update(h.kind for h in verdict.harms)
        if not verdict.needs_memory:
            self.no_memory_recalls += 1
            self.no_memory_items += verdict.items
        self.items += verdict.items
        self.tokens += verdict.tokens
        self.duplicate_tokens += verdict.duplicate_tokens

    def figures(self) -> dict[str, Any]:
        recalls = max(self.recalls, 1)
        return {
            "scenarios": len(self.scenarios),
            "recalls": self.recalls,
            "passed": self.passed,
            "current_truth_present": _share(self.must_found, self.must),
            "must": self.must,
            "must_found": self.must_found,
            "harmful_recall_rate": _share(self.harmful_recalls, self.recalls),
            "harmful_recalls": self.harmful_recalls,
            "harms_by_kind": {kind: self.harms[kind] for kind in HARM_KINDS if self.harms[kind]},
            "no_memory_recalls": self.no_memory_recalls,
            "no_memory_mean_items": (
                round(self.no_memory_items / self.no_memory_recalls, 2) if self.no_memory_recalls else None
            ),
            "tokens": self.tokens,
            "duplicate_tokens": self.duplicate_tokens,
            "duplicate_token_share": _share(self.duplicate_tokens, self.tokens),
            "mean_items": round(self.items / recalls, 2),
            "mean_tokens": round(self.tokens / recalls, 1),
        }


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def tally(verdicts: Iterable[Verdict]) -> dict[str, dict[str, Tally]]:
    """split → category (and "all") → Tally."""
    out: dict[str, dict[str, Tally]] = {}
    for verdict in verdicts:
        groups = out.setdefault(verdict.split, {})
        for key in (verdict.category, "all"):
            groups.setdefault(key, Tally()).add(verdict)
    return out
