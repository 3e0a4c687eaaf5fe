"""Benchmark of the CLI's start-up: how long a client command takes, as a newcomer types it.

Run: .venv/bin/python bench/cli.py [--runs 5] [--root PATH]

Each command runs as a fresh process (`python -m launch.cli ...`, from the checkout at --root,
default this one), --runs times; the median wall time is reported next to the interpreter's own
start (`python -c pass`), measured in the same run. Client calls go to a stub sidecar on a free
port (the standard library's HTTP server answering `/v1/recall` at once), so the figure is the
command's own cost, not the recall's. `mcp` is timed from launch to the answer of the MCP
`initialize` request over stdio, as an assistant launching it waits.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RECALL_ANSWER = json.dumps({"memories": [], "conflicts": [], "tokens_used": 0}).encode()
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


class _StubSidecar(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(RECALL_ANSWER)))
        self.end_headers()
        self.wfile.write(RECALL_ANSWER)

    def log_message(self, *_args: object) -> None:
        pass


def timed(command: list[str], root: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed


def timed_mcp(command: list[str], root: Path) -> float:
    """Launch to the answer of `initialize`, then close stdin so the server stops."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE) + "\n")
    process.stdin.flush()
    answer = process.stdout.readline()
    elapsed = time.perf_counter() - started
    process.stdin.close()
    process.wait(timeout=30)
    if '"result"' not in answer:
        raise SystemExit(f"mcp did not answer initialize: {answer!r}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5); the median is reported")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1],
                        help="the checkout whose CLI is timed (default: this one)")
    args = parser.parse_args()

    server = ThreadingHTTPServer(("127.0.0.1", 0), _StubSidecar)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    cli = [sys.executable, "-m", "launch.cli"]
    client = ["--url", url, "--key", "bench-key"]
    cases = {
        "python -c pass (interpreter start)": ([sys.executable, "-c", "pass"], timed),
        "beliefstream --help": ([*cli, "--help"], timed),
        "beliefstream recall --help": ([*cli, "recall", "--help"], timed),
        "beliefstream recall (one HTTP call)": ([*cli, "recall", "--user", "u-1", *client, "what do I like?"], timed),
        "beliefstream mcp (to initialize)": ([*cli, "mcp", *client], timed_mcp),
    }
    print(f"checkout {args.root}, {args.runs} runs each, median wall time")
    base = None
    for name, (command, measure) in cases.items():
        median = statistics.median(measure(command, args.root) for _ in range(args.runs))
        base = base or median
        print(f"  {name:40s} {median:6.2f} s   {median / base:5.1f}x the interpreter's start")
    server.shutdown()


if __name__ == "__main__":
    main()
