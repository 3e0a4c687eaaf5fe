"""LoCoMo evidence at equal prompt size, and the two BM25 baselines filled to that size (no I/O).

For a budget of B tokens a question scores the share of its evidence turns cited anywhere in an
answer of at most B tokens, the tokens estimated as the sidecar estimates them
(`sidecar.recall.budget.estimate_tokens` of each text). The baselines rank documents with BM25
(`bm25s`, k1 1.5, b 0.75, the words of `bench.locomo_score.tokens`) and fill the budget in rank
order as the sidecar fills an answer: a document that does not fit is skipped, never cut, and a
smaller one after it may still fit. Documents are either the raw turns or ±1-turn windows (a turn
with the turns before and after it in its session); a turn already in the answer costs nothing
again, and a window bringing no new turn is passed over.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import bm25s
import numpy as np

from bench.locomo_score import tokens
from sidecar.recall.budget import Filler, estimate_tokens


def evidence_share(cited: Iterable[str], evidence: frozenset[str]) -> float:
    """Share of `evidence` among the turn ids `cited` (ids already local, e.g. `D1:3`)."""
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    return len(evidence & set(cited)) / len(evidence)


def turn_windows(sessions: Sequence[str], width: int = 1) -> list[list[int]]:
    """For each turn (in order said), the indices of the turns within `width` of it in its session."""
    out = []
    for i, session in enumerate(sessions):
        lo, hi = max(0, i - width), min(len(sessions), i + width + 1)
        out.append([j for j in range(lo, hi) if sessions[j] == session])
    return out


class BudgetBaseline:
    """BM25 over documents made of turns; `fill` answers the turns of a budget-sized answer."""

    def __init__(self, texts: Sequence[str], documents: Sequence[Sequence[int]]) -> None:
        if not documents:
            raise ValueError("a baseline needs at least one document")
        self._documents = [list(d) for d in documents]
        self._costs = [estimate_tokens(t) for t in texts]
        corpus = [[w for i in d for w in tokens(texts[i])] or [""] for d in self._documents]
        self._bm25 = bm25s.BM25(k1=1.5, b=0.75)
        self._bm25.index(corpus, show_progress=False)

    def ranking(self, query: str) -> list[int]:
        """Document indices, best first; ties (and documents sharing no word) by position."""
        words = [w for w in tokens(query) if w in self._bm25.vocab_dict]
        scores = self._bm25.get_scores(words) if words else np.zeros(len(self._documents))
        return sorted(range(len(self._documents)), key=lambda i: (-float(scores[i]), i))

    def fill(self, query: str, budget_tokens: int) -> list[int]:
        """The turn indices of the answer of at most `budget_tokens`, in the order taken."""
        filler: Filler[list[int]] = Filler(budget_tokens, limit=len(self._documents))
        taken: dict[int, None] = {}
        for index in self.ranking(query):
            new = [t for t in self._documents[index] if t not in taken]
            if new and filler.offer(new, sum(self._costs[t] for t in new)):
                taken |= dict.fromkeys(new)
            if filler.used >= budget_tokens:
                break
        return list(taken)


@dataclass
class BudgetTally:
    """Running means of the evidence share per budget, overall and per category."""

    budgets: tuple[int, ...]
    shares: dict[str, dict[int, list[float]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))

    def add(self, category: str, budget: int, share: float) -> None:
        for key in ("overall", category):
            self.shares[key][budget].append(share)

    def means(self) -> dict[str, dict[str, float]]:
        """{'overall' | category: {'n': questions, '200': percent, ...}}."""
        out: dict[str, dict[str, float]] = {}
        for key, by_budget in self.shares.items():
            n = len(by_budget[self.budgets[0]])
            out[key] = {"n": n} | {str(b): 100 * sum(by_budget[b]) / len(by_budget[b]) for b in self.budgets}
        return out


def format_budget_table(
    results: Mapping[str, Mapping[str, Mapping[str, float]]], budgets: Sequence[int], categories: Mapping[str, str]
) -> str:
    """A markdown table: one row per retriever and scope, one column per budget."""
    head = " | ".join(f"{b} tokens" for b in budgets)
    lines = [f"| retriever | scope | n | {head} |", "|---|---|---|" + "---|" * len(budgets)]
    for name, means in results.items():
        for key in ["overall", *sorted(k for k in means if k != "overall")]:
            row = means[key]
            label = key if key == "overall" else f"{key} {categories.get(key, '')}".strip()
            figures = " | ".join(f"{row[str(b)]:.1f}" for b in budgets)
            lines.append(f"| {name} | {label} | {int(row['n'])} | {figures} |")
    return "\n".join(lines)


def parse_budgets(text: str) -> tuple[int, ...]:
    """'200,400,800' → (200, 400, 800); a clear error for anything else."""
    try:
        budgets = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"--budgets takes token counts separated by commas, not {text!r}") from None
    if not budgets or any(b < 1 for b in budgets):
        raise ValueError(f"--budgets takes positive token counts, not {text!r}")
    return tuple(sorted(set(budgets)))
