"""Evidence recall@k for conversational QA, and the two raw-turn baselines (pure, no I/O).

A question's score at k is the share of its evidence turns found among the citations of the first k
retrieved items; a question without evidence is not scored. Per-category and overall figures are
means over questions. The baselines rank the raw turns themselves: Okapi BM25 and dense cosine.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

KS = (5, 10, 25)

_WORD = re.compile(r"[^\W_]+")
_SEPARATOR = re.compile(r"[;\s,]+")
_LEADING_ZEROS = re.compile(r"(?<![0-9])0+(?=[0-9])")
_STRAY_COLON = re.compile(r"^([A-Za-z]+):(?=[0-9]+:)")


def normalise_turn_id(turn_id: str) -> str:
    """`D01:003`, `D:1:3` and `D1:3` are the same turn: leading zeros of every number go, a stray
    colon after the letter prefix goes, case is kept."""
    return _LEADING_ZEROS.sub("", _STRAY_COLON.sub(r"\1", turn_id.strip()))


def normalise_evidence(evidence: Iterable[str]) -> frozenset[str]:
    """Evidence entries may pack several ids (`"D1:3; D2:5"`, `"D8:6 D9:17"`): one id each."""
    ids: set[str] = set()
    for entry in evidence:
        parts = (normalise_turn_id(part) for part in _SEPARATOR.split(entry))
        ids.update(part for part in parts if any(c.isdigit() for c in part))  # a bare "D" names nothing
    return frozenset(ids)


def local_turn_id(citation: str) -> str:
    """Citations are tenant-unique turn ids (`conv-1:D1:3`); evidence names the turn inside its
    conversation (`D1:3`): the part after the first colon when there are two or more."""
    return normalise_turn_id(citation.split(":", 1)[1] if citation.count(":") >= 2 else citation)


def recall_at(cited: Sequence[Iterable[str]], evidence: frozenset[str], k: int) -> float:
    """Share of `evidence` among the turn ids cited by the first `k` items (ids already local)."""
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    found = {turn for item in cited[:k] for turn in item}
    return len(evidence & found) / len(evidence)


def turn_recall_at(cited: Sequence[Iterable[str]], evidence: frozenset[str], k: int) -> float:
    """Share of `evidence` among the first `k` distinct turns cited, items taken in rank order: the
    figure to compare when items carry several turns each (neighbouring turns)."""
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    turns = list(dict.fromkeys(turn for item in cited for turn in item))[:k]
    return len(evidence & set(turns)) / len(evidence)


@dataclass
class Tally:
    """Running means of recall@k, overall and per category."""

    ks: tuple[int, ...] = KS
    sums: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    by_turns: bool = False  # k counts cited turns instead of items

    def add(self, category: str, cited: Sequence[Iterable[str]], evidence: frozenset[str]) -> None:
        measure = turn_recall_at if self.by_turns else recall_at
        for key in ("overall", category):
            self.sums[key].append(tuple(measure(cited, evidence, k) for k in self.ks))

    def means(self) -> dict[str, dict[str, float]]:
        """{'overall' | category: {'n': count, 'R@5': percent, ...}}."""
        out: dict[str, dict[str, float]] = {}
        for key, rows in self.sums.items():
            columns = list(zip(*rows, strict=True))
            out[key] = {"n": len(rows)} | {f"R@{k}": 100 * sum(c) / len(c) for k, c in zip(self.ks, columns, strict=True)}
        return out


def tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if len(w) > 1]


class Bm25:
    """Okapi BM25 (k1 1.5, b 0.75, non-negative idf) over a fixed list of documents."""

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self._docs = [Counter(tokens(d)) for d in documents]
        self._lengths = [sum(c.values()) for c in self._docs]
        self._avg = (sum(self._lengths) / len(self._docs)) if self._docs else 0.0
        frequency = Counter(term for doc in self._docs for term in doc)
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in frequency.items()}
        self._k1, self._b = k1, b

    def scores(self, query: str) -> list[float]:
        terms = [t for t in tokens(query) if t in self._idf]
        out = []
        for doc, length in zip(self._docs, self._lengths, strict=True):
            norm = self._k1 * (1 - self._b + self._b * length / self._avg) if self._avg else self._k1
            out.append(sum(self._idf[t] * doc[t] * (self._k1 + 1) / (doc[t] + norm) for t in terms if t in doc))
        return out

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the `k` best documents, best first; ties by position."""
        scores = self.scores(query)
        return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]


def dense_top(turn_vectors: np.ndarray, query_vector: np.ndarray, k: int) -> list[int]:
    """Indices of the `k` turns of highest cosine (the vectors are unit length), best first."""
    scores = turn_vectors @ query_vector
    order = np.argsort(-scores, kind="stable")
    return [int(i) for i in order[:k]]


def format_table(results: Mapping[str, Mapping[str, Mapping[str, float]]], categories: Mapping[str, str]) -> str:
    """A markdown table: one row per retriever, overall then each category at every k."""
    lines = ["| retriever | scope | n | R@5 | R@10 | R@25 |", "|---|---|---|---|---|---|"]
    for name, means in results.items():
        for key in ["overall", *sorted(k for k in means if k != "overall")]:
            row = means[key]
            label = key if key == "overall" else f"{key} {categories.get(key, '')}".strip()
            figures = " | ".join(f"{row[f'R@{k}']:.1f}" for k in KS)
            lines.append(f"| {name} | {label} | {int(row['n'])} | {figures} |")
    return "\n".join(lines)
