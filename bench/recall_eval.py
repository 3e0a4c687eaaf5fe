"""Recall evaluation on our own scenarios: precision, recall and the harmful-recall rate.

Run: .venv/bin/python bench/recall_eval.py [--data tests/data/recall_eval.jsonl] [--only ID,...]
     [--sql-url URL] [--preset balanced] [--json]

Each scenario (one JSON line) writes a few memories the way the write path does (a claim through
`reading.prepare.memory_from_claim`: normalised, sensitivity-tagged, trust from the speaker; then
`store.write`, which reconciles in order), asks one recall, and compares what came back with the
memories that should (`expect`) and must not (`harmful`, each with its kind: stale, superseded,
out_of_scope, overrides_live_intent, sensitive, untrusted, contradiction, wrong_context) come back.
Memories in neither list are neutral: returned, they only lower precision.

    precision = expected returned / returned        recall = expected returned / expected
    harmful-recall rate = harmful returned / returned (and per kind)

The CI test (`tests/sidecar/recall/test_recall_eval.py`) runs a slice on both databases and
asserts that nothing harmful comes back; this script runs them all on SQLite and prints the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beliefs.records import Claim, JobState, Memory, MemoryType, Role, Turn, job_id_for  # noqa: E402
from beliefs.write_plan import TurnOutcome
from reading.prepare import memory_from_claim  # noqa: E402
from sidecar.auth import TENANT_DEFAULT, Capability, Principal  # noqa: E402
from sidecar.recall.models import RecallRequest  # noqa: E402
from sidecar.recall.service import RecallService  # noqa: E402
from sinks.base import VectorPoint, vector_payload
from sinks.sql.vector_outbox import SqlVectorOutbox

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "recall_eval.jsonl"

#: The moment every scenario is evaluated at; memories are dated relative to it.
NOW = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)

HARMFUL_KINDS = (
    "stale", "superseded", "out_of_scope", "overrides_live_intent", "sensitive", "untrusted",
    "contradiction", "wrong_context",
)  # fmt: skip

_CLAIM_FIELDS = ("entity", "attribute", "value", "context", "polarity", "recall_semantics", "trigger", "profile")


@dataclass(frozen=True)
class Scenario:
    id: str
    rule: str
    memories: list[dict[str, Any]]
    request: dict[str, Any]
    expect: list[str]
    harmful: dict[str, str]
    ci: bool = False

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Scenario:
        scenario = cls(
            id=raw["id"],
            rule=raw["rule"],
            memories=raw["memories"],
            request=raw["request"],
            expect=list(raw.get("expect", [])),
            harmful=dict(raw.get("harmful", {})),
            ci=bool(raw.get("ci", False)),
        )
        keys = {m["key"] for m in scenario.memories}
        unknown = (set(scenario.expect) | set(scenario.harmful)) - keys
        if unknown:
            raise ValueError(f"scenario {scenario.id}: no memory {sorted(unknown)}")
        bad = set(scenario.harmful.values()) - set(HARMFUL_KINDS)
        if bad:
            raise ValueError(f"scenario {scenario.id}: unknown harmful kind {sorted(bad)}")
        return scenario


def load(path: Path = DATA) -> list[Scenario]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Scenario.of(json.loads(line)) for line in lines if line.strip()]


def memory_of(spec: dict[str, Any], tenant: str, scenario_id: str) -> Memory:
    """A memory as the write path makes it from one claim said `days_ago` before `NOW`."""
    said = NOW - timedelta(days=float(spec.get("days_ago", 1)))
    turn = Turn(
        turn_id=f"{scenario_id}-{spec['key']}",
        tenant_id=tenant,
        user_id=spec.get("user", "u1"),
        agent_id=spec.get("agent_id"),
        session_id=spec.get("session", f"s-{spec['key']}"),
        role=Role(spec.get("role", "user")),
        text=spec["text"],
        ts=said,
        metadata={"visibility": spec["visibility"]} if "visibility" in spec else {},
    )
    expires = spec.get("expires_in_hours")
    claim = Claim(
        text=spec["text"],
        type=MemoryType(spec.get("type", "fact")),
        topic=spec.get("topic", "personal"),
        importance=float(spec.get("importance", 0.6)),
        confidence=float(spec.get("confidence", 0.9)),
        evidence=spec["text"],
        expires_at=NOW + timedelta(hours=float(expires)) if expires is not None else None,
        **{k: spec[k] for k in _CLAIM_FIELDS if k in spec},
        **({"entity": "user"} if "attribute" in spec and "entity" not in spec else {}),
    )
    return memory_from_claim(turn, claim, said)


@dataclass
class Outcome:
    scenario: Scenario
    returned: list[str]  # memory keys, in prompt order
    conflicts: int = 0


@dataclass
class Report:
    scenarios: int = 0
    returned: int = 0
    expected: int = 0
    expected_returned: int = 0
    harmful_returned: int = 0
    harmful_by_kind: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)  # scenario ids that returned something harmful

    @property
    def precision(self) -> float:
        return self.expected_returned / self.returned if self.returned else 1.0

    @property
    def recall(self) -> float:
        return self.expected_returned / self.expected if self.expected else 1.0

    @property
    def harmful_rate(self) -> float:
        return self.harmful_returned / self.returned if self.returned else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "scenarios": self.scenarios,
            "returned": self.returned,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "harmful_rate": round(self.harmful_rate, 3),
            "harmful_returned": self.harmful_returned,
            "harmful_by_kind": dict(self.harmful_by_kind),
            "failures": self.failures,
        }


def score(outcomes: Sequence[Outcome]) -> Report:
    """Precision, recall and harmful-recall figures over scenario outcomes (pure)."""
    report = Report()
    for outcome in outcomes:
        scenario = outcome.scenario
        returned = set(outcome.returned)
        report.scenarios += 1
        report.returned += len(returned)
        report.expected += len(scenario.expect)
        report.expected_returned += len(returned & set(scenario.expect))
        harmful = [scenario.harmful[k] for k in returned if k in scenario.harmful]
        report.harmful_returned += len(harmful)
        report.harmful_by_kind.update(harmful)
        if harmful:
            report.failures.append(scenario.id)
    return report


async def run_scenario(scenario: Scenario, store, index, embedder, service: RecallService) -> Outcome:
    """Write the scenario's memories in order, sync their vectors, ask its recall."""
    tenant = f"eval-{scenario.id}-{uuid.uuid4().hex[:8]}"
    memories = [memory_of(spec, tenant, scenario.id) for spec in scenario.memories]
    keys = {m.id: spec["key"] for m, spec in zip(memories, scenario.memories, strict=True)}
    vectors = embedder.embed([m.text for m in memories])
    outcomes = [
        TurnOutcome(
            turn=Turn(
                turn_id=m.source_turn_ids[0], tenant_id=tenant, user_id=m.user_id, agent_id=m.agent_id,
                session_id=m.source_session, role=m.source_role, text=m.text, ts=m.created_at,
            ),
            job_id=job_id_for(tenant, m.source_turn_ids[0]),
            state=JobState.DONE,
            memories=[m],
            embeddings=[v],
        )
        for m, v in zip(memories, vectors, strict=True)
    ]  # fmt: skip
    await store.write(outcomes)
    pending = [p for p in await SqlVectorOutbox.of(store).pending_vectors(limit=100_000) if p.memory.tenant_id == tenant]
    await index.write([VectorPoint(p.memory.id, p.embedding, vector_payload(p.memory)) for p in pending])
    await SqlVectorOutbox.of(store).mark_vectors_synced([p.memory.id for p in pending])
    request = RecallRequest.model_validate({"user_id": "u1", **scenario.request})
    # the evaluator is an operator: a tenant key whose entry lists `agents` (scenarios name agents)
    operator = Principal(tenant, None, key_id="eval", capabilities=TENANT_DEFAULT | {Capability.AGENTS})
    result = await service.recall(operator, request)
    return Outcome(scenario, [keys.get(m.id, m.id) for m in result.memories], len(result.conflicts))


async def evaluate(scenarios: Sequence[Scenario], store, index, embedder, preset: str | None = None) -> list[Outcome]:
    service = RecallService(store, index, embedder, clock=lambda: NOW)
    if preset:
        service.config = service.config_for(RecallRequest(user_id="x", preset=preset))
    try:
        return [await run_scenario(s, store, index, embedder, service) for s in scenarios]
    finally:
        await service.close()


async def _main(args: argparse.Namespace) -> int:
    from embedding.embedder import load_default_embedder
    from sinks.sql.store import SqlMemoryStore
    from sinks.vectors.edge import EdgeVectorIndex

    scenarios = load(Path(args.data))
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s.id in wanted]
    with tempfile.TemporaryDirectory(prefix="beliefstream-eval-") as tmp:
        store = SqlMemoryStore(args.sql_url or f"sqlite+aiosqlite:///{tmp}/eval.db")
        index = EdgeVectorIndex(Path(tmp) / "vectors", dim=384)
        await store.setup()
        await index.setup()
        try:
            outcomes = await evaluate(scenarios, store, index, load_default_embedder(), args.preset)
        finally:
            await index.close()
            await store.close()
    report = score(outcomes)
    if args.json:
        print(json.dumps({"report": report.as_dict(), "outcomes": [o.__dict__ | {"scenario": o.scenario.id} for o in outcomes]}, indent=1))  # noqa: E501
        return 0
    for outcome in outcomes:
        s = outcome.scenario
        bad = [f"{k}({s.harmful[k]})" for k in outcome.returned if k in s.harmful]
        missed = [k for k in s.expect if k not in outcome.returned]
        print(f"{s.id:<28} {s.rule:<34} returned={','.join(outcome.returned) or '-':<22} "
              f"missed={','.join(missed) or '-':<10} harmful={','.join(bad) or '-'}")  # fmt: skip
    print(json.dumps(report.as_dict()))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Score recall on our evaluation scenarios (precision, recall, harmful).")
    parser.add_argument("--data", default=str(DATA), help="scenarios, one JSON object a line")
    parser.add_argument("--only", help="comma-separated scenario ids to run")
    parser.add_argument("--sql-url", help="SQL store URL (default: a fresh SQLite file in a temp dir)")
    parser.add_argument("--preset", help="recall preset (balanced, precise, recent)")
    parser.add_argument("--json", action="store_true", help="print the report and every outcome as JSON")
    return asyncio.run(_main(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
