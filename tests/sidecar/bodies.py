"""Keys and bodies shared by the governance tests of the sidecar."""

from __future__ import annotations

from sinks.base import VectorFilter

ACME = {"Authorization": "Bearer key-acme"}
OTHER = {"Authorization": "Bearer key-other"}
BOT = {"Authorization": "Bearer key-bot"}
BOT_MANAGER = {"Authorization": "Bearer key-bot-manager"}  # agent bot, granted `manage`


def editor(value: str = "vim", **fields) -> dict:
    """A `POST /v1/memories` body: acme's u-1 prefers `value` as editor (a single-valued slot)."""
    body = {
        "user_id": "u-1",
        "text": f"The user prefers {value} as their editor.",
        "type": "preference",
        "topic": "tech",
        "importance": 0.7,
        "confidence": 0.9,
        "entity": "user",
        "attribute": "preferred_editor",
        "value": value,
    }
    return body | fields


async def active_hits(
    vectors, minilm, text: str, tenant: str = "acme", user: str = "u-1", **scope
) -> list[str]:
    """Ids of the points an active-only (or `states=`) vector search finds for `text`."""
    [query] = await minilm.aembed([text])
    hits = await vectors.search(query.tolist(), VectorFilter(tenant, user, **scope), limit=10)
    return [hit.id for hit in hits]
