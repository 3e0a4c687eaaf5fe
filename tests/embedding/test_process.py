"""The model in a child process: the same vectors as in-process, in order, and a child that dies
is replaced instead of failing turns."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import numpy as np
import pytest

from embedding.embedder import Embedder, load_default_embedder
from embedding.errors import EmbedderUnavailableError
from embedding.process import ProcessEmbedder

TEXTS = ["I live in Lisbon.", "My daughter Maya starts school in September and loves drawing horses.", "ok", "I'm vegan."]


@pytest.fixture(scope="module")
def embedder() -> Iterator[ProcessEmbedder]:
    one_child = ProcessEmbedder(processes=1, threads=1)
    yield one_child
    one_child.close()


def test_gives_the_vectors_of_the_in_process_model_in_order(embedder: ProcessEmbedder) -> None:
    expected = load_default_embedder().embed(TEXTS)
    got = embedder.embed(TEXTS)
    assert isinstance(embedder, Embedder) and got.dtype == np.float32 and got.shape == (4, embedder.dim)
    np.testing.assert_allclose(got, expected, atol=1e-5)


async def test_aembed_matches_embed(embedder: ProcessEmbedder) -> None:
    np.testing.assert_allclose(await embedder.aembed(TEXTS), embedder.embed(TEXTS), atol=1e-6)
    assert (await embedder.aembed([])).shape == (0, embedder.dim)


def test_bad_input_is_refused_before_it_reaches_the_child(embedder: ProcessEmbedder) -> None:
    pids = embedder.pids
    with pytest.raises(TypeError):
        embedder.embed("one string")
    with pytest.raises(TypeError):
        embedder.embed(["fine", 3])  # type: ignore[list-item]
    assert embedder.pids == pids


def test_a_dead_child_fails_one_call_as_unavailable_then_is_replaced(embedder: ProcessEmbedder) -> None:
    [first] = embedder.pids
    os.kill(first, signal.SIGKILL)
    with pytest.raises(EmbedderUnavailableError, match="restarts"):
        embedder.embed(TEXTS)
    vectors = embedder.embed(TEXTS)
    assert embedder.pids[0] not in (None, first)
    np.testing.assert_allclose(vectors, load_default_embedder().embed(TEXTS), atol=1e-5)


def test_close_stops_the_child() -> None:
    one_child = ProcessEmbedder(processes=1, threads=1)
    [pid] = one_child.pids
    one_child.close()
    one_child.close()
    assert one_child.pids == [None]
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_pool_embeds_concurrent_calls_on_separate_children() -> None:
    pool = ProcessEmbedder(processes=2, threads=1)
    try:
        pids = set(pool.pids)
        batches = [TEXTS, TEXTS[::-1], TEXTS[1:], TEXTS[:2]]
        results = await asyncio.gather(*(pool.aembed(batch) for batch in batches))
        expected = load_default_embedder()
        for batch, got in zip(batches, results, strict=True):
            np.testing.assert_allclose(got, expected.embed(batch), atol=1e-5)
        assert len(pids) == 2 and None not in pids
    finally:
        pool.close()
    assert pool.pids == [None, None]


def test_ctrl_c_reaches_the_child_quietly_and_the_parent_stops_it(capfd) -> None:
    """A terminal's Ctrl-C signals the children too: they ignore it (no traceback) and keep serving
    until the parent stops them."""
    one_child = ProcessEmbedder(processes=1, threads=1)
    try:
        [pid] = one_child.pids
        os.kill(pid, signal.SIGINT)
        vectors = one_child.embed(TEXTS)  # the same child answers after the signal
        assert one_child.pids == [pid] and vectors.shape == (4, one_child.dim)
    finally:
        one_child.close()
    assert "KeyboardInterrupt" not in capfd.readouterr().err
