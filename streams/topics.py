"""The topics, declared once per app and handed to the agents."""

from __future__ import annotations

from dataclasses import dataclass

import faust

from streams.settings import Settings


@dataclass(frozen=True)
class Topics:
    turns: faust.TopicT  # in: conversation turns, keyed "tenant:user"
    dlq: faust.TopicT  # out: turns that could not be processed, with the reason
    events: faust.TopicT  # out: created / confirmed / superseded / revoked
    audit: faust.TopicT  # out: one record per recall
    escalations: faust.TopicT  # out: contradiction loops awaiting a person


def declare_topics(app: faust.App, settings: Settings) -> Topics:
    """Raw bytes in and out: decoding is a pipeline step, so bad input reaches the DLQ."""

    def topic(name: str) -> faust.TopicT:
        return app.topic(
            name,
            key_type=bytes,
            value_type=bytes,
            key_serializer="raw",
            value_serializer="raw",
            partitions=settings.topic_partitions,
        )

    return Topics(
        turns=topic(settings.turns_topic),
        dlq=topic(settings.dlq_topic),
        events=topic(settings.events_topic),
        audit=topic(settings.audit_topic),
        escalations=topic(settings.escalations_topic),
    )
