"""Helpers of the rules-extractor tests: one extractor, a turn builder and claim lookups."""

from __future__ import annotations

from datetime import UTC, datetime

from beliefs.records import Claim, Role, Turn
from reading.extract import RulesExtractor

TS = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday
EXTRACTOR = RulesExtractor()


def turn(text: str, role: Role = Role.USER, speaker: str | None = None, ts: datetime = TS) -> Turn:
    metadata = {"speaker": speaker} if speaker else {}
    return Turn(
        turn_id="t-1", tenant_id="acme", user_id="u-1", role=role, text=text, ts=ts, metadata=metadata
    )


def claims(text: str, **kwargs: object) -> list[Claim]:
    return EXTRACTOR.extract_turn(turn(text, **kwargs))  # type: ignore[arg-type]


def only(text: str, **kwargs: object) -> Claim:
    found = claims(text, **kwargs)
    assert len(found) == 1, [claim.text for claim in found]
    return found[0]


def by_attribute(text: str, attribute: str) -> Claim:
    found = [claim for claim in claims(text) if claim.attribute == attribute]
    assert found, [(claim.attribute, claim.text) for claim in claims(text)]
    return found[0]
