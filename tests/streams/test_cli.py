"""The CLI explains itself to a newcomer and fails with a sentence, not a traceback."""

import pytest

from streams.cli import build_parser, main


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("dev", "worker", "sidecar", "publish", "mcp", "migrate"):
        assert command in out


def test_mcp_without_a_key_says_how_to_get_one(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BELIEFSTREAM_API_KEYS", raising=False)
    assert main(["mcp", "--data-dir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # stdout belongs to the MCP protocol
    assert "no API key" in captured.err and "--key" in captured.err


def test_publish_without_a_broker_says_how_to_get_one(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BELIEFSTREAM_BROKER", raising=False)
    turns = tmp_path / "turns.jsonl"
    turns.write_text("{}\n")
    assert main(["publish", str(turns), "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "BELIEFSTREAM_BROKER" in err and "beliefstream dev" in err


def test_migrate_creates_the_schema(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("BELIEFSTREAM_SQL_URL", raising=False)
    assert main(["migrate", "--data-dir", str(tmp_path)]) == 0
    assert (tmp_path / "memory.db").exists()
    assert "migrated" in capsys.readouterr().out
