"""Issue 25, item 8: a dead letter keeps why and where, never a secret (`reading.dead_letter`)."""

from __future__ import annotations

import json

from reading.dead_letter import dead_letter, kafka_key
from streams.publish import DEAD_LETTER_KEEP_BYTES, too_large_letter

CARD = "4111 1111 1111 1111"
TURN = {"tenant_id": "acme", "user_id": "u-1", "turn_id": "t-1", "ts": "2026-11-27T10:00:00Z"}


def test_a_turn_rejected_for_its_role_keeps_neither_its_password_nor_its_card() -> None:
    value = json.dumps(TURN | {"role": "customer", "text": f"My password is hunter2, card {CARD}."}).encode()

    letter = dead_letter("unknown_role", "role must be one of user, assistant, system, tool", value, b"acme:u-1")

    assert "hunter2" not in letter.raw and CARD not in letter.raw
    assert letter.redacted == ["password", "card_number"]
    assert json.loads(letter.raw) == TURN | {
        "role": "customer", "text": "My password is [REDACTED:password], card [REDACTED:card_number]."
    }  # fmt: skip
    assert (letter.reason, letter.key) == ("unknown_role", "acme:u-1")


def test_a_secret_written_with_json_escapes_is_found_in_a_document_and_in_a_value_cut_short() -> None:
    escaped = json.dumps(TURN | {"role": "root", "text": f"card {CARD}"}).replace("1", "\\u0031").encode()

    whole = dead_letter("unknown_role", "", escaped)
    cut = dead_letter("invalid_json", "", escaped[:-2])

    assert whole.redacted == cut.redacted == ["card_number"]
    assert "[REDACTED:card_number]" in whole.raw and "[REDACTED:card_number]" in cut.raw


def test_secrets_in_metadata_and_in_the_documents_keys_are_redacted() -> None:
    value = json.dumps(TURN | {"role": "bot", "text": "hi", "metadata": {"note": f"card {CARD}"}, CARD: 1}).encode()

    letter = dead_letter("unknown_role", "", value)

    assert CARD not in letter.raw and letter.raw.count("[REDACTED:card_number]") == 2


def test_a_record_without_a_secret_is_kept_byte_for_byte() -> None:
    value = b'{"role":"customer",  "text":"I like \\u00e9clairs."}'

    letter = dead_letter("unknown_role", "", value)

    assert (letter.raw, letter.redacted) == (value.decode(), [])


def test_a_too_large_line_is_redacted_before_it_is_cut() -> None:
    # the card straddles the cut: cut first, the number left would not be a valid card any more
    padding = "x" * (DEAD_LETTER_KEEP_BYTES - len('{"text": "') - 10)
    line = json.dumps({"text": padding + f"card {CARD} " + "y" * 2_000_000}).encode()

    letter = too_large_letter(line, b"acme:u-1", "beliefstream.turns")

    assert letter.redacted == ["card_number"] and "4111 1111" not in letter.raw
    assert len(letter.raw.encode()) <= DEAD_LETTER_KEEP_BYTES


def test_a_secret_in_the_records_key_is_redacted_in_the_letter_and_its_kafka_key() -> None:
    value = json.dumps(TURN | {"role": "customer", "text": "hello"}).encode()

    letter = dead_letter("unknown_role", "role", value, f"acme:my password is hunter2 {CARD}".encode())

    assert "hunter2" not in letter.key and CARD not in letter.key
    assert kafka_key(letter) == letter.key.encode() and b"hunter2" not in kafka_key(letter)
    assert {"password", "card_number"} <= set(letter.redacted)
    assert kafka_key(dead_letter("not_json", "x", b"{", None)) is None
