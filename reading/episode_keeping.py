"""Which turns are kept as episodes, and with what trust: the one place that decides both.

An episode is a turn as it was said, after strip and secret redaction. Unlike a memory, a question,
a passing state or an assistant's answer is kept: each is evidence of what happened in the
conversation. Only content-free text (empty, greetings, thanks, "ok", emoji, a lone secret, a test
row) is not. Trust says whether recall may show an episode by default; the role says whose words
they are, so an assistant's episode is never a claim about the user.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from beliefs.episodes import Episode, episode_id_for
from beliefs.records import Role, Trust, Turn, Visibility
from reading.extract.text import sentence_spans
from reading.junk import (
    ACKNOWLEDGEMENT,
    EMOJI_ONLY,
    EMPTY,
    GREETING,
    PLEASANTRY,
    RAW_DUMP,
    SECRET_ONLY,
    TEST_ROW,
    sentence_junk_reason,
    whole_turn_reason,
)
from reading.provenance import Provenance

#: Junk reasons that mean the text says nothing worth keeping, whoever said it.
CONTENT_FREE = frozenset({EMPTY, GREETING, PLEASANTRY, ACKNOWLEDGEMENT, EMOJI_ONLY, SECRET_ONLY, TEST_ROW})


def content_free_reason(text: str, role: Role, junk_reason: str | None) -> str | None:
    """Why the cleaned text is not kept as an episode, or None to keep it.

    `junk_reason` is the memory path's verdict on the same text: a user turn that is not junk
    carries something, so the sentences are only read again when it is (or for other roles,
    which the memory path rejects by role alone).
    """
    if role is Role.USER and junk_reason is None:
        return None
    stripped = text.strip()
    whole = whole_turn_reason(stripped, Role.USER)  # the content checks, whoever spoke
    if whole is not None:
        return whole if whole in CONTENT_FREE else None
    reasons = [sentence_junk_reason(stripped[left:right]) for left, right in sentence_spans(stripped)]
    if not reasons or any(reason not in CONTENT_FREE for reason in reasons):
        return None if reasons else EMPTY
    return next((reason for reason in reasons if reason != EMOJI_ONLY), EMOJI_ONLY)


def episode_trust(
    turn: Turn, text: str, junk_reason: str | None, provenance: Provenance | None = None
) -> Trust:
    """The trust of an episode: the single place it is decided.

    - the user's own words are `trusted` evidence of what the user said, capped by the turn's
      `provenance` (`reading.provenance`: quoted, pasted or forwarded content, a directive about the
      user, an instruction addressed to an AI); pasted material (code, JSON, a stack trace:
      `raw_dump`) is `untrusted`;
    - an assistant's words are `caution`: a faithful record of what was said to the user, never
      a claim about the user (the role says so);
    - tool output and system text are `untrusted`: external or instruction content, the usual
      carrier of injected instructions, kept but never shown unless asked for.
    """
    if turn.role is Role.USER:
        trust = Trust.UNTRUSTED if junk_reason == RAW_DUMP else Trust.TRUSTED
        return provenance.cap(trust) if provenance is not None else trust
    if turn.role is Role.ASSISTANT:
        return Trust.CAUTION
    return Trust.UNTRUSTED


def _visibility(turn: Turn) -> Visibility:
    if turn.metadata.get("visibility") == Visibility.AGENT.value and turn.agent_id:
        return Visibility.AGENT
    return Visibility.USER


def episode_of(
    turn: Turn,
    text: str,
    junk_reason: str | None,
    now: datetime,
    retention_days: float = 0.0,
    provenance: Provenance | None = None,
) -> Episode:
    """The episode of a turn whose cleaned text is `text` (memory links are added at write time).

    With `retention_days` > 0 it expires that many days after it was said; `provenance` is the
    whole turn's (`reading.provenance.provenance_of`), which caps a user episode's trust.
    """
    return Episode(
        id=episode_id_for(turn.tenant_id, turn.turn_id),
        tenant_id=turn.tenant_id,
        user_id=turn.user_id,
        agent_id=turn.agent_id,
        visibility=_visibility(turn),
        session_id=turn.session_id,
        workspace_id=turn.workspace_id,
        turn_id=turn.turn_id,
        role=turn.role,
        speaker=turn.speaker,
        text=text.strip(),
        said_at=turn.ts,
        created_at=now,
        trust=episode_trust(turn, text, junk_reason, provenance),
        expires_at=turn.ts + timedelta(days=retention_days) if retention_days > 0 else None,
    )
