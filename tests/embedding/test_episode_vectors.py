"""An episode's vector, joined (one text) or line_sum (each line embedded once, summed): the real model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from beliefs.episodes import Episode
from beliefs.records import Role
from embedding.embedder import OnnxMiniLmEmbedder
from embedding.episode_vectors import EpisodeTexts, episode_vectors, line_texts
from reading.episode_text import EpisodeLines, SessionTails
from streams.settings import Settings

T0 = datetime(2026, 5, 4, 9, tzinfo=UTC)


def said(n: int, speaker: str, text: str) -> Episode:
    return Episode(
        id=f"e{n}", tenant_id="t", user_id="u", session_id="s", turn_id=f"t{n}", role=Role.USER, speaker=speaker, text=text,
        said_at=T0 + timedelta(minutes=n), created_at=T0,
    )


class CountingEmbedder(OnnxMiniLmEmbedder):
    """The real model, counting the texts it encodes."""

    encoded = 0

    def _embed_distinct(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return super()._embed_distinct(texts)


@pytest.fixture(scope="module")
def embedder() -> CountingEmbedder:
    return CountingEmbedder(threads=1)


def test_each_line_is_embedded_once_and_lent_to_the_next_turn(embedder: CountingEmbedder) -> None:
    turns = [said(0, "Rosa", "Have you ever been to Porto?"), said(1, "Idris", "Twice, for a friend's wedding."),
             said(2, "Rosa", "Did the wedding have a band?")]
    lines = SessionTails().lines(turns)
    assert lines[1] == EpisodeLines("Idris: Twice, for a friend's wedding.", "Rosa: Have you ever been to Porto?")
    texts = line_texts(lines)
    assert len(texts) == 5
    embedder.encoded = 0
    vectors = embedder.embed(texts)
    assert embedder.encoded == 3  # one per turn: the previous lines are the turns' own
    combined = episode_vectors(lines, vectors)
    assert np.allclose(np.linalg.norm(combined, axis=1), 1.0, atol=1e-5)
    assert np.allclose(combined[0], vectors[0])  # no turn before: its own line's vector
    expected = (vectors[1] + vectors[0]) / np.linalg.norm(vectors[1] + vectors[0])
    assert np.allclose(combined[1], expected, atol=1e-6)


def test_a_short_reply_is_found_by_the_question_it_answers(embedder: CountingEmbedder) -> None:
    """The point of the context, with summed line vectors: 'Yes, last May' says nothing of Lisbon."""
    turns = [said(0, "Ben", "Did you finally move to Lisbon?"), said(1, "Ana", "Yes, last May."),
             said(2, "Ana", "I bought new running shoes for the marathon.")]
    lines = SessionTails().lines(turns)
    reply_alone, distractor = embedder.embed(["Ana: Yes, last May.", "Ana: I bought new running shoes for the marathon."])
    reply = episode_vectors(lines, embedder.embed(line_texts(lines)))[1]
    (query,) = embedder.embed(["When did Ana move to Lisbon?"])
    assert float(query @ reply) > float(query @ distractor)
    assert float(query @ reply) > float(query @ reply_alone) + 0.15


def test_the_rows_must_match_the_lines() -> None:
    lines = [EpisodeLines("A: one", None), EpisodeLines("B: two", "A: one")]
    with pytest.raises(ValueError):
        episode_vectors(lines, np.ones((2, 4), dtype=np.float32))


def test_distinct_texts_are_encoded_once_and_returned_in_order(embedder: CountingEmbedder) -> None:
    embedder.encoded = 0
    vectors = embedder.embed(["I moved to Leeds.", "Thanks!", "I moved to Leeds.", "Thanks!", "Bye."])
    assert embedder.encoded == 3
    assert np.array_equal(vectors[0], vectors[2]) and np.array_equal(vectors[1], vectors[3])
    alone = embedder.embed(["Bye."])
    assert np.allclose(vectors[4], alone[0], atol=1e-6)


def test_joined_is_the_two_lines_embedded_as_one_text(embedder: CountingEmbedder) -> None:
    """The default: the reply's vector is the model's vector of the previous line and its own, joined."""
    turns = [said(0, "Mara", "Which city did you grow up in?"), said(1, "Tomas", "Mostly Ghent, then Antwerp.")]
    episode_texts = EpisodeTexts.of(turns, SessionTails(), "joined")
    assert episode_texts.texts() == ["Mara: Which city did you grow up in?",
                                     "Mara: Which city did you grow up in?\nTomas: Mostly Ghent, then Antwerp."]
    vectors = episode_texts.vectors(embedder.embed(episode_texts.texts()))
    (joined,) = embedder.embed(["Mara: Which city did you grow up in?\nTomas: Mostly Ghent, then Antwerp."])
    assert np.allclose(vectors[1], joined, atol=1e-6)
    own, previous = embedder.embed(["Tomas: Mostly Ghent, then Antwerp.", "Mara: Which city did you grow up in?"])
    summed = (own + previous) / np.linalg.norm(own + previous)
    assert not np.allclose(vectors[1], summed, atol=1e-3)


def test_line_sum_is_the_normalised_sum_of_the_line_vectors(embedder: CountingEmbedder) -> None:
    turns = [said(0, "Mara", "Which city did you grow up in?"), said(1, "Tomas", "Mostly Ghent, then Antwerp.")]
    episode_texts = EpisodeTexts.of(turns, SessionTails(), "line_sum")
    assert episode_texts.texts() == ["Mara: Which city did you grow up in?", "Tomas: Mostly Ghent, then Antwerp.",
                                     "Mara: Which city did you grow up in?"]
    embedder.encoded = 0
    vectors = episode_texts.vectors(embedder.embed(episode_texts.texts()))
    assert embedder.encoded == 2
    own, previous = embedder.embed(["Tomas: Mostly Ghent, then Antwerp.", "Mara: Which city did you grow up in?"])
    assert np.allclose(vectors[1], (own + previous) / np.linalg.norm(own + previous), atol=1e-6)
    assert np.allclose(vectors[0], previous, atol=1e-6)


def test_an_unknown_mode_is_refused_and_the_default_is_joined() -> None:
    with pytest.raises(ValueError, match="joined, line_sum"):
        EpisodeTexts.of([said(0, "Mara", "Hello there.")], SessionTails(), "summed")
    assert EpisodeTexts.of([said(0, "Mara", "Hello there.")], SessionTails()).mode == "joined"
    assert Settings.model_fields["episode_vector"].default == "joined"
