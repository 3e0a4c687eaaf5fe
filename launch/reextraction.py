"""`beliefstream reextract`: beliefs rebuilt from the stored episodes with the current extractor.
The work is `agents.reextract`; here are the flags, the wiring of the extractor (the rules, or
Claude through the Message Batches API with its job kept in SQL) and the output.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from beliefs.errors import ConfigurationError

if TYPE_CHECKING:
    from streams.settings import Settings

SettingsOf = Callable[[argparse.Namespace], "Settings"]

REEXTRACT_HELP = """\
Read the stored episodes (the turns as kept, secrets already redacted) again with the current
extractor and reconcile what it finds like any write: new beliefs are added, a new value
supersedes the old one, a retraction ends one, events go out through the outbox. A memory a
person edited or revoked stays as it is. Each turn is re-extracted once per --tag: a second run
with the same tag changes nothing (give a new tag after the extractor changed). With
--extractor anthropic the turns go through the Message Batches API (half price; the job is kept
in SQL, and running the same command again after a restart resumes it).

  beliefstream reextract --tenant acme --user u-42 --dry-run
  beliefstream reextract --tenant acme --since 2026-01-01 --extractor anthropic"""


def _since(value: str) -> datetime:
    try:
        at = datetime.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date: {value!r} (use YYYY-MM-DD)") from None
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def add_command(commands: argparse._SubParsersAction, data_dir: Callable, settings_of: SettingsOf) -> None:
    parser = commands.add_parser(
        "reextract", help="rebuild beliefs from the stored episodes with the current extractor (dry run first)",
        description=REEXTRACT_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument("--tenant", help="the tenant (default: the only one of BELIEFSTREAM_API_KEYS, else dev)")
    parser.add_argument("--user", help="only this user_id (default: every user of the tenant)")
    parser.add_argument("--since", type=_since, help="only turns said on or after this date (YYYY-MM-DD)")
    parser.add_argument("--extractor", choices=("rules", "anthropic"), help="default: BELIEFSTREAM_EXTRACTOR")
    parser.add_argument("--tag", help="names this re-extraction (default: the extractor and its prompt version)")
    parser.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    data_dir(parser)
    parser.set_defaults(func=lambda args: cmd_reextract(args, settings_of))


def _tenant(args: argparse.Namespace, settings: Settings) -> str:
    if args.tenant:
        return args.tenant
    tenants = sorted({tenant for tenant, _ in settings.parsed_api_keys().values()})
    if len(tenants) > 1:
        raise ConfigurationError(f"several tenants have keys ({', '.join(tenants)}): pass --tenant")
    return tenants[0] if tenants else "dev"


async def _users(store, tenant: str, user: str | None) -> list[str]:
    if user:
        return [user]
    from sinks.sql.admin import AdminStore

    admin, users, cursor = AdminStore.of(store), [], None
    while True:
        page, cursor = await admin.list_users(tenant, limit=500, cursor=cursor)
        users += [row.user_id for row in page]
        if cursor is None:
            return users


def cmd_reextract(args: argparse.Namespace, settings_of: SettingsOf) -> int:
    settings = settings_of(args)
    name = args.extractor or settings.extractor
    if name == "anthropic":
        from llm.client import require_api_key

        require_api_key(settings)  # one line, before anything opens

    async def main() -> int:
        from agents.reextract import reextract
        from launch.runtime import open_maintenance
        from reading.extract.rules import RulesExtractor

        async with open_maintenance(settings) as (store, _projector, note):
            tenant = _tenant(args, settings)
            users = await _users(store, tenant, args.user)
            closing = None
            extractor, tag = RulesExtractor(), args.tag or "rules"
            if name == "anthropic":
                extractor, tag, closing = _batched(settings, store, args.tag)
            embed = None
            if not args.dry_run:
                from embedding.embedder import load_default_embedder

                embedder = load_default_embedder(settings.embed_threads, settings.embed_batch_size, settings.embed_niceness)
                embed = embedder.aembed
            try:
                report = await reextract(
                    store, extractor, tenant, users, tag=tag, since=args.since, dry_run=args.dry_run, embed=embed
                )
            finally:
                if closing is not None:
                    await closing()
        print(f"reextract ({name}, tag {tag}) of tenant {tenant}, {len(users)} user(s){' [dry run]' if args.dry_run else ''}")
        print("\n".join(report.lines(args.dry_run)))
        for line in getattr(extractor, "seen", ()):
            print(line)
        if note and not args.dry_run:
            print(f"note: {note}")
        return 0

    return asyncio.run(main())


def _batched(settings: Settings, store, tag: str | None):
    """Claude through the Message Batches API, its stored context and the rules as fallback."""
    from launch.runtime import extraction_context
    from llm.message_batches import BatchedExtractor, BatchExtraction
    from llm.prompts.extract_memories import VERSION
    from reading.extract.rules import RulesExtractor
    from sinks.sql.extraction_batches import SqlExtractionBatches

    jobs = SqlExtractionBatches.of(store)
    context = extraction_context(settings.model_copy(update={"extractor": "anthropic"}), store)
    batches = BatchExtraction(settings, jobs, fallback=RulesExtractor(), context=context)
    return BatchedExtractor(batches, jobs), tag or f"anthropic/{VERSION}/{settings.anthropic_model}", batches.aclose
