"""`plan_import` is pure: what an imported belief state does to the target's current beliefs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from beliefs.episodes import Episode
from beliefs.import_plan import plan_import
from beliefs.records import EventKind, MemoryState, Role, Trust
from beliefs.write_plan import BeliefView
from tests.beliefs.test_reconcile import meeting

NOW = datetime(2026, 6, 1, tzinfo=UTC)
VECTOR = [0.1, 0.2, 0.3]


def plan(memories, target=(), stored=(), episodes=()):
    return plan_import(
        [(m, VECTOR) for m in memories],
        [(e, VECTOR) for e in episodes],
        stored_ids=set(stored),
        target=BeliefView(target),
        now=NOW,
    )


def episode(id: str) -> Episode:
    at = NOW - timedelta(days=1)
    return Episode(id=id, tenant_id="t", user_id="u", turn_id=f"turn-{id}", role=Role.USER, text="hi there",
                   said_at=at, created_at=at)  # fmt: skip


def test_ids_already_stored_are_skipped_and_nothing_else_changes():
    mine = meeting("a", "mornings")
    result = plan([mine], target=[mine], stored=["a", "e1"], episodes=[episode("e1")])
    assert (result.counts.memories, result.counts.episodes, result.counts.skipped) == (0, 0, 2)
    assert not result.plan.inserts and not result.plan.updates and not result.plan.events


def test_history_is_stored_as_exported_and_touches_no_target_belief():
    old = meeting("old", "evenings", state=MemoryState.SUPERSEDED, valid_until=NOW, superseded_by="new")
    theirs = meeting("theirs", "mornings", minute=5)
    result = plan([old], target=[theirs])
    assert result.plan.inserts == {"old": (old, VECTOR)}
    assert not result.plan.updates and not result.plan.events


def test_a_newer_imported_value_supersedes_the_targets_and_is_stored_as_exported():
    theirs = meeting("theirs", "mornings", minute=0)
    mine = meeting("mine", "afternoons", minute=10)
    result = plan([mine], target=[theirs])
    assert result.plan.inserts["mine"][0] == mine
    closed = result.plan.updates["theirs"]
    assert (closed.state, closed.superseded_by, closed.valid_until) == (MemoryState.SUPERSEDED, "mine", mine.valid_from)
    assert [e.kind for e in result.plan.events] == [EventKind.CREATED, EventKind.SUPERSEDED]
    assert result.counts.superseded == 1


def test_the_same_belief_under_another_id_is_confirmed_not_duplicated():
    theirs = meeting("theirs", "mornings", minute=0, trust=Trust.CAUTION)
    mine = meeting("mine", "Mornings.", minute=10, source_turn_ids=["turn-x"])
    result = plan([mine], target=[theirs])
    kept = result.plan.updates["theirs"]
    assert kept.is_current and kept.trust is Trust.TRUSTED and kept.source_turn_ids == ["turn-theirs", "turn-x"]
    merged, _ = result.plan.inserts["mine"]
    assert (merged.state, merged.superseded_by, merged.valid_until) == (MemoryState.CONSOLIDATED, "theirs", NOW)
    assert result.counts.confirmed == 1


def test_the_files_own_rows_never_reconcile_with_each_other():
    """A consistent export holds a weak claim beside a standing belief: both come in as they were."""
    weak = meeting("weak", "evenings", minute=0, confidence=0.2)
    strong = meeting("strong", "mornings", minute=10)
    result = plan([weak, strong])
    assert {i: m for i, (m, _) in result.plan.inserts.items()} == {"weak": weak, "strong": strong}
    assert not result.plan.updates


def test_new_episodes_are_planned_with_their_embedding():
    result = plan([], episodes=[episode("e1"), episode("e1")])
    assert list(result.plan.episodes) == ["e1"] and result.plan.episodes["e1"][1] == VECTOR
    assert (result.counts.episodes, result.counts.skipped) == (1, 1)
