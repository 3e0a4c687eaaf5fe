"""`beliefstream decay` and `beliefstream consolidate`: the maintenance passes, run once from the
command line (the worker runs them on its own schedule). Decay scores every active memory and
deletes episodes past their retention; consolidation merges near-duplicates of a topic, through a
running sidecar when there is one, else in this process.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from launch import cli_client
from launch.cli_client import KEY_HELP, URL_HELP

if TYPE_CHECKING:
    from streams.settings import Settings

#: `launch.cli`'s settings reader: the flags over BELIEFSTREAM_*, telemetry unless told not to.
SettingsOf = Callable[..., "Settings"]


def add_commands(commands: argparse._SubParsersAction, data_dir: Callable, settings_of: SettingsOf) -> None:
    """The `decay` and `consolidate` subcommands, in the place `launch.cli` lists them."""
    decay = commands.add_parser("decay", help="score every active memory's decay once (the worker does it hourly)",
                                description="decay_score = raw + (1 - raw) * boost, raw = exp(-lambda * age_days), "
                                "boost = min(1, ln(1 + accesses) / ln(1 + boost_cap)); expired volatile facts leave "
                                "recall. Decayed memories rank lower; no memory is deleted. Episodes (turns kept as "
                                "said) past BELIEFSTREAM_EPISODE_RETENTION_DAYS are deleted with their vectors.")
    decay.add_argument("--tenant", help="only this tenant (default: all)")
    data_dir(decay)
    decay.set_defaults(func=lambda args: cmd_decay(args, settings_of))

    consolidate = commands.add_parser("consolidate", help="merge near-duplicate memories of a topic (dry run first)",
                                      description="Group active memories of one topic per user by cosine similarity "
                                      "and merge each group into one canonical memory that keeps every detail. "
                                      "Prints the diff; nothing is written without --apply.")
    consolidate.add_argument("--topic", required=True, help="tech, work, personal, health, ...")
    consolidate.add_argument("--apply", action="store_true", help="write the merges (default: dry run)")
    consolidate.add_argument("--user", help="only this user_id")
    consolidate.add_argument("--tenant", help="run in this process for this tenant (only when no `dev` owns the "
                             "vectors; default: ask the running sidecar, whose key decides the tenant)")
    consolidate.add_argument("--threshold", type=float, default=0.85, help="cosine similarity (default 0.85)")
    consolidate.add_argument("--url", help=URL_HELP)
    consolidate.add_argument("--key", help=KEY_HELP)
    consolidate.add_argument("--port", type=int, help=argparse.SUPPRESS)
    data_dir(consolidate)
    consolidate.set_defaults(func=lambda args: cmd_consolidate(args, settings_of))


def cmd_decay(args: argparse.Namespace, settings_of: SettingsOf) -> None:
    from launch.runtime import decay_job, open_maintenance

    settings = settings_of(args)

    async def main() -> None:
        async with open_maintenance(settings) as (store, projector, note):
            report = await decay_job(settings, store, projector)(tenant_id=args.tenant)
        print(f"decay: {report.rows:,} active memories scored in {report.seconds:.1f}s, "
              f"{report.updated:,} scores changed, {report.expired:,} expired, "
              f"{report.episodes_purged:,} episodes past their retention deleted")
        if note:
            print(f"note: {note}")

    asyncio.run(main())


def cmd_consolidate(args: argparse.Namespace, settings_of: SettingsOf) -> None:
    settings = settings_of(args, telemetry=False)
    if cli_client.consolidate_remotely(args, settings):
        return

    from launch.runtime import consolidator_for, open_maintenance
    from launch.telemetry import configure_telemetry

    configure_telemetry(settings, verbose=args.verbose)

    async def main() -> None:
        from embedding.embedder import load_default_embedder

        async with open_maintenance(settings) as (store, projector, note):
            embedder = load_default_embedder(settings.embed_threads, settings.embed_batch_size, settings.embed_niceness)
            consolidator = consolidator_for(settings, store, projector, embedder)
            tenant = args.tenant or next(iter(settings.parsed_api_keys().values()), ("dev", None))[0]
            diff = await consolidator(tenant, args.topic, user_id=args.user, threshold=args.threshold,
                                      dry_run=not args.apply)
        print(diff.model_dump_json(indent=2))

    asyncio.run(main())
