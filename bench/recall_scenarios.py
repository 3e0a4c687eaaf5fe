"""Recall scenarios from raw turns: the current truth, once, and only what bears on the turn?

Run: .venv/bin/python bench/recall_scenarios.py [--split dev|heldout|all] [--only ID,...]
     [--json OUT] [--show-failures] (--help explains every option)

Every scenario of `tests/data/recall_scenarios/` (schema in the README.md there) is retained turn by
turn over `POST /v1/retain` into a fresh `beliefstream dev` (each scenario its own user, sessions and
`ts` as written); once every job finished, each recall is asked over `POST /v1/recall` with the
defaults and judged on what comes back (`bench/recall_scenario_score.py`). Figures per split and per
category: current truth present, harmful-recall rate (and harms by kind), mean items for questions
that need no memory, tokens spent on duplicates, mean items and tokens per recall. The held-out split
is reported in aggregate only: its failures are never printed, so nobody tunes on them.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dev_stack import request, retained  # noqa: E402
from bench.recall_scenario_data import (  # noqa: E402
    CATEGORIES,
    DATA_DIR,
    SPLITS,
    Recall,
    Scenario,
    ScenarioError,
    load,
)
from bench.recall_scenario_score import Tally, Verdict, judge, presented_as_current, tally  # noqa: E402

#: Turns per `POST /v1/retain` (the API takes up to 1,000).
RETAIN_BATCH = 400


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/recall_scenarios.py",
        description="Recall judged on what the assistant sees, from raw turns retained into a fresh "
        "`beliefstream dev` over HTTP: current truth present, harmful recalls by kind, items for questions "
        "that need no memory, tokens spent on duplicates; per split (dev / heldout) and category.",
    )
    parser.add_argument(
        "--split",
        choices=[*SPLITS, "all"],
        default="all",
        help="which scenarios to run (default all; the held-out split is reported in aggregate only)",
    )
    parser.add_argument("--only", help="run only these scenario ids, comma-separated")
    parser.add_argument(
        "--json", type=Path, metavar="OUT", help="also write the figures (and dev verdicts) as JSON here"
    )
    parser.add_argument(
        "--show-failures",
        action="store_true",
        help="print each failing dev recall with what came back (text, type, recall_reason, labels) and, "
        "from a second request with diagnostics, what was suppressed and why",
    )
    parser.add_argument("--data", type=Path, help="the scenario folder (default tests/data/recall_scenarios)")
    parser.add_argument(
        "--data-dir",
        type=Path,
        help="keep the stack's data here (default: a temp dir, deleted); a second run over the same "
        "scenarios reuses it and skips retaining (quick iterations on recall, not on the write path; "
        "access counts of earlier runs stay)",
    )
    parser.add_argument("--concurrency", type=int, default=4, help="recalls in flight at once (default 4)")
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds to wait for the pipeline (default 1800)"
    )
    args = parser.parse_args(argv)
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    return args


def select(args: argparse.Namespace) -> list[Scenario]:
    splits = SPLITS if args.split == "all" else (args.split,)
    scenarios = load(splits, args.data or DATA_DIR)
    if args.only:
        wanted = [name.strip() for name in args.only.split(",") if name.strip()]
        known = {s.id for s in scenarios}
        unknown = [name for name in wanted if name not in known]
        if unknown:
            raise ScenarioError(f"no scenario {', '.join(unknown)} in split {args.split}")
        scenarios = [s for s in scenarios if s.id in set(wanted)]
    return scenarios


# --- through HTTP -------------------------------------------------------------------------------------


async def retain(client, base: str, scenarios: list[Scenario], log) -> list[str]:
    turns = [turn for scenario in scenarios for turn in scenario.turns()]
    job_ids: list[str] = []
    for start in range(0, len(turns), RETAIN_BATCH):
        body = {"turns": turns[start : start + RETAIN_BATCH]}
        job_ids += (await request(client, "POST", f"{base}/v1/retain", json=body))["job_ids"]
        log(
            f"retained {min(start + RETAIN_BATCH, len(turns))}/{len(turns)} turns "
            f"of {len(scenarios)} scenarios"
        )
    return job_ids


async def ask_all(
    client, base: str, scenarios: list[Scenario], concurrency: int, log
) -> list[tuple[Scenario, Recall, dict]]:
    gate = asyncio.Semaphore(concurrency)
    done = 0
    total = sum(len(s.recalls) for s in scenarios)

    async def ask(scenario: Scenario, recall: Recall) -> tuple[Scenario, Recall, dict]:
        nonlocal done
        async with gate:
            answer = await request(client, "POST", f"{base}/v1/recall", json=recall.body(scenario.user_id))
        done += 1
        if done % 50 == 0 or done == total:
            log(f"recalled {done}/{total}")
        return scenario, recall, answer

    return await asyncio.gather(*(ask(s, r) for s in scenarios for r in s.recalls))


async def run(args: argparse.Namespace, scenarios: list[Scenario], log) -> tuple[list[Verdict], list[str]]:
    fingerprint = hashlib.sha256(
        json.dumps([list(s.turns()) for s in scenarios], sort_keys=True).encode()
    ).hexdigest()

    async def retain_these(client, base: str) -> list[str]:
        return await retain(client, base, scenarios, log)

    async with retained(args.data_dir, fingerprint, retain_these, log, args.timeout) as (client, base):
        answers = await ask_all(client, base, scenarios, args.concurrency, log)
        verdicts = [judge(scenario, recall, answer) for scenario, recall, answer in answers]
        shown = await explain_failures(client, base, answers, verdicts) if args.show_failures else []
        return verdicts, shown


async def explain_failures(client, base: str, answers, verdicts: list[Verdict]) -> list[str]:
    """For each failing dev recall: what came back, and (asked again with diagnostics) what did not."""
    lines: list[str] = []
    for (scenario, recall, answer), verdict in zip(answers, verdicts, strict=True):
        if verdict.passed or scenario.split != "dev":
            continue
        body = recall.body(scenario.user_id) | {"diagnostics": True}
        diagnosed = await request(client, "POST", f"{base}/v1/recall", json=body)
        lines += failure_lines(scenario, recall, verdict, answer, diagnosed)
    return lines


def failure_lines(
    scenario: Scenario, recall: Recall, verdict: Verdict, answer: dict, diagnosed: dict
) -> list[str]:
    extra = {k: v for k, v in recall.body(scenario.user_id).items() if k not in ("user_id", "query")}
    lines = [
        f"FAIL {scenario.id} [{scenario.category}] {recall.query!r}"
        + (f" {json.dumps(extra)}" if extra else ""),
        f"  about: {scenario.about}",
    ]
    lines += [f"  missing: {fact}" for fact in verdict.missing]
    lines += [f"  harmful ({h.kind}): {h.fact}  <- {h.item_text!r}" for h in verdict.harms]
    if not verdict.needs_memory and verdict.items:
        lines.append(f"  needs no memory, got {verdict.items} item(s)")
    if verdict.too_many:
        lines.append(f"  at most {verdict.max_items} item(s) answer it, got {verdict.items}")
    lines.append(
        f"  returned ({verdict.items} items, {verdict.tokens} tokens, "
        f"{verdict.duplicate_tokens} on duplicates):"
    )
    for item in answer.get("memories", []):
        lines.append(
            f"    - [{item.get('type')}{'' if presented_as_current(item) else ', not current'}] "
            f"{item.get('text')!r}"
        )
        lines.append(f"      why: {item.get('recall_reason')}; labels: {json.dumps(item_labels(item))}")
    suppressed = list(diagnosed.get("suppressed") or []) + list(
        (diagnosed.get("diagnostics") or {}).get("superseded_episodes") or []
    )
    if suppressed:
        lines.append(f"  suppressed (diagnostics): {len(suppressed)}")
        lines += [f"    - {entry.get('id')}: {entry.get('why')}" for entry in suppressed[:12]]
    return lines


def item_labels(item: dict) -> dict[str, Any]:
    """What an item says about itself besides its text (what `presented_as_current` reads, and more)."""
    names = (
        "confidence", "trust", "role", "source_role", "certainty", "polarity", "sensitivity", "superseded",
        "note",
        "labels", "label", "state", "status", "possibly_superseded", "contested", "said_at", "valid_from",
    )  # fmt: skip
    return {name: item[name] for name in names if item.get(name) not in (None, False, [], "")}


# --- the report -----------------------------------------------------------------------------------------

COLUMNS = (
    ("scen", 5), ("recalls", 8), ("passed", 7), ("present", 8), ("harmful", 8), ("no-mem items", 13),
    ("dup tok", 8), ("items/recall", 13), ("tok/recall", 11),
)  # fmt: skip


def report(groups: dict[str, dict[str, Tally]]) -> str:
    out: list[str] = []
    for split in (s for s in SPLITS if s in groups):
        by_category = groups[split]
        total = by_category["all"].figures()
        out.append(f"\n{split}: {total['scenarios']} scenarios, {total['recalls']} recalls")
        out.append(f"{'category':<18}" + "".join(f"{name:>{width}}" for name, width in COLUMNS))
        for category in [c for c in CATEGORIES if c in by_category] + ["all"]:
            out.append(_row(category, by_category[category].figures()))
        harms = ", ".join(f"{kind} {n}" for kind, n in total["harms_by_kind"].items()) or "none"
        out.append(f"harms by kind (must_not presented as current): {harms}")
        if total["duplicate_token_share"] is not None:
            out.append(
                f"tokens on duplicates: {total['duplicate_tokens']} of {total['tokens']} "
                f"({100 * total['duplicate_token_share']:.1f} %)"
            )
    return "\n".join(out)


def _row(category: str, f: dict[str, Any]) -> str:
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    cells = (
        f["scenarios"],
        f["recalls"],
        f["passed"],
        pct(f["current_truth_present"]),
        pct(f["harmful_recall_rate"]),
        "-" if f["no_memory_mean_items"] is None else f"{f['no_memory_mean_items']:.2f}",
        f["duplicate_tokens"],
        f"{f['mean_items']:.2f}",
        f"{f['mean_tokens']:.0f}",
    )
    return f"{category:<18}" + "".join(
        f"{str(cell):>{width}}" for cell, (_, width) in zip(cells, COLUMNS, strict=True)
    )


def as_json(groups: dict[str, dict[str, Tally]], verdicts: list[Verdict]) -> dict[str, Any]:
    """Figures of every split and category; the verdicts of dev recalls only (the held-out split stays
    in aggregate)."""
    return {
        "figures": {split: {cat: t.figures() for cat, t in cats.items()} for split, cats in groups.items()},
        "dev_verdicts": [
            {
                "scenario": v.scenario,
                "category": v.category,
                "query": v.query,
                "passed": v.passed,
                "missing": list(v.missing),
                "harms": [h.__dict__ for h in v.harms],
                "items": v.items,
                "tokens": v.tokens,
                "duplicate_tokens": v.duplicate_tokens,
            }
            for v in verdicts
            if v.split == "dev"
        ],
        "argv": sys.argv[1:],
    }


def main(argv: list[str] | None = None) -> int:
    import httpx

    args = parse_args(argv)
    started = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:6.0f} s] {message}", file=sys.stderr, flush=True)

    try:
        scenarios = select(args)
        log(
            f"{len(scenarios)} scenarios, {sum(len(s.recalls) for s in scenarios)} recalls, "
            f"{sum(1 for s in scenarios for _ in s.turns())} turns"
        )
        verdicts, failures = asyncio.run(run(args, scenarios, log))
    except ScenarioError as exc:
        raise SystemExit(f"recall_scenarios: {exc}") from None
    except httpx.HTTPStatusError as exc:
        raise SystemExit(
            f"recall_scenarios: {exc.request.method} {exc.request.url.path} answered "
            f"{exc.response.status_code}: {exc.response.text[:200]}"
        ) from None
    except httpx.HTTPError as exc:
        raise SystemExit(f"recall_scenarios: HTTP error talking to beliefstream dev: {exc!r}") from None
    except KeyboardInterrupt:
        raise SystemExit("recall_scenarios: interrupted (the dev stack was stopped)") from None
    groups = tally(verdicts)
    if failures:
        print("\n".join(failures))
    print(report(groups))
    if "heldout" in groups and args.show_failures:
        print("(held-out failures are not shown: that split is never tuned on)")
    if args.json:
        try:
            args.json.write_text(json.dumps(as_json(groups, verdicts), indent=2))
        except OSError as exc:
            raise SystemExit(f"recall_scenarios: cannot write {args.json}: {exc.strerror}") from None
        log(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
