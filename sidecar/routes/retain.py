"""`POST /v1/retain`: turns in, queued jobs and the turns kept in SQL, turns published, job ids out.

Every turn of the body is validated and built before anything is written: a bad field anywhere is
a 4xx and no job is recorded. Jobs and turns are then written to SQL (the intake,
`sinks/sql/intake.py`) in one transaction before the turns are published, so a job id the client
holds is always readable and a 202 is durable even though the embedded broker keeps nothing across
a crash: the worker re-publishes the intake at start and its reaper re-publishes (or fails, with a
reason) turns that stay queued. If publishing fails the answer is 503: the retried POST (same turn
ids) yields the same job ids and publishes again; the pipeline deduplicates by turn id.
"""

# No `from __future__ import annotations`: FastAPI must resolve the closures' annotations at runtime.
import uuid
from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Body, Depends
from pydantic import ValidationError

from beliefs.records import Job, JobState, Turn, job_id_for, utcnow
from sidecar.access import AccessGuard
from sidecar.auth import Principal
from sidecar.errors import BadRequest, Forbidden, PayloadTooLarge, describe_validation_errors
from sidecar.publisher import TurnPublisher
from sidecar.schemas import ERROR_RESPONSES, RetainAccepted, RetainBatch, RetainBody, TurnIn
from sinks.contracts import JobIntake
from streams.tracing import span


def scoped_turn(principal: Principal, turn: TurnIn, where: str, max_turn_bytes: int) -> Turn:
    """The wire turn: tenant and (bound) agent from the key; body values may only repeat them.

    `where` names the turn in error messages (`turns[3]`, or `turn` for a single-turn body).
    """
    if turn.tenant_id is not None and turn.tenant_id != principal.tenant_id:
        raise Forbidden(f"{where}.tenant_id is not the tenant of this API key")
    agent_id = principal.acting_agent(turn.agent_id, f"{where}.agent_id")
    size = len(turn.text.encode("utf-8"))
    if size > max_turn_bytes:
        raise PayloadTooLarge(f"{where}.text is {size} bytes; the limit is {max_turn_bytes} bytes (UTF-8)")
    fields = turn.model_dump(exclude={"tenant_id", "turn_id", "ts", "agent_id"})
    try:
        return Turn(
            **fields,
            tenant_id=principal.tenant_id,
            agent_id=agent_id,
            turn_id=turn.turn_id or uuid.uuid4().hex,
            ts=turn.ts or utcnow(),
            accepted_at=utcnow(),  # an erasure after this moment overtakes the turn (beliefs.erasure)
        )
    except ValidationError as exc:  # TurnIn checks the same bounds; this is the last line, never a 500
        raise BadRequest(f"{where}: {describe_validation_errors(exc.errors())}") from exc


def queued_jobs(turns: Sequence[Turn]) -> list[Job]:
    """One queued job per turn, its id derived from (tenant, turn id); duplicates are refused."""
    now = utcnow()
    jobs: dict[str, Job] = {}
    for turn in turns:
        job_id = job_id_for(turn.tenant_id, turn.turn_id)
        if job_id in jobs:
            raise BadRequest(f"turn_id {turn.turn_id!r} appears more than once in the request")
        jobs[job_id] = Job(
            job_id=job_id,
            tenant_id=turn.tenant_id,
            user_id=turn.user_id,
            turn_id=turn.turn_id,
            state=JobState.QUEUED,
            created_at=turn.accepted_at or now,  # the erasure guard compares it (sinks.sql.erasure_guard)
            updated_at=now,
            agent_id=turn.agent_id,
            visibility=turn.visibility,
        )
    return list(jobs.values())


def retain_routes(
    guard: AccessGuard, store: JobIntake, publisher: TurnPublisher, max_turn_bytes: int
) -> APIRouter:
    router = APIRouter(tags=["retain"], responses=ERROR_RESPONSES)

    @router.post("/v1/retain", status_code=202, response_model=RetainAccepted)
    async def retain(
        principal: Annotated[Principal, Depends(guard)], body: Annotated[RetainBody, Body()]
    ) -> RetainAccepted:
        """Retain one turn or a batch; answers at once with one job id per turn, in input order."""
        if isinstance(body, RetainBatch):
            named = [(f"turns[{i}]", turn) for i, turn in enumerate(body.turns)]
        else:
            named = [("turn", body)]
        turns = [scoped_turn(principal, turn, where, max_turn_bytes) for where, turn in named]
        jobs = queued_jobs(turns)
        with span("beliefstream.retain", {"beliefstream.tenant_id": principal.tenant_id, "beliefstream.turns": len(turns)}):
            await store.enqueue_jobs(jobs, turns)
            await publisher.publish(turns)
        return RetainAccepted(job_ids=[job.job_id for job in jobs])

    return router
