"""Where recall's similarity floor should sit, measured: the cosine of a question to what answers it,
against its cosine to what a question that needs no memory would be handed.

Run: .venv/bin/python bench/recall_floor.py [--conversations 0,1] [--split dev] (--help for all)

Pairs, each embedded with the model recall uses (`embedding.embedder`), raw turn text:
- answering (recall scenarios, `--split`, never the held-out one by default): a recall's query
  and each user turn of its scenario that states one of its `must` facts;
- answering (LoCoMo, `--conversations`): a question and each of its evidence turns;
- unneeded (recall scenarios): a question that needs no memory and every user turn of its scenario.
For each floor on a grid: the share of answering pairs kept (cosine ≥ floor) and of unneeded pairs
cut. The floor recall uses (`RecallConfig.min_similarity`) is chosen from this table; the figures
and the choice are in docs/benchmarks.md ("Similarity floor").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.recall_scenario_data import DATA_DIR, ScenarioError, load  # noqa: E402

GRID = tuple(round(0.05 * i, 2) for i in range(0, 11))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    from bench.locomo import DEFAULT_PATH

    parser = argparse.ArgumentParser(
        prog="bench/recall_floor.py",
        description="Cosine of questions to the turns that answer them (recall scenarios, LoCoMo) against "
        "their cosine to what a question needing no memory would get: the share kept and cut per floor.",
    )
    parser.add_argument("--split", choices=("dev", "heldout"), default="dev", help="recall scenarios split (default dev)")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="the recall scenarios folder")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_PATH, help="the LoCoMo JSON file")
    parser.add_argument(
        "--conversations", default="0,1", help="LoCoMo conversations by position, comma-separated (default 0,1)"
    )
    return parser.parse_args(argv)


def scenario_pairs(split: str, data: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(answering, unneeded) (query, turn text) pairs of the recall scenarios."""
    answering: list[tuple[str, str]] = []
    unneeded: list[tuple[str, str]] = []
    for scenario in load((split,), data):
        said = [t["text"] for t in scenario.turns() if t["role"] == "user"]
        for recall in scenario.recalls:
            if not recall.needs_memory:
                unneeded += [(recall.query, text) for text in said]
                continue
            for fact in recall.must:
                answering += [(recall.query, text) for text in said if fact.found_in(text)]
    return answering, unneeded


def locomo_pairs(path: Path, conversations: str) -> list[tuple[str, str]]:
    """(question, evidence turn text) pairs of the chosen LoCoMo conversations."""
    from bench.locomo import _samples, sample_questions, sample_turns
    from bench.locomo_score import local_turn_id

    samples = _samples(path)
    wanted = [int(c) for c in conversations.split(",") if c.strip()]
    pairs: list[tuple[str, str]] = []
    for sample in (samples[i] for i in wanted):
        texts = {local_turn_id(t["turn_id"]): t["text"] for t in sample_turns(sample)}
        for q in sample_questions(sample):
            pairs += [(q["question"], texts[e]) for e in q["evidence"] if e in texts]
    return pairs


def cosines(embedder, pairs: list[tuple[str, str]]) -> np.ndarray:
    if not pairs:
        return np.zeros(0)
    queries = embedder.embed([q for q, _ in pairs])
    texts = embedder.embed([t for _, t in pairs])
    return np.sum(queries * texts, axis=1)  # the model's vectors are normalised


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from embedding.embedder import load_default_embedder

    try:
        answering, unneeded = scenario_pairs(args.split, args.data)
        locomo = locomo_pairs(args.locomo, args.conversations)
    except (ScenarioError, OSError, ValueError, IndexError, KeyError) as exc:
        raise SystemExit(f"recall_floor: {exc}") from None
    embedder = load_default_embedder()
    sets = {
        f"answering, scenarios {args.split}": cosines(embedder, answering),
        f"answering, LoCoMo {args.conversations}": cosines(embedder, locomo),
        f"unneeded, scenarios {args.split}": cosines(embedder, unneeded),
    }
    for name, values in sets.items():
        q = np.percentile(values, [5, 10, 25, 50, 75, 90, 95]) if len(values) else []
        print(f"{name}: {len(values)} pairs; percentiles 5/10/25/50/75/90/95: " + " ".join(f"{v:.3f}" for v in q))
    print(f"\n{'floor':>6}" + "".join(f"{name:>32}" for name in sets))
    for floor in GRID:
        cells = []
        for name, values in sets.items():
            kept = float(np.mean(values >= floor)) if len(values) else 0.0
            cells.append(f"{100 * (1 - kept if name.startswith('unneeded') else kept):>30.1f} %")
        print(f"{floor:>6.2f}" + "".join(cells))
    print("(answering: % kept; unneeded: % cut)")
    embedder.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
