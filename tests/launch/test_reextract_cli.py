"""`beliefstream reextract` from the command line: help, a dry run that writes nothing, one-line errors."""

from __future__ import annotations

import asyncio

import pytest

from launch.cli import main
from sinks.sql.store import SqlMemoryStore
from tests.launch.test_portability_cli import seed


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    for name in ("BELIEFSTREAM_SQL_URL", "BELIEFSTREAM_QDRANT_URL", "BELIEFSTREAM_DATA_DIR", "BELIEFSTREAM_API_KEYS",
                 "ANTHROPIC_API_KEY", "BELIEFSTREAM_ANTHROPIC_API_KEY", "BELIEFSTREAM_EXTRACTOR"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    asyncio.run(seed(tmp_path))
    return tmp_path


async def _counts(data_dir) -> tuple[int, int]:
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(data_dir / 'memory.db').as_posix()}")
    await store.setup()
    try:
        memories, _ = await store.list_memories("acme", "u1", state=None, limit=1000)
        return len(memories), len(await store.pending_events(limit=1000))
    finally:
        await store.close()


def test_help_names_every_flag(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["reextract", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--tenant", "--user", "--since", "--extractor", "--dry-run", "--tag"):
        assert flag in text


def test_a_dry_run_prints_the_changes_and_writes_nothing(data_dir, capsys) -> None:
    before = asyncio.run(_counts(data_dir))
    assert main(["reextract", "--data-dir", str(data_dir), "--tenant", "acme", "--user", "u1", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "[dry run]" in out and "turns read again" in out and "would be added" in out
    assert asyncio.run(_counts(data_dir)) == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--extractor", "anthropic"], "API key"),
        (["--since", "yesterday-ish"], "not a date"),
    ],
)
def test_errors_are_one_line(data_dir, capsys, argv, message) -> None:
    try:
        code = main(["reextract", "--data-dir", str(data_dir), "--tenant", "acme", *argv])
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if not line.startswith(("usage:", " "))]) == 1


def test_claude_reextraction_goes_through_one_message_batch(data_dir, capsys, monkeypatch, fake) -> None:
    from tests.llm.fake_anthropic import Reply

    fake.reset(default=Reply.memories())
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("BELIEFSTREAM_ANTHROPIC_BASE_URL", fake.url)
    argv = ["reextract", "--data-dir", str(data_dir), "--tenant", "acme", "--extractor", "anthropic", "--dry-run"]

    assert main(argv) == 0

    out = capsys.readouterr().out
    assert "reextract (anthropic, tag anthropic/extract-memories/3/" in out and "[dry run]" in out
    assert len(fake.batches) == 1 and fake.request_count >= 1  # one batch, each request answered in it
    (job_id,) = fake.batches
    assert f"Message Batches job {job_id} (submitted)" in out
    (batch,) = fake.batches.values()
    assert all(item["params"]["tool_choice"]["type"] == "tool" for item in batch["requests"])
