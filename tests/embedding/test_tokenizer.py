"""The tokenizer built from the shipped vocabulary is the model's own, and it ships in the wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from embedding.embedder import _load_tokenizer, vocab_path

ROOT = Path(__file__).resolve().parents[2]

#: Ids from all-MiniLM-L6-v2's own tokenizer.json for these texts (uncased BERT, accents stripped,
#: Chinese characters split, [CLS] ... [SEP]).
REFERENCE_IDS = {
    "I'm allergic to peanuts.": [101, 1045, 1005, 1049, 27395, 2000, 27613, 1012, 102],
    "Ünïcödé café, 東京 – naïve!": [101, 27260, 7668, 1010, 1879, 1755, 1516, 15743, 999, 102],
}


@pytest.mark.parametrize("text", sorted(REFERENCE_IDS))
def test_shipped_vocabulary_tokenizes_like_the_model(text: str) -> None:
    assert _load_tokenizer(128).encode(text).ids == REFERENCE_IDS[text]


def test_truncation_keeps_the_special_tokens() -> None:
    ids = _load_tokenizer(16).encode("word " * 100).ids
    assert len(ids) == 16 and ids[0] == 101 and ids[-1] == 102


def test_the_vocabulary_is_package_data() -> None:
    """`pip install .` ships the vocabulary: pyproject's package-data of `embedding` matches the file."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["embedding"]
    relative = vocab_path().relative_to(ROOT / "embedding")
    assert any(relative.match(pattern) for pattern in patterns)
