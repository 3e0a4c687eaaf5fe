"""The one builder of dead letters: a record that cannot be a turn, as `beliefstream.turns.dlq` keeps it.

Both roads to the DLQ come here: the worker's rejections (`agents.batch.dead_letter`) and the lines
`beliefstream publish` finds too large for the broker (`streams.publish`). A dead letter keeps why
(reason, detail), where it came from (key, topic, partition, offset) and the value with every
secret redacted (`reading.secrets.documents`), the kinds removed listed in `redacted`. The key is
redacted too, and the DLQ record's Kafka key is that redacted key (`kafka_key`), never the raw one.

The raw bytes are not needed to reprocess a rejected record: it was rejected because it cannot be
a turn as it stands (not JSON, a role that does not exist, a field past its bounds), so it is
never replayed from the DLQ as it is; its producer sends a corrected turn. What an operator needs
to find and fix the producer is kept, and the original record stays on its source topic, at the
offset the letter names, for that topic's retention.
"""

from __future__ import annotations

from beliefs.records import DeadLetter
from reading.secrets import redact_secrets
from reading.secrets.documents import redact_document


def dead_letter(
    reason: str,
    detail: str,
    value: bytes | None,
    key: bytes | None = None,
    *,
    topic: str | None = None,
    partition: int | None = None,
    offset: int | None = None,
    keep_bytes: int | None = None,
) -> DeadLetter:
    """The dead letter of `value`, redacted before it is cut to its first `keep_bytes` (a secret is
    never half kept at the cut)."""
    raw, kinds = redact_document((value or b"").decode("utf-8", errors="replace"))
    detail, detail_kinds = redact_secrets(detail)
    shown_key, key_kinds = redact_secrets(key.decode("utf-8", errors="replace")) if key is not None else (None, [])
    if keep_bytes is not None:
        raw = raw.encode("utf-8")[:keep_bytes].decode("utf-8", errors="ignore")
    return DeadLetter(
        reason=reason,
        detail=detail,
        raw=raw,
        key=shown_key,
        source_topic=topic,
        source_partition=partition,
        source_offset=offset,
        redacted=list(dict.fromkeys([*kinds, *detail_kinds, *key_kinds])),
    )


def kafka_key(letter: DeadLetter) -> bytes | None:
    """The Kafka key of the letter's DLQ record: its redacted key (the raw key may hold a secret too)."""
    return letter.key.encode("utf-8") if letter.key is not None else None
