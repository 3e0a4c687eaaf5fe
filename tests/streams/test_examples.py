"""The example turns file the README and `publish --help` point to is made of valid turns."""

import json
from pathlib import Path

from agents.extractor_choice import make_extractor
from beliefs.records import Role, Turn
from streams.settings import Settings

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "turns.jsonl"


def test_every_line_of_the_example_is_a_valid_turn_with_a_unique_id():
    turns = [Turn.model_validate(json.loads(line)) for line in EXAMPLE.read_text().splitlines()]
    assert len(turns) >= 5
    assert len({turn.turn_id for turn in turns}) == len(turns)
    assert {Role.USER, Role.ASSISTANT} <= {turn.role for turn in turns}


async def test_the_offline_extractor_learns_from_the_examples_user_turns():
    extractor = make_extractor(Settings())
    turns = [Turn.model_validate(json.loads(line)) for line in EXAMPLE.read_text().splitlines()]
    claims = await extractor.extract([turn for turn in turns if turn.role is Role.USER])
    attributes = {claim.attribute for per_turn in claims for claim in per_turn}
    assert sum(1 for per_turn in claims if per_turn) >= 3, claims
    assert "allergy" in attributes
