"""`beliefstream export`, `import` and `reindex` from the command line, on SQLite data dirs and the
embedded index: a round trip, a second import that adds nothing, a damaged index found and healed,
and one-line errors."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from beliefs.records import MemoryState
from launch.cli import main
from sinks.base import VectorPoint
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from tests.sinks.episode_builders import kept
from tests.sinks.episode_builders import said as said_turn
from tests.sinks.store_builders import mem, said

DIM = 384


def unit(seed: int) -> list[float]:
    vector = np.random.default_rng(seed).standard_normal(DIM)
    return (vector / np.linalg.norm(vector)).tolist()


async def seed(data_dir: Path) -> None:
    """acme's u1: a superseded and a current preference, a revoked fact, an episode; beta's u9: one fact."""
    store = SqlMemoryStore(f"sqlite+aiosqlite:///{(data_dir / 'memory.db').as_posix()}")
    await store.setup()
    try:
        await store.write([replace(said("acme", value), embeddings=[unit(n)]) for n, value in ((1, "mornings"), (2, "afternoons"))])
        turn = said_turn("acme", "I like tea and I'm allergic to nuts")
        tea, nuts = mem(turn, "tea", text="User likes tea"), mem(turn, "nuts", text="User is allergic to nuts")
        await store.write([replace(kept(turn, tea, nuts, embedding=unit(5)), embeddings=[unit(3), unit(4)])])
        await store.revoke("acme", nuts.id, turn.ts)
        oslo = said_turn("beta", "I live in Oslo", user="u9")
        lives = mem(oslo, text="User lives in Oslo")
        await store.write([replace(kept(oslo, lives, embedding=unit(6)), embeddings=[unit(7)])])
    finally:
        await store.close()


@pytest.fixture
def dirs(tmp_path, monkeypatch) -> tuple[Path, Path]:
    for name in ("BELIEFSTREAM_SQL_URL", "BELIEFSTREAM_QDRANT_URL", "BELIEFSTREAM_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    source, target = tmp_path / "source", tmp_path / "target"
    source.mkdir()
    asyncio.run(seed(source))
    return source, target


def test_export_import_twice_export_again_is_identical(dirs, tmp_path, capsys):
    source, target = dirs
    out, again = tmp_path / "all.jsonl", tmp_path / "again.jsonl"

    assert main(["export", "--data-dir", str(source), "--out", str(out)]) == 0
    assert "exported 5 memories, 0 contested pairs and 2 episodes of 2 user(s)" in capsys.readouterr().err
    assert main(["import", str(out), "--data-dir", str(target)]) == 0
    assert "imported 5 memories, 2 episodes and 0 contested pairs" in capsys.readouterr().out
    assert main(["import", str(out), "--data-dir", str(target)]) == 0
    assert "imported 0 memories, 0 episodes and 0 contested pairs" in capsys.readouterr().out
    assert main(["export", "--data-dir", str(target), "--out", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()

    one = tmp_path / "one.jsonl"
    assert main(["export", "--data-dir", str(target), "--tenant", "acme", "--user", "u1", "--out", str(one)]) == 0
    text = one.read_text()
    assert '"tenant_id":"beta"' not in text and f'"state":"{MemoryState.REVOKED.value}"' in text


def test_reindex_builds_the_index_then_verify_finds_and_heals_damage(dirs, tmp_path, capsys):
    source, _ = dirs
    assert main(["reindex", "--data-dir", str(source)]) == 0
    assert "rebuilt: 7 points written from SQL, 0 extra points deleted" in capsys.readouterr().out
    assert main(["reindex", "--verify", "--data-dir", str(source)]) == 0
    assert "0 missing, 0 extra, 0 stale, 0 stale_vector" in capsys.readouterr().out
    gone, zeroed = asyncio.run(damage(source / "vectors"))

    assert main(["reindex", "--verify", "--dry-run", "--data-dir", str(source)]) == 1
    out = capsys.readouterr().out
    assert f"missing {gone}" in out and f"stale_vector {zeroed}" in out and "nothing changed (--dry-run)" in out
    assert main(["reindex", "--verify", "--data-dir", str(source)]) == 0
    assert "1 missing, 0 extra, 0 stale, 1 stale_vector; healed (2 written, 0 deleted)" in capsys.readouterr().out
    assert main(["reindex", "--verify", "--data-dir", str(source)]) == 0
    assert "0 missing, 0 extra, 0 stale, 0 stale_vector" in capsys.readouterr().out


async def damage(path: Path) -> tuple[str, str]:
    """One point deleted, another's vector zeroed (its payload kept): the ids of both."""
    index = EdgeVectorIndex(path)
    await index.setup()
    try:
        points, _ = await index.scroll(None, 2, with_vectors=True)
        await index.delete([points[0].id])
        await index.write([VectorPoint(points[1].id, [0.0] * len(points[1].vector), points[1].payload)])
    finally:
        await index.close()
    return points[0].id, points[1].id


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["import", "no-such.jsonl"], "no such file: no-such.jsonl"),
        (["export", "--user", "nobody"], "no memories or episodes of user 'nobody' in any tenant"),
        (["reindex", "--dry-run"], "--dry-run goes with --verify"),
    ],
)
def test_mistakes_fail_with_one_line(dirs, argv, says, capsys):
    source, _ = dirs
    assert main([*argv, "--data-dir", str(source)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_a_file_cut_short_is_refused_before_anything_is_written(dirs, tmp_path, capsys):
    source, target = dirs
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    assert main(["export", "--data-dir", str(source), "--out", str(whole)]) == 0
    cut.write_text("".join(whole.read_text().splitlines(keepends=True)[:-1]))
    capsys.readouterr()
    assert main(["import", str(cut), "--data-dir", str(target)]) == 2
    assert "without its end line: it was cut short" in capsys.readouterr().err
    assert main(["export", "--data-dir", str(target)]) == 0
    assert "exported 0 memories" in capsys.readouterr().err


def test_a_file_that_is_not_an_export_is_refused_with_its_line(dirs, tmp_path, capsys):
    _, target = dirs
    turns = tmp_path / "turns.jsonl"
    turns.write_text('{"turn_id": "t-1", "user_id": "u", "role": "user", "text": "hi"}\n')
    assert main(["import", str(turns), "--data-dir", str(target)]) == 2
    err = capsys.readouterr().err
    assert "line 1:" in err and err.count("\n") == 1
