"""`beliefstream publish` reads any line without raising: issue 12 bug 1 saw a traceback on one."""

from __future__ import annotations

import json

from hostile_records import hostile_values

from launch.cli import main
from streams.publish import MAX_RECORD_BYTES, keyed_line, too_large_letter


def test_every_hostile_line_is_keyed_or_passed_on_as_it_is() -> None:
    for _, value, _ in hostile_values("acme", "u-1"):
        key, out, parsed = keyed_line(value, "acme")  # --tenant makes it re-encode the parsed ones
        assert isinstance(out, bytes) and (parsed or out == value)


def test_a_lone_surrogate_stays_escaped_when_the_tenant_is_filled_in() -> None:
    line = b'{"turn_id": "t", "user_id": "u-1", "role": "user", "text": "I like \\ud800 tea."}'
    key, out, parsed = keyed_line(line, "acme")
    assert parsed and key == b"acme:u-1" and b"\\ud800" in out
    assert json.loads(out)["tenant_id"] == "acme"


def test_a_line_nested_too_deep_goes_out_unparsed() -> None:
    line = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    assert keyed_line(line, "acme") == (None, line, False)


def test_the_dead_letter_of_a_too_large_line_keeps_its_start_and_says_why() -> None:
    line = b'{"text": "' + b"x" * (2 * MAX_RECORD_BYTES) + b'"}'
    letter = too_large_letter(line, b"acme:u-1", "beliefstream.turns")
    assert letter.reason == "too_large" and str(len(line)) in letter.detail
    assert letter.raw.startswith('{"text": "xxx') and len(letter.raw) <= 4096


def test_publishing_a_missing_file_is_one_clear_line(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["publish", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"beliefstream: no such file: {tmp_path / 'nope.jsonl'}"
