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

The same table over the pairs whose question speaks of no one of the user's
(`sidecar.recall.reference.speaks_of_user`: no first-person word, no name of the user's turns or
speakers) gives the higher floor of such questions (`RecallConfig.impersonal_min_similarity`).

`--sensitive`: the bar at which a special-category turn is what the question asks about, so it bears
on the request whatever the domains its words place it in (`RecallConfig.asked_min_similarity`):
asked = a query and each special-category user turn (`reading.sensitivity`) stating one of its `must`
facts; not asked = a query and each special-category user turn of its scenario stating none of them
(older values of the asked fact among them, which currency, not this bar, keeps out); kept out = a query
and each user turn stating a `must_not` fact whose harm is `sensitive` or `out_of_domain` (what the gate
is for: no such pair may reach the bar).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.recall_scenario_data import DATA_DIR, ScenarioError, load  # noqa: E402
from reading.sensitivity import sensitivity_of  # noqa: E402
from sidecar.recall.reference import names_in, speaks_of_user  # noqa: E402

GRID = tuple(round(0.05 * i, 2) for i in range(0, 11))
SENSITIVE_GRID = tuple(round(0.05 * i, 2) for i in range(4, 15))

#: (query, turn text, whether the query speaks of the user)
Pair = tuple[str, str, bool]


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
    parser.add_argument(
        "--sensitive", action="store_true", help="also the table of special-category turns asked about or not"
    )
    return parser.parse_args(argv)


def scenario_pairs(split: str, data: Path) -> tuple[list[Pair], list[Pair]]:
    """(answering, unneeded) (query, turn text, speaks of the user) triples of the recall scenarios."""
    answering: list[Pair] = []
    unneeded: list[Pair] = []
    for scenario in load((split,), data):
        said = [t["text"] for t in scenario.turns() if t["role"] == "user"]
        names = names_in(said, (t.get("metadata", {}).get("speaker") for t in scenario.turns()))
        for recall in scenario.recalls:
            personal = speaks_of_user(recall.query, names) or recall.action is not None
            if not recall.needs_memory:
                unneeded += [(recall.query, text, personal) for text in said]
                continue
            for fact in recall.must:
                answering += [(recall.query, text, personal) for text in said if fact.found_in(text)]
    return answering, unneeded


def sensitive_pairs(split: str, data: Path) -> tuple[list[Pair], list[Pair], list[Pair]]:
    """(asked, not asked, kept out) (query, turn) pairs of the recall scenarios (the module docstring)."""
    asked: list[Pair] = []
    other: list[Pair] = []
    kept_out: list[Pair] = []
    for scenario in load((split,), data):
        users = [t["text"] for t in scenario.turns() if t["role"] == "user"]
        said = [text for text in users if sensitivity_of(None, None, text)]
        for recall in scenario.recalls:
            for text in said:
                answers = any(fact.found_in(text) for fact in recall.must)
                (asked if answers else other).append((recall.query, text, True))
            harms = [f for f in recall.must_not if f.harm in ("sensitive", "out_of_domain")]
            kept_out += [(recall.query, text, True) for text in users if any(f.found_in(text) for f in harms)]
    return asked, other, kept_out


def locomo_pairs(path: Path, conversations: str) -> list[Pair]:
    """(question, evidence turn text, speaks of the user) triples of the chosen LoCoMo conversations."""
    from bench.locomo import _samples, sample_questions, sample_turns
    from bench.locomo_score import local_turn_id

    samples = _samples(path)
    wanted = [int(c) for c in conversations.split(",") if c.strip()]
    pairs: list[Pair] = []
    for sample in (samples[i] for i in wanted):
        turns = list(sample_turns(sample))
        texts = {local_turn_id(t["turn_id"]): t["text"] for t in turns}
        names = names_in(texts.values(), (t.get("metadata", {}).get("speaker") for t in turns))
        for q in sample_questions(sample):
            personal = speaks_of_user(q["question"], names)
            pairs += [(q["question"], texts[e], personal) for e in q["evidence"] if e in texts]
    return pairs


def cosines(embedder, pairs: list[Pair]) -> np.ndarray:
    if not pairs:
        return np.zeros(0)
    queries = embedder.embed([q for q, _, _ in pairs])
    texts = embedder.embed([t for _, t, _ in pairs])
    return np.sum(queries * texts, axis=1)  # the model's vectors are normalised


def impersonal(pairs: list[Pair]) -> list[Pair]:
    return [pair for pair in pairs if not pair[2]]


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
    table(sets)
    if args.sensitive:
        asked, other, kept_out = sensitive_pairs(args.split, args.data)
        print("\nspecial-category turns: the question asks about them (kept) or not (cut), and what must stay out:")
        table(
            {
                "asked": cosines(embedder, asked),
                "unneeded, not asked": cosines(embedder, other),
                "unneeded, kept out by must_not": cosines(embedder, kept_out),
            },
            SENSITIVE_GRID,
        )
    print("\nquestions that speak of no one of the user's (no first-person word, no name of theirs):")
    table({
        f"answering, scenarios {args.split}": cosines(embedder, impersonal(answering)),
        f"answering, LoCoMo {args.conversations}": cosines(embedder, impersonal(locomo)),
        f"unneeded, scenarios {args.split}": cosines(embedder, impersonal(unneeded)),
    })  # fmt: skip
    embedder.close()
    return 0


def table(sets: dict[str, np.ndarray], grid: tuple[float, ...] = GRID) -> None:
    """Percentiles of each set, then the share kept (answering) or cut (unneeded) per floor."""
    for name, values in sets.items():
        q = np.percentile(values, [5, 10, 25, 50, 75, 90, 95]) if len(values) else []
        print(f"{name}: {len(values)} pairs; percentiles 5/10/25/50/75/90/95: " + " ".join(f"{v:.3f}" for v in q))
    print(f"\n{'floor':>6}" + "".join(f"{name:>32}" for name in sets))
    for floor in grid:
        cells = []
        for name, values in sets.items():
            kept = float(np.mean(values >= floor)) if len(values) else 0.0
            cells.append(f"{100 * (1 - kept if name.startswith('unneeded') else kept):>30.1f} %")
        print(f"{floor:>6.2f}" + "".join(cells))
    print("(answering: % kept; unneeded: % cut)")


if __name__ == "__main__":
    sys.exit(main())
