"""Micro benchmark of the offline embedder: sentences per second by text length, batch size, threads.

Run: .venv/bin/python bench/embed.py [--short 2048] [--long 512] [--repeat 3]
Short texts look like stored memories (a dozen tokens); long ones like raw turns (~100 tokens).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from embedding.embedder import OnnxMiniLmEmbedder  # noqa: E402

SUBJECTS = ["dark mode", "peanuts", "Lisbon", "Python", "the Friday deploy", "tea", "French", "cycling"]
VERBS = ["prefers", "is allergic to", "lives near", "writes", "owns", "avoids", "learns", "enjoys"]


def short_texts(n: int) -> list[str]:
    return [f"User {VERBS[i % 8]} {SUBJECTS[(i * 3) % 8]} (note {i})." for i in range(n)]


def long_texts(n: int) -> list[str]:
    body = (
        "I have been thinking about how we run the Friday deploy: the team prefers small changes, "
        "reviews happen in the morning, and anything touching billing waits for Monday. "
    )
    return [f"Turn {i}: {body * 2}I also switched the editor to {SUBJECTS[i % 8]}." for i in range(n)]


def rate(embedder: OnnxMiniLmEmbedder, texts: list[str], repeat: int) -> float:
    embedder.embed(texts[: embedder.batch_size])  # warm-up
    best = 0.0
    for _ in range(repeat):
        started = time.perf_counter()
        embedder.embed(texts)
        best = max(best, len(texts) / (time.perf_counter() - started))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=2048, help="number of short texts")
    parser.add_argument("--long", type=int, default=512, help="number of long texts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is reported")
    args = parser.parse_args()
    short, long = short_texts(args.short), long_texts(args.long)
    probe = OnnxMiniLmEmbedder()
    tokens = [len(probe._tokenizer.encode(t).ids) for t in (short[0], long[0])]
    print(f"short texts ~{tokens[0]} tokens x{len(short)}, long texts ~{tokens[1]} tokens x{len(long)}")
    print(f"{'threads':>7} {'batch':>5} {'short sent/s':>13} {'long sent/s':>12}")
    for threads in (1, 2):
        for batch_size in (32, 64, 128):
            embedder = OnnxMiniLmEmbedder(threads=threads, batch_size=batch_size)
            print(
                f"{threads:>7} {batch_size:>5} {rate(embedder, short, args.repeat):>13.0f} "
                f"{rate(embedder, long, args.repeat):>12.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
