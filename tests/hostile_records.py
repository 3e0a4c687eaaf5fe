"""A corpus of hostile Kafka values of our own: each is one bad record and must go to the DLQ.

`hostile_values(tenant, user)` gives (name, value bytes, expected DLQ reason); the values are to be
keyed like ordinary turns of that tenant and user (`tenant:user`), so a test can mix them into good
traffic; two are good turns of another tenant or user, which that key makes bad.
"""

from __future__ import annotations

import json

from beliefs.bounds import MAX_METADATA_DEPTH, MAX_METADATA_ITEMS, MAX_SPEAKER_CHARS


def _turn(tenant: str, user: str, turn_id: str, **fields: object) -> dict:
    return {"turn_id": turn_id, "tenant_id": tenant, "user_id": user, "role": "user", "text": "I like tea.", **fields}


def _json(document: object) -> bytes:
    return json.dumps(document).encode()  # ensure_ascii: a lone surrogate travels as \\udXXX


def _nested(depth: int, leaf: str = "1", opener: str = '{"a":', closer: str = "}") -> str:
    return opener * depth + leaf + closer * depth


def hostile_values(tenant: str, user: str, max_text_bytes: int = 64 * 1024) -> list[tuple[str, bytes, str]]:
    """Every form of bad record we know, with the reason the pipeline must give."""
    t = lambda name, **fields: _turn(tenant, user, f"bad-{name}", **fields)  # noqa: E731
    head = json.dumps(t("deep-metadata"))[:-1]
    return [
        ("surrogate-text", _json(t("surrogate-text", text="I like \ud800 tea.")), "invalid_text"),
        ("surrogate-low-text", _json(t("surrogate-low", text="tea \udfff")), "invalid_text"),
        ("surrogate-speaker", _json(t("surrogate-speaker", metadata={"speaker": "Bob\ud800"})), "invalid_text"),
        ("surrogate-metadata-key", _json(t("surrogate-key", metadata={"k\udc00": 1})), "invalid_text"),
        ("surrogate-turn-id", _json(_turn(tenant, user, "id-\ud801")), "invalid_text"),
        ("nul-text", _json(t("nul-text", text="I like \x00 tea.")), "invalid_text"),
        ("nul-user", _json(_turn(tenant, "u\x00x", "bad-nul-user")), "invalid_text"),
        ("metadata-100k-deep", (head + ',"metadata":' + _nested(100_000) + "}").encode(), "too_deep"),
        ("list-100k-deep", (head + ',"metadata":{"x":' + _nested(100_000, "1", "[", "]") + "}}").encode(), "too_deep"),
        ("metadata-past-depth", _json(t("depth", metadata=json.loads(_nested(MAX_METADATA_DEPTH + 1)))), "too_deep"),
        ("metadata-many-items", _json(t("items", metadata={"k": list(range(MAX_METADATA_ITEMS + 1))})), "too_large"),
        ("metadata-huge", _json(t("huge-meta", metadata={"blob": "x" * 40_000})), "too_large"),
        ("speaker-100k", _json(t("speaker-100k", metadata={"speaker": "B" * 100_000})), "too_large"),
        ("speaker-past-limit", _json(t("speaker-129", metadata={"speaker": "B" * (MAX_SPEAKER_CHARS + 1)})), "too_large"),
        ("speaker-not-string", _json(t("speaker-int", metadata={"speaker": 42})), "invalid_field"),
        ("text-too-large", _json(t("big-text", text="x" * (max_text_bytes + 1))), "text_too_large"),
        ("id-too-long", _json(_turn(tenant, user, "x" * 300)), "invalid_field"),
        ("huge-integer", (head + ',"metadata":{"n":' + "9" * 5000 + "}}").encode(), "invalid_json"),
        ("nan", (head + ',"metadata":{"n":NaN}}').encode(), "invalid_json"),
        ("infinity", (head + ',"metadata":{"n":-Infinity}}').encode(), "invalid_json"),
        ("not-json", b"{this is not json", "invalid_json"),
        ("truncated", _json(t("truncated"))[:-5], "invalid_json"),
        ("not-utf8", b'{"text": "\xff\xfe"}', "invalid_utf8"),
        ("array", b"[1, 2, 3]", "not_an_object"),
        ("string", b'"just a string"', "not_an_object"),
        ("number", b"42", "not_an_object"),
        ("null", b"null", "not_an_object"),
        ("empty", b"", "invalid_json"),
        ("text-number", _json(t("text-number", text=42)), "invalid_field"),
        ("text-object", _json(t("text-object", text={"a": 1})), "invalid_field"),
        ("metadata-list", _json(t("metadata-list", metadata=[1, 2])), "invalid_field"),
        ("role-unknown", _json(t("role", role="narrator")), "unknown_role"),
        ("role-number", _json(t("role-num", role=1)), "unknown_role"),
        ("ts-garbage", _json(t("ts", ts="yesterday-ish")), "invalid_field"),
        ("ts-year-99999", _json(t("ts-far", ts="99999-01-01T00:00:00Z")), "invalid_field"),
        ("missing-user", _json({"turn_id": "bad-missing", "tenant_id": tenant, "role": "user", "text": "x"}),
         "missing_field"),
        ("tenant-number", _json({**t("tenant-num"), "tenant_id": 7}), "invalid_field"),
        # a well-formed turn whose value names another tenant (or user) than the record's key
        ("key-names-another-tenant", _json(_turn(f"{tenant}-other", user, "bad-other-tenant")), "key_mismatch"),
        ("key-names-another-user", _json(_turn(tenant, f"{user}-other", "bad-other-user")), "key_mismatch"),
    ]  # fmt: skip
