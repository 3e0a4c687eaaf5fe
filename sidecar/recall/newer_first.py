"""A possibly superseded item never comes alone: the newer statement comes first, both dated (pure).

When the rules could not decide whether a later statement replaced an earlier one
(`beliefs.supersession`: a possible link), the earlier item is labelled `possibly_superseded` and
names the newer one (`superseded_by`, `superseded_at`). The answer then shows the newer statement
right before it, whether or not the query found the newer one relevant enough by itself: a
question about the office asked as "book me a taxi to the office" may sit closer to the old address
than to the sentence that moved it. The newer one is quoted as said (an episode: the user's words
and their date), fetched (`fetch_newer`, the one step that reads the store) when the answer does not
hold it already. The rest is pure.

A quote a later statement replaced outright is suppressed, never shown; when the query found it
relevant, the statement that replaced it answers in its place, even under the similarity floor
("Marmalade died" says little of "do we have any pets?", the cat's first mention a lot).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from beliefs.confidence import QUOTE_CONFIDENCE
from beliefs.episodes import Episode, episode_id_for
from sidecar.recall import currency
from sidecar.recall.budget import estimate_tokens
from sidecar.recall.evidence import quote_of
from sidecar.recall.models import RecalledMemory, RecallResult
from sinks.recall import Currency, RecallScope, RecallStore

#: The why of a newer statement brought in for an item it may have replaced.
NEWER_REASON = "the later statement that may have replaced {older} (said on {date}): shown first"

#: The why of the statement that replaced a relevant, suppressed quote.
REPLACING_REASON = "the later statement that replaced {older} (a relevant quote, suppressed as replaced): shown in its place"

#: Suppressions that only say the item was not relevant or did not fit: a newer statement so left
#: out is still shown before the item it may have replaced. Any other reason (a gate) keeps it out.
_ONLY_UNRANKED = ("below the similarity floor", "over the token budget", "over the limit", "quoted as context")


def _newer_of(item: RecalledMemory) -> str | None:
    return item.superseded_by if item.possibly_superseded and not item.superseded else None


def _holds(items: Sequence[RecalledMemory], newer: str, turn_id: str | None = None) -> int | None:
    """The index of the item that is `newer`, carries it as its evidence, or cites its turn (`turn_id`:
    a quote's context, a belief drawn from that turn)."""
    for index, item in enumerate(items):
        if item.id == newer or any(quote.episode_id == newer for quote in item.evidence):
            return index
        if turn_id is not None and turn_id in item.citations:  # a quote showing it, a belief drawn from it
            return index
    return None


def missing_newer(items: Sequence[RecalledMemory], suppressed: Sequence[tuple[str, str]]) -> list[str]:
    """The newer ids of the answer's possibly superseded items that the answer does not hold and no
    gate withheld (left out only as irrelevant or over the budget), in answer order."""
    gated = {i for i, why in suppressed if not why.startswith(_ONLY_UNRANKED)}
    out: list[str] = []
    for item in items:
        newer = _newer_of(item)
        if newer is not None and newer not in gated and newer not in out and _holds(items, newer) is None:
            out.append(newer)
    return out


def replacing(
    items: Sequence[RecalledMemory], suppressed: Sequence[tuple[str, str]], replaced: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """(older, newer) of the relevant replaced quotes whose replacing statement the answer does not
    hold and no gate withheld, in order, each newer once."""
    gated = {i for i, why in suppressed if not why.startswith(_ONLY_UNRANKED)}
    out: list[tuple[str, str]] = []
    for older, newer in replaced:
        if newer not in gated and newer not in {n for _, n in out} and _holds(items, newer) is None:
            out.append((older, newer))
    return out


def replacing_quotes(
    items: Sequence[RecalledMemory], wanted: Sequence[tuple[str, str]], fetched: Mapping[str, Episode],
    now: datetime | None, room: int | None,
) -> tuple[list[RecalledMemory], int]:
    """The answer with the fetched replacing statements appended while they fit in `room` tokens (a
    current one only: never a statement replaced in turn), and the tokens they cost."""
    out = list(items)
    added = 0
    for older, newer in wanted:
        episode = fetched.get(newer)
        if episode is None or episode.superseded_by or _holds(out, episode.id, episode.turn_id) is not None:
            continue
        cost = estimate_tokens(episode.text)
        if room is not None and added + cost > room:
            continue
        labels = currency.of_episode(episode, beliefs_gone=False)
        out.append(quote_of(
            episode, labels, confidence=QUOTE_CONFIDENCE[episode.trust], effective_confidence=QUOTE_CONFIDENCE[episode.trust],
            score=0.0, recall_reason=REPLACING_REASON.format(older=older), citations=[episode.turn_id], recalled_at=now,
        ))  # fmt: skip
        added += cost
    return out, added


def newer_quote(episode: Episode, older: RecalledMemory, now: datetime | None) -> RecalledMemory:
    """The quote of a newer statement brought in for `older`, dated, ranked just above it."""
    labels = currency.of_episode(episode, beliefs_gone=False)
    when = episode.said_at.date().isoformat()
    return quote_of(
        episode,
        labels,
        confidence=older.confidence,
        effective_confidence=older.effective_confidence,
        score=older.score,
        recall_reason=NEWER_REASON.format(older=older.id, date=when),
        citations=[episode.turn_id],
        recalled_at=now,
    )


def newer_first(
    items: Sequence[RecalledMemory], fetched: Mapping[str, Episode], now: datetime | None = None, room: int | None = None
) -> tuple[list[RecalledMemory], int]:
    """The answer with each possibly superseded item preceded by its newer statement: moved up when
    the answer holds it, else the fetched quote (`fetched`: newer id -> its episode) inserted while
    the quotes fit in `room` tokens (what the budget has left: a newer statement never displaces what
    relevance chose). Also the tokens the inserted quotes cost."""
    out = list(items)
    added = 0
    index = 0
    while index < len(out):
        item = out[index]
        newer = _newer_of(item)
        if newer is None:
            index += 1
            continue
        episode = fetched.get(newer)
        cost = estimate_tokens(episode.text) if episode is not None else 0  # of quoting it, once
        at = _holds(out, newer)
        if at is None and episode is not None:  # fetched: the turn of a newer belief, or one another quote shows
            at = _holds(out, episode.id, episode.turn_id)
        if at == index and episode is not None:  # the older quotes it as context: shown as its own item instead
            context = [t for t in item.context if t.turn_id != episode.turn_id]
            citations = [c for c in item.citations if c != episode.turn_id]
            item = out[index] = item.model_copy(update={"context": context, "citations": citations})
            added -= cost
            at = None
        fits = episode is not None and (room is None or added + cost <= room)
        if at is None and fits and not episode.superseded_by:
            out.insert(index, newer_quote(episode, item, now))
            added += cost
            index += 2
        elif at is not None and at > index:
            out.insert(index, out.pop(at))
            index += 2
        else:
            index += 1
    return out, added


async def fetch_newer(
    store: RecallStore, scope: RecallScope, said: Currency, current: Currency, ids: Sequence[str]
) -> dict[str, Episode]:
    """Newer id -> the episode to quote for it: the episode itself, or for a newer belief the turn it
    was drawn from (its first source turn), as this recall's hard filters allow (`said` for quotes,
    `current` for beliefs)."""
    if not ids:
        return {}
    found = {e.id: e for e in await store.hydrate_episodes(scope, said, list(ids))}
    rest = [i for i in ids if i not in found]
    if rest:
        memories = await store.hydrate(scope, current, rest, ())
        turns = {
            episode_id_for(scope.tenant_id, m.source_turn_ids[0]): m.id for m in memories if m.source_turn_ids
        }
        for episode in await store.hydrate_episodes(scope, said, list(turns)):
            found[turns[episode.id]] = episode
    return found


@dataclass(frozen=True)
class NewerFirst:
    """The recall's step: fetch the newer statements the answer lacks, show each first, keep the budget."""

    store: RecallStore
    scope: RecallScope
    said: Currency  # the filters quotes pass
    current: Currency  # the filters beliefs pass
    now: datetime

    async def show(
        self, result: RecallResult, suppressed: Sequence[tuple[str, str]], budget_tokens: int, diagnostics: bool,
        replaced: Sequence[tuple[str, str]] = (),
    ) -> list[tuple[str, str]]:
        """Reorder (and fill, within the budget's room) `result.memories` in place; answer the
        suppressions without what is now shown (`result.suppressed` follows when `diagnostics`).
        `replaced`: (older, newer) of relevant quotes suppressed as replaced (`episodes.judge_episodes`)."""
        wanted = replacing(result.memories, suppressed, replaced)
        ids = [*missing_newer(result.memories, suppressed), *(n for _, n in wanted)]
        fetched = await fetch_newer(self.store, self.scope, self.said, self.current, list(dict.fromkeys(ids)))
        room = max(0, budget_tokens - result.tokens_used)
        result.memories, added = newer_first(result.memories, fetched, self.now, room)
        result.memories, more = replacing_quotes(result.memories, wanted, fetched, self.now, room - added)
        added += more
        if not added:
            return list(suppressed)
        result.tokens_used += added
        shown = {m.id for m in result.memories}
        if diagnostics:
            result.suppressed = [s for s in result.suppressed if s.id not in shown]
        return [(i, w) for i, w in suppressed if i not in shown]
