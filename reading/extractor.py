"""The extractor contract: turns in, claims out, one list per turn in the same order.

Implementations (the offline rules, an LLM) are interchangeable behind it; the agent never
knows which one runs. The write path cleans each turn once (`reading.prepare.clean_turn`: injected
blocks stripped, secrets redacted, junk turns dropped) and hands extractors only that text, so an
extractor neither repeats those steps nor ever sees a secret. The other speakers' ordinary turns
(an assistant's question) are passed along in order as context: an extractor returns [] for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from beliefs.records import Claim, Turn


@runtime_checkable
class Extractor(Protocol):
    """Reads what cleaned turns assert. Returns one list per turn (same order), 0-5 claims each."""

    name: str

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]: ...
