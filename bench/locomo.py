"""LoCoMo conversations as beliefstream turns, read from ../shared/data at run time (never copied)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10.json"


def _session_start(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def locomo_turns(path: Path = DEFAULT_PATH, tenant: str = "locomo") -> Iterator[dict]:
    """Every dialogue turn as a contract §1 turn: one user per conversation, the speaker named."""
    for sample in json.loads(path.read_text()):
        conversation = sample["conversation"]
        user = sample["sample_id"]
        sessions = sorted(
            (int(key.split("_")[1]), key) for key in conversation if key.startswith("session_") and key.count("_") == 1
        )
        for number, key in sessions:
            start = _session_start(conversation[f"{key}_date_time"])
            for index, dialogue in enumerate(conversation[key]):
                yield {
                    "turn_id": f"{user}:{dialogue['dia_id']}",
                    "tenant_id": tenant,
                    "user_id": user,
                    "agent_id": None,
                    "session_id": f"{user}:session-{number}",
                    "role": "user",
                    "text": dialogue["text"],
                    "ts": (start + timedelta(seconds=30 * index)).isoformat(),
                    "metadata": {"speaker": dialogue["speaker"]},
                }
