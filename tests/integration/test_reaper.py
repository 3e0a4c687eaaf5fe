"""No job stays queued forever: the worker's reaper re-publishes an accepted turn that never reached
the broker, and fails with a reason a turn the consumer keeps going past (real broker, both databases)."""

from __future__ import annotations

import pytest
from integration.harness import running_worker, wait_for

from beliefs.records import JobState, Role, Turn, job_id_for, utcnow
from sinks.sql.intake import SqlIntake, queued_job

pytestmark = pytest.mark.integration


@pytest.fixture
def reaping(settings):
    return settings.model_copy(
        update={
            "intake_reap_interval_s": 0.3,
            "intake_requeue_after_s": 0.0,
            "intake_max_attempts": 2,
            "max_turn_bytes": 200,
        }
    )


def make_turn(turn_id: str, text: str) -> Turn:
    return Turn(turn_id=turn_id, tenant_id="acme", user_id="u-1", role=Role.USER, text=text)


async def test_the_reaper_republishes_lost_turns_and_fails_those_never_processed(reaping):
    lost = make_turn("t-lost", "I'm allergic to peanuts.")
    rejected = make_turn("t-huge", "I like tea. " * 40)  # over max_turn_bytes: the pipeline sends it to the DLQ
    async with running_worker(reaping) as worker:
        store = worker.clients.store
        # accepted and committed, but never on the broker (a 503 after the commit, a broker that died)
        await store.enqueue_jobs([queued_job(t, utcnow()) for t in (lost, rejected)], [lost, rejected])

        async def finished() -> bool:
            jobs = [await store.get_job("acme", job_id_for("acme", t.turn_id)) for t in (lost, rejected)]
            return all(job.state is not JobState.QUEUED for job in jobs)

        await wait_for(finished, timeout=90, what="the reaper to finish both jobs")
        done = await store.get_job("acme", job_id_for("acme", lost.turn_id))
        failed = await store.get_job("acme", job_id_for("acme", rejected.turn_id))
        remaining = [r for r in await SqlIntake.of(store).page() if r.tenant_id == "acme"]

    assert done.state is JobState.DONE and len(done.memory_ids) == 1
    assert failed.state is JobState.FAILED
    assert failed.reason.startswith("not_processed:") and "3 times" in failed.reason
    assert remaining == []
