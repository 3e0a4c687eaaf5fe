"""Backfill and re-extraction through the Message Batches API: many requests, one job, half price.

`submit` builds the same requests as the live extractor (context, grouping, the cached prefix,
the forced tool) and sends them as one batch with `client.messages.batches.create`; the job is
recorded in SQL (`sinks.sql.extraction_batches`) with what reading each result needs, so a
restarted process finds it (`open_jobs`) and `collect`s it once the API says it ended. A result
that errored, expired or fails validation takes the fallback extractor, like a live failure.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import anthropic

from beliefs.records import Claim, Polarity, Role, Turn
from llm.call import tool_call_of
from llm.client import make_client
from llm.errors import LlmCallError, MalformedAnswerError
from llm.prompts import extract_memories as prompt
from llm.prompts.extract_answer import read_tool_input
from llm.prompts.extract_request import ExtractionRequest, max_tokens_for, plan, request_for
from llm.turn_context import (
    ContextBounds,
    OfferedBelief,
    SessionWindows,
    TurnContext,
    TurnContextSource,
    within_bounds,
)
from reading.extract.write_policy import enforce_write_policy
from sinks.sql.extraction_batches import (
    COLLECTED,
    ENDED,
    FAILED,
    SUBMITTED,
    ExtractionBatchJob,
    SqlExtractionBatches,
)
from streams.settings import Settings

if TYPE_CHECKING:
    from reading.extractor import Extractor

log = logging.getLogger(__name__)


@dataclass
class BatchStats:
    """What collecting a job found."""

    requests: int = 0
    succeeded: int = 0
    fallbacks: int = 0  # turns of errored, expired or unusable results, read by the fallback


def _request_record(request: ExtractionRequest, turn_ids: Sequence[str]) -> dict[str, Any]:
    offered = {
        handle: asdict(belief) | {"polarity": belief.polarity.value}
        for handle, belief in request.offered.items()
    }
    return {
        "turn_ids": list(turn_ids),
        "turn_times": [t.isoformat() for t in request.turn_times],
        "offered": offered,
    }


def _offered(record: Mapping[str, Any]) -> dict[str, OfferedBelief]:
    return {
        handle: OfferedBelief(**(fields | {"polarity": Polarity(fields["polarity"])}))
        for handle, fields in record.get("offered", {}).items()
    }


class BatchExtraction:
    """Submit, poll and collect extraction jobs on the Message Batches API; state in SQL."""

    def __init__(
        self,
        settings: Settings,
        jobs: SqlExtractionBatches,
        client: anthropic.AsyncAnthropic | None = None,
        fallback: Extractor | None = None,
        context: TurnContextSource | None = None,
    ) -> None:
        self._owns_client = client is None
        self._client = client if client is not None else make_client(settings)
        self._model = settings.anthropic_model
        self._jobs = jobs
        self._fallback = fallback
        self._context = context
        self._bounds = ContextBounds(
            turns=settings.extraction_context_turns,
            turn_tokens=settings.extraction_context_tokens,
            belief_tokens=settings.extraction_belief_tokens,
        )
        self._group = settings.extraction_group_turns

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    async def submit(self, turns: Sequence[Turn], tenant_id: str | None = None) -> ExtractionBatchJob | None:
        """One batch for the user turns of `turns` (in order; other turns are context); None when
        no turn needs the model."""
        windows = SessionWindows()
        befores = [windows.before(turn) for turn in turns]
        sent = [at for at, turn in enumerate(turns) if turn.role is Role.USER and turn.text.strip()]
        if not sent:
            return None
        contexts = []
        for at in sent:
            stored = await self._context(turns[at]) if self._context is not None else TurnContext()
            contexts.append(
                prompt.ExtractionContext.from_turn(
                    turns[at], context=within_bounds(stored, befores[at], self._bounds)
                )
            )
        sessions = [
            None
            if turns[at].session_id is None
            else (turns[at].tenant_id, turns[at].user_id, turns[at].session_id)
            for at in sent
        ]
        groups = plan(contexts, sessions) if self._group else [[i] for i in range(len(sent))]
        requests: list[dict[str, Any]] = []
        records: dict[str, Any] = {}
        for number, group in enumerate(groups):
            request = request_for([contexts[i] for i in group])
            custom_id = f"r{number}"
            params = {
                "model": self._model, "max_tokens": max_tokens_for(len(group)), "system": request.system,
                "messages": request.messages, "tools": [prompt.TOOL], "tool_choice": prompt.TOOL_CHOICE,
            }  # fmt: skip
            requests.append({"custom_id": custom_id, "params": params})
            records[custom_id] = _request_record(request, [turns[sent[i]].turn_id for i in group])
        try:
            batch = await self._client.messages.batches.create(requests=requests)  # type: ignore[arg-type]
        except anthropic.APIError as exc:
            raise LlmCallError(f"batch submission failed: {type(exc).__name__}") from exc
        job = ExtractionBatchJob(id=batch.id, state=SUBMITTED, requests=records, tenant_id=tenant_id)
        await self._jobs.add(job)
        log.info(
            "submitted extraction batch %s: %d requests for %d turns", batch.id, len(requests), len(sent)
        )
        return job

    async def poll(self, job: ExtractionBatchJob) -> str:
        """The job's state after asking the API (`ended` once its results can be read)."""
        if job.state != SUBMITTED:
            return job.state
        batch = await self._client.messages.batches.retrieve(job.id)
        if batch.processing_status != "ended":
            return SUBMITTED
        counts = batch.request_counts.model_dump() if batch.request_counts is not None else {}
        await self._jobs.move(job.id, ENDED, counts)
        return ENDED

    async def collect(
        self, job: ExtractionBatchJob, turns: Mapping[str, Turn]
    ) -> tuple[dict[str, list[Claim]], BatchStats]:
        """Claims per turn id of an ended job (`turns`: the job's turns by id, read again from the
        episodes); the job is then `collected`. A turn missing from `turns` is left out."""
        stats = BatchStats(requests=len(job.requests))
        found: dict[str, list[Claim]] = {}
        answered: set[str] = set()
        results = await self._client.messages.batches.results(job.id)
        async for item in results:
            record = job.requests.get(item.custom_id)
            if record is None:
                continue
            answered.add(item.custom_id)
            found |= await self._read(item, record, turns, stats)
        for custom_id, record in job.requests.items():  # a request the results do not list
            if custom_id not in answered:
                found |= await self._fall_back(record, turns, stats, "no result")
        await self._jobs.move(job.id, COLLECTED)
        return found, stats

    async def _read(
        self, item: Any, record: Mapping[str, Any], turns: Mapping[str, Turn], stats: BatchStats
    ) -> dict[str, list[Claim]]:
        if item.result.type != "succeeded":
            return await self._fall_back(record, turns, stats, item.result.type)
        times = [datetime.fromisoformat(t) for t in record["turn_times"]]
        try:
            call = tool_call_of(item.result.message.content, prompt.TOOL_NAME)
            parsed = read_tool_input(call.input, turn_times=times, offered=_offered(record))
        except MalformedAnswerError as exc:
            return await self._fall_back(record, turns, stats, f"malformed: {exc}")
        stats.succeeded += 1
        out: dict[str, list[Claim]] = {}
        for turn_id, claims in zip(record["turn_ids"], parsed.per_turn, strict=True):
            turn = turns.get(turn_id)
            if turn is not None:
                out[turn_id] = enforce_write_policy(claims, turn.text, said_at=turn.ts).claims
        return out

    async def _fall_back(
        self, record: Mapping[str, Any], turns: Mapping[str, Turn], stats: BatchStats, why: str
    ) -> dict[str, list[Claim]]:
        known = [turns[turn_id] for turn_id in record["turn_ids"] if turn_id in turns]
        if self._fallback is None or not known:
            return {}
        stats.fallbacks += len(known)
        log.warning(
            "extraction batch result unusable (%s): %d turn(s) read by %s",
            why.split(":")[0],
            len(known),
            self._fallback.name,
        )
        claims = await self._fallback.extract(known)
        return {turn.turn_id: found for turn, found in zip(known, claims, strict=True)}

    async def fail(self, job: ExtractionBatchJob) -> None:
        """Give a job up (it will not be resumed)."""
        await self._jobs.move(job.id, FAILED)


class BatchedExtractor:
    """The `Extractor` over the Message Batches API, for backfill and re-extraction (not the live
    stream: a batch may take hours). A job already open for the same turns (a run a restart
    interrupted) is resumed instead of submitted again."""

    name = "anthropic-batch"

    def __init__(self, batches: BatchExtraction, jobs: SqlExtractionBatches, poll_s: float = 30.0) -> None:
        self._batches = batches
        self._jobs = jobs
        self._poll_s = poll_s
        self.seen: list[str] = []  # one line per job: id, submitted or resumed, what collecting it found

    async def extract(self, turns: Sequence[Turn]) -> list[list[Claim]]:
        ids = {turn.turn_id for turn in turns}
        job = next((j for j in await self._jobs.open_jobs() if _turn_ids(j) and _turn_ids(j) <= ids), None)
        how = "resumed"
        if job is not None:
            log.info("resuming extraction batch %s", job.id)
        else:
            job, how = await self._batches.submit(turns), "submitted"
        if job is None:
            return [[] for _ in turns]
        while await self._batches.poll(job) == SUBMITTED:
            await asyncio.sleep(self._poll_s)
        fresh = await self._jobs.get(job.id)
        found, stats = await self._batches.collect(fresh or job, {turn.turn_id: turn for turn in turns})
        self.seen.append(
            f"Message Batches job {job.id} ({how}): {stats.requests} requests, {stats.succeeded} succeeded, "
            f"{stats.fallbacks} turn(s) read by the fallback"
        )
        return [found.get(turn.turn_id, []) for turn in turns]


def _turn_ids(job: ExtractionBatchJob) -> set[str]:
    return {turn_id for record in job.requests.values() for turn_id in record["turn_ids"]}
