"""RulesExtractor on what it must survive: secrets in any sentence, and every turn of a real corpus."""

from __future__ import annotations

import json
import random

import pytest

from beliefs.records import Claim, Turn
from bench.locomo import DEFAULT_PATH as LOCOMO
from bench.locomo import locomo_turns
from tests.reading.rules_extraction import EXTRACTOR, claims

# --- secrets --------------------------------------------------------------------------------------

SECRET_VALUES = [
    "sk-proj-abcDEF1234567890abcdefGHIJ",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "Zx9Y" * 9,
    "4111 1111 1111 1111",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "xoxp-99887766554433-abcdefabcdef",
]
PASSWORDS = ["hunter2", "Tr0ub4dor&3", "correcthorse"]
ANY_SECRET_CARRIERS = [
    "I work at Acme and here is the key {}.",
    "I always use dark mode, {}",
    "I live in Oslo. Here is my card {} for the booking.",
    "Never recommend {} again.",
    "I love {}.",
    "I'm a nurse {} and I live in Leeds.",
]
PASSWORD_CARRIERS = [
    "My password is {}.",
    "I work at Acme and my password is {}.",
    "I'm a nurse and my pwd={} works.",
    "My name is Dana and my password: {}",
    "I always use dark mode, password {}",
]


def _secret_sentences(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(PASSWORD_CARRIERS).format(rng.choice(PASSWORDS + SECRET_VALUES))
    return rng.choice(ANY_SECRET_CARRIERS).format(rng.choice(SECRET_VALUES))


def test_no_secret_ever_survives_into_a_claim() -> None:
    rng = random.Random(1234)
    for _ in range(400):
        text = _secret_sentences(rng)
        secrets = [value for value in SECRET_VALUES + PASSWORDS if value in text]
        for claim in claims(text):
            dumped = json.dumps(claim.model_dump(mode="json"))
            assert not any(secret in dumped for secret in secrets), (text, claim)
            assert "REDACTED" not in dumped


def test_no_memory_about_the_password_itself() -> None:
    assert claims("My password is hunter2") == []
    assert claims("My password is [REDACTED:password]") == []
    assert [claim.attribute for claim in claims("I work at Acme. My password is hunter2.")] == ["works_at"]


# --- the LoCoMo corpus ----------------------------------------------------------------------------


def _locomo_turns() -> list[Turn]:
    return [Turn.model_validate(item) for item in locomo_turns(LOCOMO, tenant="bench")]


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo data is not present")
def test_every_locomo_turn() -> None:
    turns = _locomo_turns()
    results = [EXTRACTOR.extract_turn(item) for item in turns]
    with_claims = 0
    for item, found in zip(turns, results, strict=True):
        assert 0 <= len(found) <= 5
        with_claims += bool(found)
        for claim in found:
            Claim.model_validate(claim.model_dump())
            # about the speaker, or about one of their people, teams or decisions, named in the speaker's words
            assert claim.entity == item.speaker or (item.speaker or "") in claim.text, claim
            assert claim.evidence and claim.evidence in item.text
            assert 0 < len(claim.text) <= 400
            assert 0.0 <= claim.confidence <= 1.0 and 0.0 <= claim.importance <= 1.0
            if len(item.text) > 80:
                assert claim.text.strip() != item.text.strip()
    share = with_claims / len(turns)
    assert 0.15 <= share <= 0.6, share


# --- prompt-injection corpora ----------------------------------------------------------------------

DATA = LOCOMO.parent


def _attacks() -> list[str]:
    import csv

    with (DATA / "giskard" / "prompt_injections.csv").open(newline="") as handle:
        texts = [row["prompt"] for row in csv.DictReader(handle)]
    for path in sorted((DATA / "bipia").glob("*_train.json")):
        texts += [text for group in json.loads(path.read_text()).values() for text in group]
    return texts


@pytest.mark.skipif(not (DATA / "giskard").exists(), reason="the injection corpora are not present")
def test_no_injection_becomes_a_trusted_claim() -> None:
    attacks = _attacks()
    assert len(attacks) > 100
    trusted = [
        (text[:60], claim.text) for text in attacks for claim in claims(text) if claim.confidence >= 0.6
    ]
    assert trusted == []
