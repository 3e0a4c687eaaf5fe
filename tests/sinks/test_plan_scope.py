"""Scope on writes in the write plan (pure, no I/O): a claim only meets memories of its own scope,
the user's shared beliefs or one agent's private ones, in reconcile and in the loop book."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from beliefs.contested import LoopBook
from beliefs.loops import contested_id
from beliefs.records import JobState, Memory, MemoryState, Role, Turn, Visibility, job_id_for, memory_id_for
from beliefs.write_plan import BeliefView, TurnOutcome, plan_write
from sinks.reach import EVERY_AGENT, SHARED_ONLY, Reach

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def belief(n: int, value: str, agent: str | None = None, private: bool = False, text: str | None = None) -> Memory:
    at = T0 + timedelta(days=n)
    return Memory(
        id=memory_id_for("t", f"turn-{n}", value),
        tenant_id="t",
        user_id="u",
        agent_id=agent,
        visibility=Visibility.AGENT if private else Visibility.USER,
        text=text or f"User prefers {value} meetings.",
        type="preference",
        topic="work",
        importance=0.6,
        confidence=0.9,
        entity="user",
        attribute="preferred_meeting_time",
        value=value,
        source_turn_ids=[f"turn-{n}"],
        created_at=at,
        valid_from=at,
    )


def outcome(memory: Memory) -> TurnOutcome:
    turn_id = memory.source_turn_ids[0]
    metadata = {"visibility": "agent"} if memory.visibility is Visibility.AGENT else {}
    turn = Turn(
        turn_id=turn_id, tenant_id="t", user_id="u", agent_id=memory.agent_id, role=Role.USER,
        text=memory.text, ts=memory.valid_from, metadata=metadata,
    )  # fmt: skip
    return TurnOutcome(turn=turn, job_id=job_id_for("t", turn_id), state=JobState.DONE, memories=[memory])


def plan(view: BeliefView, *memories: Memory, book: LoopBook | None = None):
    return plan_write([outcome(m) for m in memories], known_jobs={}, existing_ids=set(), view=view, now=T0, book=book)


def test_candidates_are_only_of_the_claims_own_scope() -> None:
    shared, of_x, of_y = belief(0, "morning"), belief(1, "noon", "x", True), belief(2, "evening", "y", True)
    shared_by_x = belief(3, "dawn", "x")  # said by X, but shared: agent_id is provenance only
    view = BeliefView([shared, of_x, of_y, shared_by_x])

    assert {m.id for m in view.candidates(belief(9, "night"))} == {shared.id, shared_by_x.id}
    assert [m.id for m in view.candidates(belief(9, "night", "x", True))] == [of_x.id]
    assert [m.id for m in view.candidates(belief(9, "night", "z", True))] == []


def test_a_private_claim_neither_supersedes_nor_confirms_a_shared_belief() -> None:
    shared = belief(0, "morning")
    view = BeliefView([shared])

    flipped = plan(view, belief(1, "afternoon", "x", True))
    same = plan(BeliefView([shared]), belief(2, "morning", "x", True, text=shared.text))

    assert flipped.updates == {} and list(flipped.inserts) == [belief(1, "afternoon", "x", True).id]
    assert same.updates == {} and len(same.inserts) == 1  # its own private memory, no citation added
    assert view.get(shared.id).is_current


def test_a_shared_claim_never_merges_into_a_private_memory() -> None:
    private = belief(0, "morning", "x", True)

    result = plan(BeliefView([private]), belief(1, "morning"))

    assert result.updates == {} and len(result.inserts) == 1
    assert [job.visibility for job in result.jobs] == [Visibility.USER]


def test_private_flips_make_a_private_loop_and_never_count_for_the_shared_pair() -> None:
    shared = belief(0, "morning")
    flips = [belief(n, value, "x", True) for n, value in enumerate(["afternoon", "morning", "afternoon", "morning"], 1)]
    book = LoopBook()

    result = plan(BeliefView([shared]), *flips, book=book)

    (slot,) = result.contested.values()
    pair = ("t", "u", "user", "preferred_meeting_time")
    assert (slot.agent_id, slot.id) == ("x", contested_id(pair, "x"))
    assert slot.id != contested_id(pair)  # the shared pair's slot is another one
    assert {e["memory_id"] for e in slot.value_history} <= {m.id for m in flips}
    assert shared.id not in result.updates
    assert [e["agent_id"] for e in result.escalations] == ["x"]
    assert all(job.visibility is Visibility.AGENT and job.private_to == "x" for job in result.jobs)
    assert {m.state for m, _ in result.inserts.values()} >= {MemoryState.CONTESTED}


def test_reach_sees_shared_state_and_its_own_agents() -> None:
    assert SHARED_ONLY.sees(None) and not SHARED_ONLY.sees("x")
    assert Reach("x").sees("x") and not Reach("x").sees("y") and not Reach("x").sees("")
    assert EVERY_AGENT.sees("y") and EVERY_AGENT.sees(None)
