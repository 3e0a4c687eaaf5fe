"""`beliefstream`: the command line. Settings come from BELIEFSTREAM_* and the flags given here.

Each command imports what it uses inside itself: `--help` and the client commands (`recall`,
`consolidate` against a sidecar, `mcp`) never load the runtime, the models or the stores.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from beliefs.errors import BeliefstreamError
from launch import cli_client, maintenance_commands, portability, reextraction
from launch.cli_client import KEY_HELP, URL_HELP

if TYPE_CHECKING:  # the settings (pydantic-settings) load only for a command that runs
    from streams.settings import Settings

DESCRIPTION = """\
beliefstream turns conversation turns on Kafka into a governed belief state per user
(typed, scored, sourced, revisable memories) and serves recall over HTTP.

Start here:
  beliefstream dev                 broker + worker + sidecar on this machine (embedded defaults)
  beliefstream publish turns.jsonl send turns (one JSON object a line) to the running system

Configuration is read from BELIEFSTREAM_* environment variables (see README.md);
the flags below override them.
"""


def _settings(args: argparse.Namespace, *, telemetry: bool = True) -> Settings:
    """Settings from BELIEFSTREAM_* and the flags; with `telemetry`, this process's structured logs
    and traces are set up from them (the client commands skip that: their start-up stays short)."""
    from pydantic import ValidationError

    from beliefs.errors import ConfigurationError
    from streams.settings import Settings

    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None) is not None:
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "port", None) is not None:
        overrides["port"] = args.port
    if getattr(args, "host", None) is not None:
        overrides["host"] = args.host
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {e['msg']}" for e in exc.errors())
        raise ConfigurationError(f"invalid configuration (BELIEFSTREAM_*): {problems}") from None
    if telemetry:
        from launch.telemetry import configure_telemetry

        configure_telemetry(settings, verbose=getattr(args, "verbose", False))
    return settings


def _run_until_signalled(main: Callable[[asyncio.Event], Coroutine[Any, Any, None]]) -> None:
    """Run `main(stop)` and set `stop` on Ctrl-C or SIGTERM, so everything shuts down in order."""

    async def runner() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await main(stop)

    asyncio.run(runner())


def cmd_dev(args: argparse.Namespace) -> None:
    from launch.dev import run_dev

    settings = _settings(args)
    if not settings.broker and not args.verbose:
        # the embedded broker's state is logged once per change by its supervisor, not by every client's poll
        logging.getLogger("aiokafka").setLevel(logging.CRITICAL)

    def announce(message: str) -> None:
        print(message, flush=True)

    _run_until_signalled(lambda stop: run_dev(settings, stop, announce))
    print("beliefstream stopped.", flush=True)
    _exit_past_stuck_threads()


def _exit_past_stuck_threads(grace_s: float = 2.0) -> None:
    """Everything is stopped and closed (SQL holds what is kept); a client thread still waiting on a
    broker that died under it (faust's consumer thread) must not keep the process from exiting."""
    import threading
    import time

    deadline = time.monotonic() + grace_s
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    for thread in others:
        thread.join(max(0.0, deadline - time.monotonic()))
    if any(thread.is_alive() for thread in others):
        logging.getLogger(__name__).warning("exiting past client threads still waiting on the broker")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _require_broker(settings: Settings) -> str:
    from launch.service_record import recorded_broker_url

    url = settings.broker or recorded_broker_url(settings.data_dir)
    if url is None:
        raise BeliefstreamError(
            "no broker: set BELIEFSTREAM_BROKER=kafka://host:port, or start `beliefstream dev` "
            f"with the same --data-dir ({settings.data_dir})"
        )
    return url


def cmd_worker(args: argparse.Namespace) -> None:
    from launch.progress import IngestProgress
    from launch.runtime import open_clients, run_worker

    settings = _settings(args)
    url = _require_broker(settings)

    async def main(stop: asyncio.Event) -> None:
        if settings.worker_metrics_port is not None:
            from prometheus_client import start_http_server

            start_http_server(settings.worker_metrics_port, addr=settings.host)
            print(f"worker metrics on http://{settings.host}:{settings.worker_metrics_port}/metrics", flush=True)
        async with open_clients(settings, url) as clients:
            print(f"worker consuming {settings.turns_topic} from {url}", flush=True)
            await run_worker(settings, url, clients, stop, IngestProgress(lambda line: print(line, flush=True)))

    _run_until_signalled(main)


def cmd_sidecar(args: argparse.Namespace) -> None:
    from launch.dev import dev_api_key
    from launch.runtime import open_clients
    from launch.sidecar_serving import run_sidecar

    settings = dev_api_key(_settings(args))
    url = _require_broker(settings)

    async def main(stop: asyncio.Event) -> None:
        async with open_clients(settings, url) as clients:
            print(f"sidecar on http://{settings.host}:{settings.port}", flush=True)
            await run_sidecar(settings, clients, stop)

    _run_until_signalled(main)


def cmd_migrate(args: argparse.Namespace) -> None:
    from sinks.sql.store import SqlMemoryStore

    settings = _settings(args)
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    async def main() -> None:
        store = SqlMemoryStore(settings.resolved_sql_url, events_topic=settings.events_topic)
        await store.setup()
        await store.close()

    asyncio.run(main())
    print(f"migrated {settings.resolved_sql_url.split('@')[-1]} to the latest schema")


def cmd_publish(args: argparse.Namespace) -> None:
    from launch.dev import recorded_sql_url
    from launch.durable_publish import publish_file_durably
    from streams.publish import publish_file

    settings = _settings(args)
    if not Path(args.file).is_file():
        raise BeliefstreamError(f"no such file: {args.file}")
    url = _require_broker(settings)
    path = Path(args.file)
    if not path.is_file():
        raise BeliefstreamError(f"no such file: {path}")
    sql_url = None if settings.broker else recorded_sql_url(settings)
    if sql_url:  # the embedded broker of a running `dev` keeps nothing: its SQL intake does
        publishing = publish_file_durably(path, settings, url, sql_url, tenant=args.tenant, show_progress=True)
    else:
        publishing = publish_file(path, settings, url, tenant=args.tenant, show_progress=True)
    sent = asyncio.run(publishing)
    print(f"published {sent.sent} turns to {settings.turns_topic} ({sent.unparsed} lines were not JSON "
          f"and go to the DLQ with a reason; {sent.dead_lettered} lines too large for the broker went "
          f"to {settings.dlq_topic} directly)")


def cmd_recall(args: argparse.Namespace) -> None:
    cli_client.recall(args, _settings(args, telemetry=False))


def cmd_mcp(args: argparse.Namespace) -> None:
    cli_client.mcp(args, _settings(args, telemetry=False))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="beliefstream", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def data_dir(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", help="where SQLite, vectors and the dev key live (default ./.beliefstream)")

    dev = commands.add_parser("dev", help="run broker, worker and sidecar on embedded defaults",
                              description="Start the embedded broker, the worker and the sidecar in one process. "
                              "Prints the sidecar URL and a dev API key. Ctrl-C stops everything cleanly.")
    dev.add_argument("--port", type=int, help="sidecar HTTP port (default 8080)")
    dev.add_argument("--host", help="sidecar bind address (default 127.0.0.1)")
    data_dir(dev)
    dev.set_defaults(func=cmd_dev)

    worker = commands.add_parser("worker", help="consume turns and write memories (needs a broker)",
                                 description="Run the write pipeline against BELIEFSTREAM_BROKER.")
    data_dir(worker)
    worker.set_defaults(func=cmd_worker)

    sidecar = commands.add_parser("sidecar", help="serve the HTTP API (needs a broker)",
                                  description="Serve the recall sidecar. With embedded Qdrant only one process "
                                  "may own the vectors: use `dev`, or set BELIEFSTREAM_QDRANT_URL.")
    sidecar.add_argument("--port", type=int, help="HTTP port (default 8080)")
    sidecar.add_argument("--host", help="bind address (default 127.0.0.1)")
    data_dir(sidecar)
    sidecar.set_defaults(func=cmd_sidecar)

    publish = commands.add_parser(
        "publish", help="publish turns from a JSON-lines file, with progress",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
Publish every line of FILE to the turns topic, keyed tenant:user. FILE is JSON lines:
one turn per line, for example

  {"turn_id": "t-1", "tenant_id": "dev", "user_id": "u-42", "role": "user",
   "text": "I always use dark mode.", "ts": "2026-11-21T10:00:00Z"}

turn_id, user_id, role (user, assistant, system or tool) and text are required;
tenant_id (or --tenant), agent_id, session_id, ts and metadata are optional. Every
field is described in docs/api.md (section 1); docs/examples/turns.jsonl is a small
example. Lines that are not valid turns still go out: the pipeline sends them to the
DLQ with the reason; a line too large for the broker goes to the DLQ directly. No
line stops the run. Into a running `beliefstream dev` (same --data-dir), turns are
first kept in its SQL store, so a crash of dev loses none of them; publishing the
same file again never processes a turn twice.""",
    )
    publish.add_argument("file", help="the .jsonl file of turns")
    publish.add_argument("--tenant", help="tenant_id for lines that have none")
    data_dir(publish)
    publish.set_defaults(func=cmd_publish)

    recall = commands.add_parser("recall", help="ask the running sidecar what it would recall for a query",
                                 description="Recall through the sidecar's HTTP API (`beliefstream dev` must be "
                                 "running): the memories a prompt would get, in prompt order, with why.")
    recall.add_argument("query", help="the text of the next turn, e.g. 'what should I cook tonight?'")
    recall.add_argument("--user", required=True, help="user_id whose memories to recall")
    recall.add_argument("--topic", help="limit to one topic (tech, work, personal, health, ...)")
    recall.add_argument("--since", help="only memories valid from this time on (ISO 8601, e.g. 2026-11-01)")
    recall.add_argument("--until", help="only memories valid from before this time (ISO 8601)")
    recall.add_argument("--type", action="append", choices=["preference", "fact", "decision", "procedure"],
                        help="only this type (repeat for several)")
    recall.add_argument("--agent", help="only memories written by this agent")
    recall.add_argument("--budget", type=int, default=800, help="token budget (default 800)")
    recall.add_argument("--limit", type=int, default=20, help="at most this many memories (default 20)")
    recall.add_argument("--diagnostics", action="store_true", help="include candidates and suppressed items")
    recall.add_argument("--json", action="store_true", help="print the raw JSON answer")
    recall.add_argument("--url", help=URL_HELP)
    recall.add_argument("--key", help=KEY_HELP)
    recall.add_argument("--port", type=int, help=argparse.SUPPRESS)
    data_dir(recall)
    recall.set_defaults(func=cmd_recall)

    mcp = commands.add_parser(
        "mcp", help="MCP server over stdio for assistants, forwarding to the running sidecar",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
Serve the MCP tools store_memory, recall_memories, consolidate_memories and forget on
stdin/stdout, for MCP clients (desktop assistants, IDEs) that launch their servers as a
command. Each call goes to a running sidecar over HTTP (start `beliefstream dev` or
`beliefstream sidecar` first): the tools are the same as the sidecar's own /mcp endpoint,
and the API key decides the tenant. A refusal of the sidecar comes back as a tool error
with its message. The command prints nothing else on stdout; it stops when the client
closes stdin.

With no --url/--key it finds the `beliefstream dev` running on the same --data-dir.
Example MCP client configuration:
  {"command": "beliefstream", "args": ["mcp", "--data-dir", "/path/to/.beliefstream"]}
or, for another sidecar:
  {"command": "beliefstream", "args": ["mcp", "--url", "http://host:8080", "--key", "<key>"]}""",
    )
    mcp.add_argument("--url", help=URL_HELP)
    mcp.add_argument("--key", help=KEY_HELP)
    data_dir(mcp)
    mcp.set_defaults(func=cmd_mcp)

    maintenance_commands.add_commands(commands, data_dir, _settings)  # decay, consolidate

    migrate = commands.add_parser("migrate", help="create or upgrade the SQL schema",
                                  description="Run the Alembic migrations against BELIEFSTREAM_SQL_URL.")
    data_dir(migrate)
    migrate.set_defaults(func=cmd_migrate)
    portability.add_commands(commands, data_dir, _settings)  # export, import, reindex
    reextraction.add_command(commands, data_dir, _settings)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        for noisy in ("faust", "mode", "aiokafka"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
    try:
        code = args.func(args)
    except BeliefstreamError as exc:
        print(f"beliefstream: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code or 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
