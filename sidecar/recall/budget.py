"""Token budget and prompt order (pure).

Tokens are estimated, not counted: ceil(characters / 4), the usual English average for BPE
tokenizers. It is deterministic, needs no tokenizer, and errs a little high on short words. A
memory is never cut: one that does not fit is skipped and the next, smaller one may still fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4), at least 1 for any memory."""
    return max(1, math.ceil(len(text) / CHARS_PER_TOKEN))


@dataclass(frozen=True)
class Trimmed(Generic[T]):
    kept: list[T] = field(default_factory=list)
    over_budget: list[T] = field(default_factory=list)
    over_limit: list[T] = field(default_factory=list)
    tokens_used: int = 0


class Filler(Generic[T]):
    """Items offered in priority order, kept while they fit: the state of one `trim`."""

    def __init__(self, budget_tokens: int, limit: int) -> None:
        self.budget_tokens, self.limit = budget_tokens, limit
        self.kept: list[T] = []
        self.over_budget: list[T] = []
        self.over_limit: list[T] = []
        self.used = 0

    def fits(self, tokens: int) -> bool:
        """Whether an item of `tokens` would be kept now (nothing recorded)."""
        return len(self.kept) < self.limit and self.used + tokens <= self.budget_tokens

    def offer(self, item: T, tokens: int) -> bool:
        """Keep `item` if the limit and the budget allow; skip (never truncate) it otherwise."""
        if len(self.kept) >= self.limit:
            self.over_limit.append(item)
            return False
        if self.used + tokens > self.budget_tokens:
            self.over_budget.append(item)
            return False
        self.kept.append(item)
        self.used += tokens
        return True

    def trimmed(self) -> Trimmed[T]:
        return Trimmed(self.kept, self.over_budget, self.over_limit, self.used)


def trim(items: Sequence[T], cost: Callable[[T], int], budget_tokens: int, limit: int) -> Trimmed[T]:
    """Take `items` in priority order while they fit; skip (never truncate) one that does not."""
    filler: Filler[T] = Filler(budget_tokens, limit)
    for item in items:
        filler.offer(item, cost(item))
    return filler.trimmed()


def edge_order(items: Sequence[T]) -> list[T]:
    """Most important first, second most important last, the least important in the middle.

    Models attend best to the start and the end of a block (Lost in the Middle), so items in
    priority order are dealt alternately to the front and to the back: 1 3 5 … 6 4 2.
    """
    front = list(items[0::2])
    back = list(items[1::2])
    return front + back[::-1]


def edges_last(items: Sequence[T]) -> list[T]:
    """`edge_order` read backwards: the most important last, the second first, 2 4 6 … 5 3 1. For a
    block that follows a head of its own (`prompt_order.prompt_order`), its best item takes the block's
    end, the strongest position after the beginning."""
    return edge_order(items)[::-1]
