"""The extractor contract: turns in, claims out, one list per turn in the same order.

Implementations (the offline rules, an LLM) are interchangeable behind it; the agent never
knows which one runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from streams.records import Claim, Turn


@runtime_checkable
class Extractor(Protocol):
    """Reads what turns assert. Returns one list per turn (same order), 0-5 claims each."""

    name: str

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]: ...
