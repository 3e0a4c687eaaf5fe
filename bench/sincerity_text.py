"""Micro-benchmark: `reading.sincerity` per text over the dev recall scenarios' turns (never the
held-out ones), `speech_act.is_sarcasm` as it is against its case-folding form, alternated in one
process; checks the readings are identical first. Run from the repo root."""

from __future__ import annotations

import argparse
import json
import sys
import time

from reading import sincerity
from reading.extract import speech_act as sa


def texts() -> list[str]:
    found = []
    with open("tests/data/recall_scenarios/dev.jsonl", encoding="utf-8") as lines:
        for line in lines:
            if line.strip().startswith("{"):
                found += [turn["text"] for s in json.loads(line).get("sessions", []) for turn in s.get("turns", [])]
    return list(dict.fromkeys(found))


def folding(sentence: str) -> bool:
    """`is_sarcasm` with the case-folding `_NUISANCE` / `_DELIGHT` on every text (the old form)."""
    if sa.contains_any(sentence, sa._IRONY_GATE) and sa._IRONY.search(sentence):
        return True
    return bool(sa._NUISANCE.search(sentence)) and bool(sa._DELIGHT.search(sentence))


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(
        description="reading.sincerity per text over the dev recall scenarios' turns: the speech-act patterns "
        "as they are against their case-folding form, alternated in one process (readings checked identical first)"
    ).parse_args(argv)
    corpus, read, current = texts(), sincerity.sincerity_of.__wrapped__, sa.is_sarcasm
    forms = {"case-folding": folding, "lowered ASCII": current}
    readings = {}
    for name, form in forms.items():
        sa.is_sarcasm = form
        readings[name] = [read(t) for t in corpus]
    if readings["case-folding"] != readings["lowered ASCII"]:
        print("error: the readings differ", file=sys.stderr)
        return 1
    times: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(8):
        for name, form in forms.items():
            sa.is_sarcasm = form
            start = time.perf_counter()
            for _ in range(3):
                for text in corpus:
                    read(text)
            times[name].append((time.perf_counter() - start) / (3 * len(corpus)) * 1e6)
    sa.is_sarcasm = current
    print(f"{len(corpus)} texts, readings identical")
    for name, spent in times.items():
        print(f"{name}: median {sorted(spent)[len(spent) // 2]:.1f} us a text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
