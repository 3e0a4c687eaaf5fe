"""`RecallService`: the I/O around the pure selection, with as few round trips as possible.

    resolve scope (key decides tenant and bound agent; the body never widens it); the model starts
    ├── keyword search (SQL full text)        ┐
    ├── pinned rows (profile + constraints),  │
    │   and what is linked to the entity /    │
    │   time the query names (one statement)  │
    ├── open contested slots of the user      ├ concurrently
    └── embed query → one vector search       ┘
    └── episodes: keyword search, and a second vector search (kind episode) of the same embedding
    fuse (cosine + normalised keyword), linked ids joined → hydrate memories + slot-mates, and episodes (concurrently)
    a belief is as relevant as the best candidate turn that stated it, if that is more (`grounded`)
    select beliefs (pure: topic, contexts, conflicts, ...); score episodes (their linked beliefs
    read once: superseded ones are labelled), neighbours when asked; a quote of a kept belief's
    turn is carried on that belief (one item per fact) → one ranking and budget
    → record access and audit (buffered) → result

A failing vector index or embedder degrades recall to keyword + pinned (said in diagnostics);
the SQL store is the authority, so its failure fails the recall.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np

from beliefs.attributes import ATTRIBUTES, is_single_valued
from beliefs.episodes import Episode
from beliefs.errors import BeliefstreamError
from beliefs.records import Memory, RecallAudit, utcnow
from embedding.embedder import Embedder
from sidecar.auth import Principal
from sidecar.recall import filters
from sidecar.recall.access import AccessRecorder
from sidecar.recall.asked import asked_ids
from sidecar.recall.audit import AuditSink, query_digest
from sidecar.recall.carried_quotes import carry_quotes
from sidecar.recall.config import BALANCED, RecallConfig, episode_fusion, preset
from sidecar.recall.diagnostics import RecallDiagnostics, SuppressedView
from sidecar.recall.episodes import EpisodeVerdicts, judge_episodes, offer_context
from sidecar.recall.evidence import episode_item, merge
from sidecar.recall.exclusions import first_reasons, unaccounted
from sidecar.recall.folded_beliefs import fold_beliefs, foldable
from sidecar.recall.fusion import Signals, fuse, grounded, stated_relevance
from sidecar.recall.keywords import query_terms
from sidecar.recall.linked import query_links, with_linked
from sidecar.recall.meaning import Meaning, MeaningReader
from sidecar.recall.metrics import measured, recall_metrics
from sidecar.recall.models import RecalledMemory, RecallRequest, RecallResult
from sidecar.recall.newer_first import NewerFirst
from sidecar.recall.notes import notes_of
from sidecar.recall.people import named_speakers
from sidecar.recall.prompt import render
from sidecar.recall.query_dates import DateReading, read_dates
from sidecar.recall.query_embed import QueryEmbedder, vector_of
from sidecar.recall.request_gates import item_gates, speaks_of_user
from sidecar.recall.result import to_result
from sidecar.recall.scope import resolve_scope
from sidecar.recall.scored_quotes import Quotes
from sidecar.recall.select import select
from sidecar.recall.sensitivity_gate import request_domains, safety_needed
from sidecar.recall.trust_policy import trust_policy
from sinks.base import EPISODE_KIND, VectorHit, VectorIndex
from sinks.concurrency import gather_all
from sinks.recall import Currency, KeywordHit, RecallScope, RecallStore

logger = logging.getLogger(__name__)

#: Attributes whose current values contradict each other: hydration also fetches their slot-mates.
SINGLE_VALUED = tuple(sorted(name for name, spec in ATTRIBUTES.items() if spec.single_valued))


class RecallService:
    def __init__(
        self,
        store: RecallStore,
        vectors: VectorIndex,
        embedder: Embedder,
        config: RecallConfig = BALANCED,
        audit: AuditSink | None = None,
        access_recorder: AccessRecorder | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._queries = QueryEmbedder(embedder)  # concurrent recalls share model calls
        self._meaning = MeaningReader(self._queries)
        recall_metrics()  # registered now: /metrics shows recall's families before the first recall
        self.config = config
        self._audit = audit
        self._access = access_recorder
        self._clock = clock

    async def start(self) -> None:
        """Start the background flushers of access counts and audit records."""
        for part in (self._access, self._audit):
            if part is not None:
                await part.start()

    async def flush(self) -> None:
        for part in (self._access, self._audit):
            if part is not None:
                await part.flush()

    async def close(self) -> None:
        """Flush and stop the flushers; call before the store closes."""
        for part in (self._access, self._audit):
            if part is not None:
                await part.close()

    def config_for(self, request: RecallRequest) -> RecallConfig:
        return self.config if request.preset is None else preset(request.preset)

    @measured
    async def recall(self, principal: Principal, request: RecallRequest) -> RecallResult:
        now = self._clock()
        config = self.config_for(request)
        scope = resolve_scope(principal, request)
        # the model starts first: what follows runs on the event loop while it embeds the query
        embedding = self._queries.ask(request.query) if request.query.strip() else None
        if isinstance(embedding, asyncio.Future):
            await asyncio.sleep(0)  # the model call starts on this pass
        currency = Currency(now=now, confidence_floor=config.confidence_floor)
        # time and agent filters select quotes by said_at and agent; types and topics leave no quotes
        quoting = (
            config.episodes_enabled and request.episodes and bool(request.query.strip()) and filters.quotes_allowed(request)
        )
        said = replace(currency, include_untrusted=request.include_untrusted_evidence)
        terms = query_terms(request.query)
        fetch = config.candidate_limit(request.limit, narrowed=request.topic is not None or filters.narrows(request))
        degraded: list[str] = []

        domains = request_domains(request.query, request.action.domain if request.action else None, request.topic)
        dates = read_dates(request.query, request.dates_relative_to or now)
        links = query_links(request.query, dates.window)
        (dense, episode_dense), keyword, (pinned, linked), episode_keyword, contests, safety = await gather_all(
            self._dense(embedding, scope, fetch, degraded, quoting),
            self._keyword(scope, currency, terms, fetch),
            self._store.pinned_and_linked(scope, currency, config.pinned_limit, links, fetch),
            self._episode_keyword(scope, said, terms, fetch if quoting else 0),
            self._store.open_contests(scope, currency, config.contested_limit),
            self._store.safety_memories(scope, currency, safety_needed(domains), config.pinned_limit),
        )
        signals = with_linked(fuse(dense, keyword, config), linked)
        episode_signals = fuse(episode_dense, episode_keyword, episode_fusion(config))
        hydrated, said_episodes = await gather_all(
            self._store.hydrate(scope, currency, list(signals), SINGLE_VALUED),
            self._hydrate_episodes(scope, said, list(episode_signals)),
        )
        said_all = {e.id: e for e in said_episodes}
        said_episodes = [e for e in said_episodes if filters.said_within(e, request)]
        stated = [(e.memory_ids, episode_signals[e.id].relevance) for e in said_episodes if e.id in episode_signals]
        signals = grounded(signals, stated_relevance(stated))
        hydrated += await self._invented_slot_mates(scope, currency, hydrated)
        current = {m.id: m for m in (*hydrated, *pinned, *safety)}  # current at a stricter floor than quotes ask
        impersonal = not speaks_of_user(request, current.values(), said_episodes)
        hydrated, pinned = filters.narrowed(request, hydrated, [*pinned, *safety])
        filtered = current.keys() - {m.id for m in (*hydrated, *pinned)}
        domain = request.action.domain if request.action else None
        meaning = await self._meaning.read_or_none(embedding, request.live_intent, current.values(), domain, degraded)
        asked = asked_ids(current.values(), said_episodes, signals, episode_signals, config, impersonal)
        selection = select(
            request, config, now, scope, signals, hydrated, pinned, contests, domains=domains, meaning=meaning,
            impersonal=impersonal, asked=asked,
        )  # fmt: skip
        quotes = await self._quotes(
            request, config, now, scope, said, episode_signals, said_episodes, current, dates, domains, meaning,
            impersonal, asked,
        )
        quotes = quotes.without_sensitive(selection.suppressed)
        alone, carried = carry_quotes(selection.chosen, quotes.entries, request.query, config.carry_quotes_saying_more)
        on_beliefs = {i for i, _ in carried}
        on_beliefs = [q for q in quotes.entries if q.episode.id in on_beliefs]
        merged = merge(selection, alone, request.budget_tokens, request.limit, on_beliefs)
        listed = [*merged.selection.suppressed, *carried, *quotes.suppressed]
        answered = [e.memory.id for e in merged.selection.chosen]
        answered += [t.id for e in merged.episodes for t in (e.episode, *e.context)]
        answered += [t.id for e in merged.selection.chosen for t in e.context]
        left_out = [*filtered, *(said_all.keys() - {e.id for e in said_episodes})]
        swept = unaccounted([*current, *said_all], answered, (i for i, _ in listed), left_out)
        kept = replace(merged.selection, suppressed=first_reasons([*listed, *swept]))
        result = to_result(kept, signals, request.diagnostics)
        texts = {**{i: m.text for i, m in current.items()}, **{i: e.text for i, e in said_all.items()}}
        if request.format == "prompt":  # the beliefs; quotes are evidence, not part of the block
            result.prompt = render(result.memories, result.conflicts, result.confirmations)
        result.memories += [episode_item(e, request.diagnostics, now) for e in merged.episodes]
        newer = NewerFirst(self._store, scope, said, currency, now)
        shown = await newer.show(result, kept.suppressed, request.budget_tokens, request.diagnostics, quotes.verdicts.replaced)
        result.memories, folded, freed = fold_beliefs(result.memories, foldable(kept.chosen))
        result.tokens_used -= freed
        if request.diagnostics:
            result.suppressed += [SuppressedView(id=i, why=w) for i, w in folded]
        kept = replace(kept, suppressed=first_reasons([*shown, *folded]))
        result.notes = notes_of(result.memories, kept.suppressed, texts)
        if request.diagnostics:
            found = {m.id for m in hydrated}
            window = quotes.window
            result.diagnostics = RecallDiagnostics(
                preset=config.name,
                terms=terms,
                dense_candidates=len(dense),
                keyword_candidates=len(keyword),
                stale_candidates=sum(1 for i in signals if i not in found) + selection.dropped_stale,
                degraded=degraded,
                episode_dense_candidates=len(episode_dense),
                episode_keyword_candidates=len(episode_keyword),
                named_speakers=sorted(quotes.named),
                time_window=None if window is None else [window.start, window.end],
                ignored_dates=list(dates.ignored),
                superseded_episodes=[SuppressedView(id=i, why=w) for i, w in quotes.labelled],
                trust_policy=trust_policy(request, config, domains, kept.suppressed, impersonal),
            )
        await self._record(principal, scope, request, now, result.memories, kept.suppressed)
        recall_metrics().observe_result(len(result.memories), result.tokens_used, kept.suppressed)
        return result

    async def _invented_slot_mates(
        self, scope: RecallScope, currency: Currency, hydrated: Sequence[Memory]
    ) -> list[Memory]:
        """Slot-mates of hydrated memories whose attribute is outside the registry (an extractor may
        invent one; it is single-valued unless a known set), so their contradictions are seen whole."""
        invented = {m.attribute for m in hydrated if m.attribute and m.attribute not in ATTRIBUTES}
        invented = {a for a in invented if is_single_valued(a)}
        if not invented:
            return []
        seeds = [m.id for m in hydrated if m.attribute in invented]
        found = {m.id for m in hydrated}
        mates = await self._store.hydrate(scope, currency, seeds, tuple(sorted(invented)))
        return [m for m in mates if m.id not in found]

    async def _quotes(
        self,
        request: RecallRequest,
        config: RecallConfig,
        now: datetime,
        scope: RecallScope,
        said: Currency,
        signals: dict[str, Signals],
        episodes: list[Episode],
        known: Mapping[str, Memory],
        dates: DateReading,
        domains: frozenset[str],
        meaning: Meaning | None = None,
        impersonal: bool = False,
        asked: frozenset[str] = frozenset(),
    ) -> Quotes:
        """Score the hydrated episodes against the beliefs they produced; add their neighbours.
        `known`: memories this recall already read as current (at its confidence floor)."""
        if not episodes:
            return Quotes(EpisodeVerdicts([], [], []), frozenset(), None)
        current = await self._current_beliefs(scope, now, episodes, known=known)
        named = named_speakers(request.query, (e.speaker for e in episodes))
        window = dates.window
        verdicts = judge_episodes(
            episodes,
            signals,
            current,
            now,
            config,
            named=named,
            window=window,
            include_untrusted=request.include_untrusted_evidence,
            suppress_superseded=request.superseded_episodes == "suppress",
            gates=item_gates(request, config, domains, meaning, asked),
            impersonal=impersonal,
        )
        if request.context_turns and verdicts.entries:
            best = sorted(verdicts.entries, key=lambda e: -e.score.value)[: request.limit]
            around = await self._store.episode_neighbours(scope, said, [e.episode.id for e in best], request.context_turns)
            around = {i: [e for e in turns if filters.said_within(e, request)] for i, turns in around.items()}
            mates = [e for turns in around.values() for e in turns]
            current |= await self._current_beliefs(scope, now, mates, checked=current.keys() | _linked(episodes))
            offer_context(best, around, current, request.include_untrusted_evidence)
        return Quotes(verdicts, named, window)

    async def _current_beliefs(
        self,
        scope: RecallScope,
        now: datetime,
        episodes: Sequence[Episode],
        checked: Collection[str] = (),
        known: Mapping[str, Memory] | None = None,
    ) -> dict[str, Memory]:
        """The still-current beliefs (not superseded, revoked, expired) the episodes produced, by id;
        those in `checked` are not read again, those in `known` (current at a floor at least as
        strict, read by this recall) are taken from there."""
        linked = [i for i in _linked(episodes) if i not in checked]
        found = {i: known[i] for i in linked if known and i in known}
        missing = [i for i in linked if i not in found]
        if not missing:
            return found
        any_confidence = Currency(now=now, confidence_floor=0.0)
        return found | {m.id: m for m in await self._store.hydrate(scope, any_confidence, missing, ())}

    async def _dense(
        self,
        embedding: np.ndarray | asyncio.Future[np.ndarray] | None,
        scope: RecallScope,
        limit: int,
        degraded: list[str],
        quoting: bool,
    ) -> tuple[list[VectorHit], list[VectorHit]]:
        """Memory hits and episode hits of the query's embedding (`QueryEmbedder.ask`; None: no query)."""
        if embedding is None:
            return [], []
        try:
            vector = await vector_of(embedding)
            searches = [self._vectors.search(vector, scope.vector_filter(), limit)]
            if quoting:
                searches.append(self._vectors.search(vector, scope.vector_filter(kinds=(EPISODE_KIND,)), limit))
            found = await gather_all(*searches)
            return found[0], (found[1] if quoting else [])
        except BeliefstreamError as exc:  # SinkError of the index, EmbedderUnavailableError
            logger.warning("recall without dense candidates: %s", exc)
            degraded.append("dense")
            return [], []

    async def _keyword(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        if not terms:
            return []
        return await self._store.keyword_candidates(scope, currency, terms, limit)

    async def _episode_keyword(
        self, scope: RecallScope, currency: Currency, terms: Sequence[str], limit: int
    ) -> list[KeywordHit]:
        if not terms or limit <= 0:
            return []
        return await self._store.episode_keyword_candidates(scope, currency, terms, limit)

    async def _hydrate_episodes(self, scope: RecallScope, currency: Currency, ids: list[str]) -> list[Episode]:
        if not ids:
            return []
        return await self._store.hydrate_episodes(scope, currency, ids)

    async def _record(
        self,
        principal: Principal,
        scope: RecallScope,
        request: RecallRequest,
        now: datetime,
        items: list[RecalledMemory],
        withheld: Sequence[tuple[str, str]],
    ) -> None:
        """Access counts of the beliefs returned (buffered); the audit of every belief and quote
        returned (the quotes carried as a belief's evidence too), with its score and reason, and of
        what was withheld, stored before the answer leaves."""
        ids = [m.id for m in items if m.type != "episode"]
        if self._access is not None and ids:
            self._access.record(ids)
        if self._audit is not None:  # validated in one call: a model per item costs the loop more
            record = {
                "id": uuid.uuid4().hex,
                "tenant_id": scope.tenant_id,
                "user_id": scope.user_id,
                "agent_id": scope.agent_id,
                "key_id": principal.key_id,
                "at": now,
                "query_digest": query_digest(request.query),
                "memory_ids": ids,
                "episode_ids": [
                    *(m.id for m in items if m.type == "episode"),
                    *(e.episode_id for m in items for e in m.evidence),
                ],
                "returned": [
                    {
                        "id": m.id,
                        "kind": "episode" if m.type == "episode" else "memory",
                        "score": m.score,
                        "reason": m.recall_reason,
                    }
                    for m in items
                ],
                "withheld": [{"id": i, "why": why} for i, why in withheld],
            }
            await self._audit.write(RecallAudit.model_validate(record))


def _linked(episodes: Sequence[Episode]) -> list[str]:
    return list(dict.fromkeys(i for e in episodes for i in e.memory_ids))
