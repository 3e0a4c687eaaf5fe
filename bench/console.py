"""How fast the console opens a large user: 5,000 memories and 20,000 episodes.

A SQLite store (the embedded default) gets one user with `--memories` memories (four types, twelve
topics, a tenth of them superseded) and `--episodes` episodes written through the store's own write
path (`SqlMemoryStore.write`: reconcile, outbox and all), plus a few small users. The sidecar serves
it on a free port. Then, `--opens` times each:

- api: the requests the console makes to open a user, as it makes them (the overview, then the first
  page of beliefs, of episodes and the contested pairs at once), timed from the first request to the
  last answer;
- browser (when Debian's chromium and chromium-driver are installed): the console itself opened on
  that user in a real headless Chromium, timed by the page from the navigation to the moment the
  beliefs and episodes are on screen (`main[data-load-ms]`); and a cold load of the whole page
  (modules fetched, key entered) to the same moment.

    .venv/bin/python bench/console.py                 # 5,000 memories, 20,000 episodes, 20 opens
    .venv/bin/python bench/console.py --opens 50 --json bench/results/console.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from beliefs.records import JobState, Memory, MemoryType, Role, Turn, job_id_for, memory_id_for  # noqa: E402
from beliefs.write_plan import TurnOutcome  # noqa: E402
from reading.episode_keeping import episode_of  # noqa: E402
from sidecar.app import create_app  # noqa: E402
from sinks.sql.admin import AdminStore  # noqa: E402
from sinks.sql.store import SqlMemoryStore  # noqa: E402
from streams.settings import Settings  # noqa: E402

KEY = f"bench-{uuid.uuid4().hex[:8]}"
TENANT = "bench"
USER = "u-large"
T0 = datetime(2025, 1, 1, tzinfo=UTC)
TYPES = list(MemoryType)
TOPICS = ["work", "home", "food", "travel", "health", "tech", "family", "money", "sport", "music", "books", "pets"]
VECTOR = [0.5, -0.25, 1.0]  # SQL keeps whatever it is given; no index is built here
BATCH = 1000


class NoBroker:
    """The sidecar's publisher, unused here: nothing is retained during the benchmark."""

    async def publish(self, turns) -> None:
        raise RuntimeError("the console benchmark retains nothing")

    async def ping(self) -> bool:
        return True


def outcome(i: int, user: str, with_memory: bool) -> TurnOutcome:
    """Turn `i` of `user`, kept as an episode; with a memory for the first `--memories` turns."""
    said = T0 + timedelta(minutes=7 * i)
    turn = Turn(
        turn_id=f"{user}-t{i}", tenant_id=TENANT, user_id=user, session_id=f"s{i // 40}",
        role=Role.USER if i % 2 == 0 or with_memory else Role.ASSISTANT,
        text=f"Turn {i}: I said something about {TOPICS[i % len(TOPICS)]} worth keeping, number {i}.", ts=said,
    )  # fmt: skip
    memories = []
    if with_memory:
        slot = i - 1 if i % 10 == 9 else i  # every tenth memory supersedes the one before it
        memories.append(
            Memory(
                id=memory_id_for(TENANT, turn.turn_id, "0"), tenant_id=TENANT, user_id=user,
                text=f"User fact number {i} about {TOPICS[i % len(TOPICS)]}.", type=TYPES[i % len(TYPES)],
                topic=TOPICS[i % len(TOPICS)], importance=0.5, confidence=0.8, entity="user",
                attribute=f"bench_attribute_{slot}", value=f"value {i}", source_turn_ids=[turn.turn_id],
                evidence=turn.text, created_at=said, valid_from=said,
            )  # fmt: skip
        )
    episode = episode_of(turn, turn.text, None, said, 0.0)
    state = JobState.DONE if memories else JobState.SKIPPED
    return TurnOutcome(
        turn, job_id_for(TENANT, turn.turn_id), state, None if memories else "no_memory_extracted",
        memories, [VECTOR] * len(memories), episode, VECTOR,
    )  # fmt: skip


async def seed(url: str, memories: int, episodes: int) -> float:
    store = SqlMemoryStore(url)
    await store.setup()
    started = time.perf_counter()
    try:
        outcomes = [outcome(i, USER, i < memories) for i in range(max(memories, episodes))]
        for start in range(0, len(outcomes), BATCH):
            await store.write(outcomes[start : start + BATCH])
        for n in range(20):
            await store.write([outcome(i, f"u-small-{n:02d}", True) for i in range(5)])
    finally:
        await store.close()
    return time.perf_counter() - started


class Served:
    """The sidecar over the seeded store, served by uvicorn in a thread with its own event loop."""

    def __init__(self, url: str) -> None:
        self.sql_url = url
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.server: uvicorn.Server | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    async def _serve(self) -> None:
        store = SqlMemoryStore(self.sql_url)
        await store.setup()
        try:
            settings = Settings(api_keys=f"{KEY}={TENANT}")
            app = create_app(settings, store, NoBroker(), admin=AdminStore.of(store))  # type: ignore[arg-type]
            self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
            await self.server.serve(sockets=[self.sock])
        finally:
            await store.close()

    def __enter__(self) -> str:
        self.thread.start()
        while not (self.server and self.server.started):
            time.sleep(0.02)
        return self.url

    def __exit__(self, *_exc) -> None:
        assert self.server is not None
        self.server.should_exit = True
        self.thread.join(30)


async def api_open(base: str) -> tuple[float, dict]:
    """The console's requests to open the user, in the console's order; seconds and the overview."""
    headers = {"Authorization": f"Bearer {KEY}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        started = time.perf_counter()
        overview = (await http.get(f"/v1/users/{USER}")).raise_for_status().json()
        pages = [
            http.get(f"/v1/users/{USER}/memories", params={"state": "active", "order": "newest", "limit": 100}),
            http.get(f"/v1/users/{USER}/episodes", params={"state": "all", "order": "newest", "limit": 50}),
        ]
        if overview["open_contested"]:
            pages.append(http.get("/v1/contested", params={"user_id": USER, "status": "open"}))
        for answer in await asyncio.gather(*pages):
            answer.raise_for_status()
        return time.perf_counter() - started, overview


def browser_opens(base: str, opens: int) -> dict[str, list[float]] | None:
    """Milliseconds the console takes to show the user: warm (view change) and cold (page load)."""
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return None
    from tests.integration.browser import start_browser, wait_until

    with tempfile.TemporaryDirectory() as downloads:
        chrome = start_browser(Path(downloads))
        try:
            def ready(view: str) -> int:
                found = wait_until(
                    lambda: chrome.execute_script(
                        "const m = document.getElementById('main');"
                        "return m.dataset.ready === arguments[0] ? [m.dataset.loadMs, performance.now()] : null",
                        view,
                    ),
                    timeout=30,
                    what=f"the {view} view",
                )
                return found

            chrome.get(f"{base}/console")
            chrome.find_element("id", "key-input").send_keys(KEY + "\n")
            ready("users")
            warm, cold = [], []
            for _ in range(opens):
                chrome.execute_script("location.hash = '#/'")
                ready("users")
                chrome.execute_script(f"location.hash = '#/u/{USER}'")
                load_ms, _ = ready("user")
                warm.append(float(load_ms))
            for _ in range(max(3, opens // 4)):
                chrome.get("about:blank")
                chrome.get(f"{base}/console#/u/{USER}")  # the key is still in this tab's session
                _, since_navigation = ready("user")
                cold.append(float(since_navigation))
            shown = chrome.execute_script("return document.querySelectorAll('details.memory').length")
            quoted = chrome.execute_script("return document.querySelectorAll('li.episode').length")
            return {"warm_ms": warm, "cold_ms": cold, "beliefs_shown": [shown], "episodes_shown": [quoted]}
        finally:
            chrome.quit()


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "max": ordered[-1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5000, help="memories of the large user")
    parser.add_argument("--episodes", type=int, default=20000, help="episodes of the large user")
    parser.add_argument("--opens", type=int, default=20, help="times the user is opened")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bs-console-bench-") as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/memory.db"
        seconds = asyncio.run(seed(url, args.memories, args.episodes))
        print(f"seeded {args.memories} memories and {args.episodes} episodes in {seconds:.1f} s")
        with Served(url) as base:
            asyncio.run(api_open(base))  # warm the connection pool and SQLite's page cache
            api = []
            for _ in range(args.opens):
                took, overview = asyncio.run(api_open(base))
                api.append(took * 1000)
            browser = browser_opens(base, args.opens)
    figures = {
        "memories": overview["total"],
        "current": sum(overview["current_by_type"].values()),
        "episodes": sum(overview["episodes"].values()),
        "opens": args.opens,
        "api_ms": summary(api),
    }
    print(f"user: {figures['memories']} memories ({figures['current']} current), {figures['episodes']} episodes")
    print("api open (overview, then beliefs + episodes pages): median {median:.1f} ms, p95 {p95:.1f}, max {max:.1f}"
          .format(**figures["api_ms"]))  # fmt: skip
    if browser is None:
        print("browser: skipped (chromium and chromium-driver are not installed)")
    else:
        figures["browser_warm_ms"] = summary(browser["warm_ms"])
        figures["browser_cold_ms"] = summary(browser["cold_ms"])
        figures["shown"] = {"beliefs": browser["beliefs_shown"][0], "episodes": browser["episodes_shown"][0]}
        print("browser, users list → user shown: median {median:.0f} ms, p95 {p95:.0f}, max {max:.0f}"
              .format(**figures["browser_warm_ms"]))  # fmt: skip
        print("browser, cold page load → user shown: median {median:.0f} ms, p95 {p95:.0f}, max {max:.0f}"
              .format(**figures["browser_cold_ms"]))  # fmt: skip
        print(f"on screen: {figures['shown']['beliefs']} beliefs, {figures['shown']['episodes']} episodes (first pages)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
