"""LoCoMo evidence recall through the real pipeline and HTTP recall, beside two raw-turn baselines.

Run: .venv/bin/python bench/locomo.py [--conversations 0,1] [--questions N] [--budgets 200,400,800]
[--out FILE] (--help explains every option). Conversations are read from ../shared/data at run time,
never copied.

Every turn is retained over `POST /v1/retain` into a fresh `beliefstream dev` (temp data dir, free
port), the harness waits until every job finished, then asks every question over `POST /v1/recall`.
A question scores the share of its evidence turns cited by the recalled items (`bench/locomo_score.py`);
with `--budgets`, the share cited anywhere in an answer of at most that many tokens, beside BM25 over
the raw turns and over ±1-turn windows filled to the same size (`bench/locomo_budget.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dev_stack import request, retained  # noqa: E402


def _default_path() -> Path:
    """`shared/data/locomo10.json` beside the checkout, or beside any folder above it (worktrees)."""
    here = Path(__file__).resolve().parents[1]
    for folder in here.parents:
        candidate = folder / "shared" / "data" / "locomo10.json"
        if candidate.exists():
            return candidate
    return here.parent / "shared" / "data" / "locomo10.json"


DEFAULT_PATH = _default_path()
CATEGORIES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}


def _session_start(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → an aware datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _samples(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def sample_turns(sample: dict, tenant: str = "locomo") -> Iterator[dict]:
    """One conversation's turns as contract §1 turns: one user per conversation, the speaker named,
    the session's date as `ts` (30 s apart within a session)."""
    conversation = sample["conversation"]
    user = sample["sample_id"]
    sessions = sorted(
        (int(key.split("_")[1]), key) for key in conversation if key.startswith("session_") and key.count("_") == 1
    )
    for number, key in sessions:
        start = _session_start(conversation[f"{key}_date_time"])
        for index, dialogue in enumerate(conversation[key]):
            yield {
                "turn_id": f"{user}:{dialogue['dia_id']}",
                "tenant_id": tenant,
                "user_id": user,
                "agent_id": None,
                "session_id": f"{user}:session-{number}",
                "role": "user",
                "text": dialogue["text"],
                "ts": (start + timedelta(seconds=30 * index)).isoformat(),
                "metadata": {"speaker": dialogue["speaker"]},
            }


def locomo_turns(path: Path = DEFAULT_PATH, tenant: str = "locomo") -> Iterator[dict]:
    """Every dialogue turn of every conversation (see `sample_turns`)."""
    for sample in _samples(path):
        yield from sample_turns(sample, tenant)


def sample_questions(sample: dict) -> list[dict]:
    """The questions that name evidence: {'question', 'category', 'evidence' (normalised ids)}."""
    from bench.locomo_score import normalise_evidence

    out = []
    for qa in sample["qa"]:
        evidence = normalise_evidence(qa.get("evidence") or [])
        if evidence:
            out.append({"question": qa["question"], "category": str(qa["category"]), "evidence": evidence})
    return out


# --- the baselines over the raw turns -------------------------------------------------------------


def run_baselines(samples: list[dict], questions: dict[str, list[dict]], k: int, log) -> dict:
    from bench.locomo_score import Bm25, Tally, dense_top, local_turn_id
    from embedding.embedder import load_default_embedder

    embedder = load_default_embedder()
    bm25_tally, dense_tally, framed_tally = Tally(), Tally(), Tally()
    for sample in samples:
        turns = list(sample_turns(sample))
        ids = [[local_turn_id(t["turn_id"])] for t in turns]
        texts = [t["text"] for t in turns]
        asked = questions[sample["sample_id"]]
        bm25 = Bm25(texts)
        turn_vectors = embedder.embed(texts)
        framed_vectors = embedder.embed(framed_texts(turns))
        query_vectors = embedder.embed([q["question"] for q in asked]) if asked else []
        for q, vector in zip(asked, query_vectors, strict=True):
            bm25_tally.add(q["category"], [ids[i] for i in bm25.top(q["question"], k)], q["evidence"])
            dense_tally.add(q["category"], [ids[i] for i in dense_top(turn_vectors, vector, k)], q["evidence"])
            framed_tally.add(q["category"], [ids[i] for i in dense_top(framed_vectors, vector, k)], q["evidence"])
        log(f"baselines: {sample['sample_id']} ({len(turns)} turns, {len(asked)} questions)")
    return {
        "bm25 (raw turns)": bm25_tally.means(),
        "dense MiniLM (raw turns)": dense_tally.means(),
        "dense MiniLM (episode texts: speaker, turn before)": framed_tally.means(),
    }


def framed_texts(turns: list[dict]) -> list[str]:
    """Each turn as the write path embeds its episode (`reading.episode_text`), in the order said."""
    from beliefs.episodes import Episode
    from reading.episode_text import SessionTails

    at = datetime.now(UTC)
    episodes = [
        Episode(
            id=t["turn_id"], tenant_id=t["tenant_id"], user_id=t["user_id"], session_id=t["session_id"],
            turn_id=t["turn_id"], role=t["role"], speaker=t["metadata"]["speaker"], text=t["text"].strip(),
            said_at=datetime.fromisoformat(t["ts"]), created_at=at,
        )
        for t in turns
    ]
    return SessionTails().texts(episodes)


def run_budget_baselines(samples: list[dict], questions: dict[str, list[dict]], budgets, log) -> dict:
    """BM25 over the raw turns and over ±1-turn windows, each answer filled to every budget."""
    from bench.locomo_budget import BudgetBaseline, BudgetTally, evidence_share, turn_windows
    from bench.locomo_score import local_turn_id

    tallies = {"bm25 (raw turns)": BudgetTally(budgets), "bm25 (±1-turn windows)": BudgetTally(budgets)}
    for sample in samples:
        turns = list(sample_turns(sample))
        ids = [local_turn_id(t["turn_id"]) for t in turns]
        texts = [t["text"] for t in turns]
        baselines = {
            "bm25 (raw turns)": BudgetBaseline(texts, [[i] for i in range(len(turns))]),
            "bm25 (±1-turn windows)": BudgetBaseline(texts, turn_windows([t["session_id"] for t in turns])),
        }
        for q in questions[sample["sample_id"]]:
            for name, baseline in baselines.items():
                for budget in budgets:
                    taken = baseline.fill(q["question"], budget)
                    tallies[name].add(q["category"], budget, evidence_share((ids[i] for i in taken), q["evidence"]))
        log(f"budget baselines: {sample['sample_id']} ({len(turns)} turns)")
    return {name: tally.means() for name, tally in tallies.items()}


# --- beliefstream through HTTP ----------------------------------------------------------------------


async def retain_all(client, base: str, samples: list[dict], log) -> list[str]:
    job_ids: list[str] = []
    for sample in samples:
        turns = [{k: v for k, v in t.items() if k != "tenant_id"} for t in sample_turns(sample)]
        for start in range(0, len(turns), 500):
            body = {"turns": turns[start : start + 500]}
            job_ids += (await request(client, "POST", f"{base}/v1/retain", json=body))["job_ids"]
        log(f"retained {sample['sample_id']}: {len(turns)} turns")
    return job_ids


async def recall_all(client, base: str, samples, questions, args, log) -> tuple[dict, dict]:
    from bench.locomo_score import Tally, local_turn_id

    tally, turn_tally = Tally(), Tally(by_turns=True)
    usage = {"items": 0, "cited_turns": 0, "tokens": 0, "responses": 0}
    gate = asyncio.Semaphore(args.concurrency)

    async def ask(user: str, q: dict) -> None:
        body = {"user_id": user, "query": q["question"], "limit": args.limit}
        if args.context_turns is not None:
            body["context_turns"] = args.context_turns
        if args.budget is not None:
            body["budget_tokens"] = args.budget
        async with gate:
            result = await request(client, "POST", f"{base}/v1/recall", json=body)
        items = sorted(result["memories"], key=lambda m: -m["score"])  # prompt order → rank order
        cited = [[local_turn_id(c) for c in m["citations"]] for m in items]
        tally.add(q["category"], cited, q["evidence"])
        turn_tally.add(q["category"], cited, q["evidence"])
        usage["items"] += len(items)
        usage["cited_turns"] += sum(len(c) for c in cited)
        usage["tokens"] += result.get("tokens_used", 0)
        usage["responses"] += 1

    for sample in samples:
        asked = questions[sample["sample_id"]]
        await asyncio.gather(*(ask(sample["sample_id"], q) for q in asked))
        log(f"recalled {sample['sample_id']}: {len(asked)} questions")
    return {"beliefstream recall": tally.means(), "beliefstream recall, k = turns": turn_tally.means()}, usage


async def recall_budgets(client, base: str, samples, questions, args, log) -> tuple[dict, dict]:
    """Every question at every budget: the evidence cited anywhere in the answer (`limit` at its
    maximum, so only the budget ends the answer)."""
    from bench.locomo_budget import BudgetTally, evidence_share
    from bench.locomo_score import local_turn_id
    from sidecar.recall.models import MAX_LIMIT

    tally = BudgetTally(args.budgets)
    usage: dict[int, list[int]] = {b: [] for b in args.budgets}
    gate = asyncio.Semaphore(args.concurrency)

    async def ask(user: str, q: dict, budget: int) -> None:
        body = {"user_id": user, "query": q["question"], "limit": MAX_LIMIT, "budget_tokens": budget}
        if args.context_turns is not None:
            body["context_turns"] = args.context_turns
        async with gate:
            result = await request(client, "POST", f"{base}/v1/recall", json=body)
        cited = (local_turn_id(c) for m in result["memories"] for c in m["citations"])
        tally.add(q["category"], budget, evidence_share(cited, q["evidence"]))
        usage[budget].append(result.get("tokens_used", 0))

    for sample in samples:
        asked = questions[sample["sample_id"]]
        await asyncio.gather(*(ask(sample["sample_id"], q, b) for q in asked for b in args.budgets))
        log(f"recalled {sample['sample_id']}: {len(asked)} questions at {len(args.budgets)} budgets")
    mean_tokens = {b: sum(u) / max(len(u), 1) for b, u in usage.items()}
    return {"beliefstream recall": tally.means()}, {"mean tokens used": mean_tokens}


async def run_pipeline(samples, questions, args, log) -> tuple[dict, dict]:
    wanted = json.dumps(sorted(s["sample_id"] for s in samples))

    async def retain(client, base: str) -> list[str]:
        return await retain_all(client, base, samples, log)

    async with retained(args.data_dir, wanted, retain, log, args.timeout, "locomo-retained.json") as (client, base):
        if args.budgets:
            return await recall_budgets(client, base, samples, questions, args, log)
        return await recall_all(client, base, samples, questions, args, log)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="bench/locomo.py",
        description="Evidence recall (R@5/10/25) of beliefstream on LoCoMo conversations, through a fresh "
        "`beliefstream dev` and its HTTP API, beside BM25 and dense MiniLM over the raw turns.",
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_PATH, help=f"the LoCoMo JSON file (default {DEFAULT_PATH})")
    parser.add_argument(
        "--conversations",
        help="which conversations, by position (0-based) or sample_id, comma-separated, e.g. '0,1' or "
        "'conv-26'; default: all. Use two for quick iterations.",
    )
    parser.add_argument("--questions", type=int, help="ask at most this many questions per conversation (default: all)")
    parser.add_argument("--limit", type=int, default=25, help="recall `limit`, and the deepest k scored (default 25)")
    parser.add_argument("--budget", type=int, help="recall `budget_tokens` (default: the API's default)")
    parser.add_argument(
        "--context-turns", type=int,
        help="recall `context_turns` (neighbouring turns quoted with each episode; default: the API's)",
    )
    parser.add_argument(
        "--budgets", type=_budgets,
        help="equal prompt size: token budgets, e.g. '200,400,800'; each question scores the evidence cited "
        "anywhere in an answer of at most that many tokens, beside BM25 over the raw turns and over ±1-turn "
        "windows filled to the same size (instead of R@k)",
    )
    parser.add_argument("--concurrency", type=int, default=4, help="recalls in flight at once (default 4)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for the pipeline (default 3600)")
    parser.add_argument(
        "--data-dir", type=Path,
        help="keep the stack's data here (default: a temp dir, deleted); a second run with the same "
        "conversations reuses it and skips retaining (quick iterations on recall)",
    )
    parser.add_argument("--skip-baselines", action="store_true", help="only beliefstream (faster)")
    parser.add_argument("--skip-pipeline", action="store_true", help="only the raw-turn baselines")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON to this file")
    return parser.parse_args(argv)


def _budgets(text: str) -> tuple[int, ...]:
    from bench.locomo_budget import parse_budgets

    try:
        return parse_budgets(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def select_samples(samples: list[dict], wanted: str | None) -> list[dict]:
    if not wanted:
        return samples
    chosen = []
    for name in (w.strip() for w in wanted.split(",") if w.strip()):
        if name.isdigit() and int(name) < len(samples):
            chosen.append(samples[int(name)])
            continue
        match = [s for s in samples if s["sample_id"] == name]
        if not match:
            raise SystemExit(f"no conversation {name!r}; there are {len(samples)} (0-{len(samples) - 1})")
        chosen += match
    return chosen


def main(argv: list[str] | None = None) -> int:
    from bench.locomo_budget import format_budget_table
    from bench.locomo_score import format_table

    args = parse_args(argv)
    if not args.data.exists():
        raise SystemExit(f"no LoCoMo file at {args.data}; pass --data")
    samples = select_samples(_samples(args.data), args.conversations)
    questions = {s["sample_id"]: sample_questions(s)[: args.questions] for s in samples}
    started = time.monotonic()

    def log(message: str) -> None:
        print(f"[{time.monotonic() - started:6.0f} s] {message}", file=sys.stderr, flush=True)

    results: dict[str, dict] = {}
    usage: dict = {}
    if not args.skip_baselines:
        baselines = run_budget_baselines if args.budgets else run_baselines
        results |= baselines(samples, questions, args.budgets or args.limit, log)
    if not args.skip_pipeline:
        measured, usage = asyncio.run(run_pipeline(samples, questions, args, log))
        results |= measured
    print(f"conversations: {', '.join(s['sample_id'] for s in samples)}; questions: {sum(map(len, questions.values()))}")
    print(format_budget_table(results, args.budgets, CATEGORIES) if args.budgets else format_table(results, CATEGORIES))
    if usage.get("mean tokens used"):
        print("beliefstream: mean tokens used " + ", ".join(f"{v:.0f} of {b}" for b, v in usage["mean tokens used"].items()))
    if usage.get("responses"):
        n = usage["responses"]
        print(
            f"beliefstream: {usage['items'] / n:.1f} items per recall, "
            f"{usage['cited_turns'] / max(usage['items'], 1):.2f} turns cited per item, {usage['tokens'] / n:.0f} tokens used"
        )
    if args.out:
        args.out.write_text(json.dumps({"results": results, "usage": usage, "argv": sys.argv[1:]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
