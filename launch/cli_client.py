"""The client commands of `beliefstream`: `recall`, `mcp`, and `consolidate` against a sidecar.

Each is one or a few HTTP calls to the sidecar `launch.cli_target` finds (the running `dev`, or
--url/--key), so they import the HTTP client and nothing of the server.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from streams.settings import Settings

URL_HELP = ("sidecar URL (default: the one a running `beliefstream dev` recorded under --data-dir, "
            "else BELIEFSTREAM_HOST:BELIEFSTREAM_PORT)")
KEY_HELP = ("API key (default: the running `dev`'s, else the first of BELIEFSTREAM_API_KEYS, "
            "else the dev key under --data-dir)")


def recall(args: argparse.Namespace, settings: Settings) -> None:
    import json

    from launch.cli_target import client_failure, find_target
    from sidecar.client import MemoryClientError, SyncMemoryClient

    target = find_target(settings, args.url, args.key)
    options = {"budget_tokens": args.budget, "limit": args.limit, "diagnostics": args.diagnostics}
    if args.topic:
        options["topic"] = args.topic
    filters = {"since": args.since, "until": args.until, "types": args.type, "agent": args.agent}
    options.update({name: value for name, value in filters.items() if value})
    try:
        with SyncMemoryClient(target.url, target.api_key) as client:
            answer = client.recall(args.user, args.query, **options)
    except MemoryClientError as exc:
        raise client_failure("recall failed", target, exc) from None
    if args.json:
        print(json.dumps(answer, indent=2))
        return
    if not answer["memories"]:
        print("no memory is eligible for this query (empty recall is a valid answer)")
    for memory in answer["memories"]:
        print(f"- {memory['text']}  [{memory['type']}, confidence {memory['effective_confidence']:.2f}, "
              f"{memory['recall_reason']}]")
    for conflict in answer.get("conflicts", []):
        print(f"! conflict: {json.dumps(conflict)}")
    print(f"({answer['tokens_used']} tokens)")


def mcp(args: argparse.Namespace, settings: Settings) -> None:
    from launch.cli_target import find_target
    from sidecar.mcp_proxy import serve_stdio

    target = find_target(settings, args.url, args.key)
    # stdout carries the MCP protocol: nothing else may be printed there
    asyncio.run(serve_stdio(target.url, target.api_key))


def consolidate_remotely(args: argparse.Namespace, settings: Settings) -> bool:
    """Consolidate through a sidecar (a running `dev` owns the vectors) unless --tenant asks for this
    process; False when this process must do it."""
    from launch.service_record import read_service_record

    if args.tenant is not None or (args.url is None and read_service_record(settings.data_dir) is None):
        return False
    import json

    from launch.cli_target import client_failure, find_target
    from sidecar.client import MemoryClientError, SyncMemoryClient

    target = find_target(settings, args.url, args.key)
    options = {"dry_run": not args.apply, "similarity_threshold": args.threshold}
    if args.user:
        options["user_id"] = args.user
    try:
        with SyncMemoryClient(target.url, target.api_key, timeout_s=300) as client:
            diff = client.consolidate(args.topic, **options)
    except MemoryClientError as exc:
        raise client_failure("consolidation failed", target, exc) from None
    print(json.dumps(diff, indent=2))
    return True
