"""The write path's text steps (strip, redact, junk, provenance) against the embedder on the same turns.

Both run in this process over the first N LoCoMo turns; the ratio (text-step CPU per turn ÷ the
embedder's time per text, in 256-text calls) is what the safety checks cost relative to the model.

    .venv/bin/python bench/text_steps.py [--data ../shared/data/locomo10.json] [--turns 3000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo import DEFAULT_PATH, locomo_turns  # noqa: E402

from beliefs.records import Turn  # noqa: E402
from embedding.embedder import load_default_embedder  # noqa: E402
from reading.prepare import clean_turn  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_PATH, help="locomo10.json")
    parser.add_argument("--turns", type=int, default=3000)
    args = parser.parse_args()
    turns = [Turn.model_validate(t) for _, t in zip(range(args.turns), locomo_turns(args.data), strict=False)]
    texts = [turn.text for turn in turns]
    for turn in turns[:50]:
        clean_turn(turn).reading().of_turn()
    started = time.process_time()
    for turn in turns:
        clean_turn(turn).reading().of_turn()
    steps = time.process_time() - started
    embedder = load_default_embedder()
    embedder.embed(texts[:64])
    started = time.perf_counter()
    for at in range(0, len(texts), 256):
        embedder.embed(texts[at : at + 256])
    embed = time.perf_counter() - started
    print(f"{len(turns)} turns: text steps {steps * 1e3 / len(turns):.3f} ms CPU/turn, embedder "
          f"{embed * 1e3 / len(turns):.2f} ms/text, ratio {steps / embed:.4f}")


if __name__ == "__main__":
    main()
