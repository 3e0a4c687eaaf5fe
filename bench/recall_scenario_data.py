"""The recall scenarios from raw turns: their schema, loading with one-line errors, and the turns to retain.

A scenario is a short conversation (sessions of raw turns, dated) and recalls, each with what must and
must not come back. The files live in `tests/data/recall_scenarios/` (`dev.jsonl`, `heldout.jsonl`, and
`heldout_new_<name>.jsonl`: the held-out third of scenarios added later, part of the held-out split);
the schema is documented in the README.md there. Pure: no I/O but reading the files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "tests" / "data" / "recall_scenarios"
SPLITS = ("dev", "heldout")

CATEGORIES = (
    "update", "retraction", "correction", "employer",
    "hypothetical", "rhetorical", "sarcastic", "third_party", "pasted", "quoted", "assistant_said",
    "live_intent", "constraint_domain", "sensitive", "safety", "scope", "stale", "no_memory", "one_item", "stable",
)  # fmt: skip

#: What an item wrongly presented as current does to the answer.
HARM_KINDS = (
    "stale", "superseded", "hypothetical", "untrusted", "out_of_domain", "out_of_scope",
    "live_intent_contradicted", "unrelated", "sensitive",
)  # fmt: skip

ROLES = ("user", "assistant", "system", "tool")

#: Seconds between two turns of a session that give no `ts` of their own.
TURN_SPACING_S = 45

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,80}$")
_SESSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,40}$")


class ScenarioError(ValueError):
    """A scenario file that does not follow the schema: the message names the file, line and field."""


@dataclass(frozen=True)
class Fact:
    """A fact to look for in an item's text: every `match` pattern found (case-insensitive), and for a
    `must_not`, none of `unless` (the item then carries the current truth beside the old words)."""

    fact: str
    match: tuple[re.Pattern[str], ...]
    harm: str | None = None
    unless: tuple[re.Pattern[str], ...] = ()

    def found_in(self, text: str) -> bool:
        return all(p.search(text) for p in self.match) and not any(p.search(text) for p in self.unless)


@dataclass(frozen=True)
class Recall:
    query: str
    must: tuple[Fact, ...]
    must_not: tuple[Fact, ...]
    needs_memory: bool = True
    max_items: int | None = None  # the most items a right answer has (a fact told by a belief and its turn: 1)
    live_intent: dict[str, str] | None = None
    action: dict[str, str] | None = None
    dates_relative_to: str | None = None

    def body(self, user_id: str) -> dict[str, Any]:
        """The `POST /v1/recall` body: the defaults, plus what the scenario states."""
        body: dict[str, Any] = {"user_id": user_id, "query": self.query}
        for name in ("live_intent", "action", "dates_relative_to"):
            if getattr(self, name) is not None:
                body[name] = getattr(self, name)
        return body


@dataclass(frozen=True)
class Scenario:
    id: str
    category: str
    about: str
    sessions: tuple[dict[str, Any], ...]
    recalls: tuple[Recall, ...]
    split: str
    phrasing: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def user_id(self) -> str:
        return user_id_of(self.id)

    def turns(self) -> Iterator[dict[str, Any]]:
        """Every turn as a `POST /v1/retain` turn, in the order written."""
        for session in self.sessions:
            start = _timestamp(session["ts"])
            user = user_id_of(self.id, session.get("user"))
            for index, turn in enumerate(session["turns"]):
                said = (
                    _timestamp(turn["ts"])
                    if "ts" in turn
                    else start + timedelta(seconds=TURN_SPACING_S * index)
                )
                out = {
                    "turn_id": f"{self.id}:{session['session_id']}:{index}",
                    "user_id": user,
                    "session_id": f"{self.id}:{session['session_id']}",
                    "role": turn["role"],
                    "text": turn["text"],
                    "ts": said.isoformat().replace("+00:00", "Z"),
                }
                if "speaker" in turn:
                    out["metadata"] = {"speaker": turn["speaker"]}
                yield out


def user_id_of(scenario_id: str, member: str | None = None) -> str:
    """Each scenario is its own user; `member` names another person of the same household (scope)."""
    return f"rs:{scenario_id}" if member is None else f"rs:{scenario_id}:{member}"


def _timestamp(text: str) -> datetime:
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone")
    return parsed


# --- loading, with one-line errors ---------------------------------------------------------------------


def load(splits: tuple[str, ...] = SPLITS, data_dir: Path = DATA_DIR) -> list[Scenario]:
    """Every scenario of the named splits, validated; ids unique across them."""
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for split in splits:
        if split not in SPLITS:
            raise ScenarioError(f"unknown split {split!r}; one of {', '.join(SPLITS)}")
        path = data_dir / f"{split}.jsonl"
        if not path.exists():
            raise ScenarioError(f"{path}: no such file")
        for path in split_files(split, data_dir):
            for scenario in load_file(path, split):
                if scenario.id in seen:
                    raise ScenarioError(f"{path}: scenario id {scenario.id!r} also in {seen[scenario.id]}")
                seen[scenario.id] = str(path)
                scenarios.append(scenario)
    return scenarios


def split_files(split: str, data_dir: Path = DATA_DIR) -> list[Path]:
    """The files of a split: `<split>.jsonl`, and for the held-out split every `heldout_new_*.jsonl`
    (the held-out third of scenarios added later, kept apart so `heldout.jsonl` is never edited)."""
    extra = sorted(data_dir.glob("heldout_new_*.jsonl")) if split == "heldout" else []
    return [data_dir / f"{split}.jsonl", *extra]


def load_file(path: Path, split: str) -> list[Scenario]:
    scenarios = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"{where}: not JSON ({exc.msg})") from None
        if isinstance(raw, dict) and set(raw) == {"_note"}:
            continue  # a note line (the held-out file opens with one)
        try:
            scenarios.append(parse(raw, split))
        except (KeyError, TypeError, ValueError, re.error) as exc:
            name = raw.get("id", "?") if isinstance(raw, dict) else "?"
            raise ScenarioError(f"{where} ({name}): {_reason(exc)}") from None
    return scenarios


def _reason(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}"
    return str(exc)


def parse(raw: dict[str, Any], split: str) -> Scenario:
    """One scenario from its JSON object; raises KeyError/ValueError/TypeError naming the problem."""
    if not isinstance(raw, dict):
        raise TypeError("a scenario is a JSON object")
    _known(raw, {"id", "category", "phrasing", "about", "sessions", "recalls"}, "scenario")
    if not _ID.match(raw["id"]):
        raise ValueError(f"id {raw['id']!r}: lowercase letters, digits and '-'")
    if raw["category"] not in CATEGORIES:
        raise ValueError(f"unknown category {raw['category']!r}")
    if not str(raw["about"]).strip():
        raise ValueError("'about' says what the scenario measures")
    sessions = tuple(_session(s) for s in raw["sessions"])
    if not sessions:
        raise ValueError("no sessions")
    if len({s["session_id"] for s in sessions}) != len(sessions):
        raise ValueError("two sessions share a session_id")
    recalls = tuple(_recall(r) for r in raw["recalls"])
    if not recalls:
        raise ValueError("no recalls")
    return Scenario(
        id=raw["id"],
        category=raw["category"],
        about=raw["about"],
        sessions=sessions,
        recalls=recalls,
        split=split,
        phrasing=raw.get("phrasing"),
        raw=raw,
    )


def _known(raw: dict[str, Any], allowed: set[str], what: str) -> None:
    unknown = set(raw) - allowed
    if unknown:
        raise ValueError(f"unknown {what} field(s): {', '.join(sorted(unknown))}")


def _session(raw: dict[str, Any]) -> dict[str, Any]:
    _known(raw, {"session_id", "ts", "user", "turns"}, "session")
    if not _SESSION.match(raw["session_id"]):
        raise ValueError(f"session_id {raw['session_id']!r}: letters, digits, '-' and '_'")
    _timestamp(raw["ts"])
    if "user" in raw and not _SESSION.match(raw["user"]):
        raise ValueError(f"session user {raw['user']!r}: letters, digits, '-' and '_'")
    if not raw["turns"]:
        raise ValueError(f"session {raw['session_id']}: no turns")
    for turn in raw["turns"]:
        _known(turn, {"role", "text", "speaker", "ts"}, "turn")
        if turn["role"] not in ROLES:
            raise ValueError(f"turn role {turn['role']!r}: one of {', '.join(ROLES)}")
        if not isinstance(turn["text"], str) or not turn["text"].strip():
            raise ValueError(f"session {raw['session_id']}: a turn without text")
        if "ts" in turn:
            _timestamp(turn["ts"])
    return raw


def _recall(raw: dict[str, Any]) -> Recall:
    _known(
        raw,
        {"query", "live_intent", "action", "dates_relative_to", "needs_memory", "max_items", "must", "must_not"},
        "recall",
    )
    if not isinstance(raw["query"], str) or not raw["query"].strip():
        raise ValueError("a recall without a query")
    needs_memory = raw.get("needs_memory", True)
    if not isinstance(needs_memory, bool):
        raise TypeError("needs_memory is true or false")
    must = tuple(_fact(f, negative=False) for f in raw.get("must", []))
    must_not = tuple(_fact(f, negative=True) for f in raw.get("must_not", []))
    if needs_memory and not (must or must_not):
        raise ValueError(f"recall {raw['query']!r} has no expectation (must or must_not)")
    if not needs_memory and must:
        raise ValueError(f"recall {raw['query']!r} needs no memory but lists facts that must come back")
    max_items = raw.get("max_items")
    if max_items is not None and (isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1):
        raise TypeError("max_items is a whole number of at least 1")
    if raw.get("dates_relative_to") is not None:
        _timestamp(raw["dates_relative_to"])
    action = raw.get("action")
    if action is not None and not (isinstance(action, dict) and isinstance(action.get("action"), str)):
        raise TypeError("action is an object with an 'action' (and optionally a 'domain')")
    live = raw.get("live_intent")
    if live is not None and not (
        isinstance(live, dict) and live and all(isinstance(v, str) for v in live.values())
    ):
        raise TypeError("live_intent maps attribute names to string values")
    return Recall(
        query=raw["query"],
        must=must,
        must_not=must_not,
        needs_memory=needs_memory,
        max_items=max_items,
        live_intent=live,
        action=action,
        dates_relative_to=raw.get("dates_relative_to"),
    )


def _fact(raw: dict[str, Any], negative: bool) -> Fact:
    allowed = {"fact", "match", "harm", "unless"} if negative else {"fact", "match"}
    _known(raw, allowed, "must_not fact" if negative else "must fact")
    if not str(raw["fact"]).strip():
        raise ValueError("a fact without its description")
    if not raw["match"] or not all(isinstance(p, str) and p for p in raw["match"]):
        raise ValueError(f"fact {raw['fact']!r}: 'match' is a non-empty list of patterns")
    harm = None
    if negative:
        harm = raw["harm"]
        if harm not in HARM_KINDS:
            raise ValueError(f"fact {raw['fact']!r}: unknown harm {harm!r}; one of {', '.join(HARM_KINDS)}")
    return Fact(
        fact=raw["fact"],
        match=tuple(re.compile(p, re.IGNORECASE) for p in raw["match"]),
        harm=harm,
        unless=tuple(re.compile(p, re.IGNORECASE) for p in raw.get("unless", [])),
    )
