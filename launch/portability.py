"""`beliefstream export`, `import` and `reindex`: the belief state out of and into the SQL authority,
and the vector index rebuilt from it. The work is done by plain functions (`sinks.portability`,
`agents.portability`, `sinks.reindex`); here are the flags, the output and the exit codes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from beliefs.errors import BeliefstreamError

if TYPE_CHECKING:
    from sinks.reindex import IndexReport
    from sinks.sql.store import SqlMemoryStore
    from streams.settings import Settings

SettingsOf = Callable[[argparse.Namespace], "Settings"]

#: How the export's record lines begin, by kind (counted for the summary).
LINE_STARTS = {kind: f'{{"kind":"{kind}"' for kind in ("memory", "contested", "episode")}
#: `reindex --verify --dry-run` found problems it did not heal.
EXIT_PROBLEMS = 1

EXPORT_HELP = """\
Write users' belief states as JSON lines: a header line, then per user every memory in
every state (supersession chains, citations, confidence, importance, timestamps, agent and
visibility), every contradiction loop and every episode. The same format as GET /v1/users/{user_id}/export. Reads
BELIEFSTREAM_SQL_URL (default: the SQLite file under --data-dir), every agent's private rows
included, as one snapshot: a write committed while the export runs is not in the file.
Embeddings are not exported: `beliefstream import` recomputes them.

  beliefstream export --tenant acme --user u-42 --out u-42.jsonl
  beliefstream export --out everything.jsonl          # every tenant and user"""

IMPORT_HELP = """\
Load a file written by `beliefstream export` (or GET /v1/users/{user_id}/export) into the
store of BELIEFSTREAM_SQL_URL. Ids and history are kept as exported; a current belief is
reconciled with the store's own (a newer value supersedes the store's, the same belief is
confirmed, not duplicated); rows already present are skipped, so running it twice adds
nothing. Embeddings are recomputed with the local model and the vector points queued like
any write: the worker that owns the index (or `beliefstream dev`) writes them, or run
`beliefstream reindex`. Each user is one transaction."""

REINDEX_HELP = """\
Rebuild the vector index (embedded Qdrant under --data-dir, or BELIEFSTREAM_QDRANT_URL) from
the SQL authority: one point per memory and episode with an embedding, payloads as SQL says,
every other point deleted. With --verify, compare instead and print every point that is
`missing` (a row without its point), `extra` (a point no row owns), `stale` (its payload
differs from SQL: state, type, scope, scores) or `stale_vector` (its vector is not the
embedding SQL holds, by cosine within float16 rounding), then heal them; --dry-run only reports.

Exit status: 0 when the index matches SQL at the end (nothing found, or healed); 1 when
--dry-run found problems; 2 on an error. The embedded index has one owner: stop
`beliefstream dev` on the same --data-dir first (a Qdrant server needs no stop)."""


def add_commands(
    commands: argparse._SubParsersAction, data_dir: Callable[[argparse.ArgumentParser], None], settings_of: SettingsOf
) -> None:
    raw = argparse.RawDescriptionHelpFormatter
    export = commands.add_parser("export", help="write users' belief states (with history) as JSON lines",
                                 description=EXPORT_HELP, formatter_class=raw)
    export.add_argument("--tenant", help="only this tenant (default: every tenant)")
    export.add_argument("--user", help="only this user_id")
    export.add_argument("--out", help="write to this file (default: standard output)")
    data_dir(export)
    export.set_defaults(func=lambda args: cmd_export(args, settings_of(args)))

    import_ = commands.add_parser("import", help="load an export idempotently (same ids, reconciled)",
                                  description=IMPORT_HELP, formatter_class=raw)
    import_.add_argument("file", help="the .jsonl file `beliefstream export` wrote")
    data_dir(import_)
    import_.set_defaults(func=lambda args: cmd_import(args, settings_of(args)))

    reindex = commands.add_parser("reindex", help="rebuild the vector index from SQL, or verify and heal it",
                                  description=REINDEX_HELP, formatter_class=raw)
    reindex.add_argument("--verify", action="store_true", help="compare with SQL and heal what differs")
    reindex.add_argument("--dry-run", action="store_true", help="with --verify: report only, change nothing")
    data_dir(reindex)
    reindex.set_defaults(func=lambda args: cmd_reindex(args, settings_of(args)))


@contextlib.asynccontextmanager
async def _opened_store(settings: Settings) -> AsyncIterator[SqlMemoryStore]:
    from launch.runtime import sql_store

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = sql_store(settings)
    await store.setup()
    try:
        yield store
    finally:
        await store.close()


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from sinks.portability import export_users
    from sinks.reach import EVERY_AGENT

    async def main(out: TextIO) -> tuple[int, dict[str, int]]:
        async with _opened_store(settings) as store, store.export_snapshot() as snapshot:
            owners = await snapshot.owners(args.tenant, args.user)
            if args.user is not None and not owners:
                where = f"tenant {args.tenant!r}" if args.tenant else "any tenant"
                raise BeliefstreamError(f"no memories or episodes of user {args.user!r} in {where}")
            kinds = dict.fromkeys(LINE_STARTS, 0)
            async for line in export_users(snapshot, owners, EVERY_AGENT):
                out.write(line + "\n")
                for kind, start in LINE_STARTS.items():
                    kinds[kind] += line.startswith(start)
        return len(owners), kinds

    if args.out is None:
        users, kinds = asyncio.run(main(sys.stdout))
        where = "standard output"
    else:
        path = Path(args.out)
        if not path.parent.is_dir():
            raise BeliefstreamError(f"no such directory for --out: {path.parent}")
        with path.open("w", encoding="utf-8") as out:
            users, kinds = asyncio.run(main(out))
        where = str(path)
    print(f"exported {kinds['memory']:,} memories, {kinds['contested']:,} contested pairs and "
          f"{kinds['episode']:,} episodes of {users:,} user(s) to {where}", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise BeliefstreamError(f"no such file: {path}")
    from agents.portability import check_complete, import_records, read_records
    from embedding.embedder import load_default_embedder

    async def main(lines: TextIO) -> None:
        embedder = load_default_embedder(settings.embed_threads, settings.embed_batch_size, settings.embed_niceness)
        try:
            async with _opened_store(settings) as store:
                counts = await import_records(
                    read_records(lines), store, embedder, episode_vector=settings.episode_vector
                )
        finally:
            embedder.close()
        print(f"imported {counts.memories:,} memories, {counts.episodes:,} episodes and {counts.contested:,} "
              f"contested pairs from {path} "
              f"({counts.skipped:,} already present, skipped); {counts.superseded:,} of the store's beliefs "
              f"superseded, {counts.confirmed:,} confirmed. Their vector points are queued in SQL for the "
              "worker that owns the index (now if one runs, else at its start), or run `beliefstream reindex`.")

    try:
        with path.open(encoding="utf-8") as lines:  # a cut-short file is refused before anything is written
            check_complete(lines)
        with path.open(encoding="utf-8") as lines:  # read a line at a time, a user's rows at a time
            asyncio.run(main(lines))
    except UnicodeDecodeError as exc:
        raise BeliefstreamError(f"{path} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return 0


def cmd_reindex(args: argparse.Namespace, settings: Settings) -> int:
    if args.dry_run and not args.verify:
        raise BeliefstreamError("--dry-run goes with --verify (a rebuild always writes)")
    from sinks.errors import SinkUnavailableError
    from sinks.reindex import rebuild, verify
    from sinks.vectors import make_vector_index

    async def main() -> IndexReport:
        async with _opened_store(settings) as store:
            index = make_vector_index(settings)
            try:
                await index.setup()
            except SinkUnavailableError as exc:
                raise BeliefstreamError(f"cannot open the vector index: {exc}") from None
            try:
                if args.verify:
                    return await verify(store, index, heal=not args.dry_run)
                return await rebuild(store, index)
            finally:
                await index.close()

    report = asyncio.run(main())
    found_ids = (("missing", report.missing), ("extra", report.extra), ("stale", report.stale),
                 ("stale_vector", report.stale_vector))
    for label, ids in found_ids:
        for point_id in ids:
            print(f"{label} {point_id}")
    if not args.verify:
        print(f"rebuilt: {report.written:,} points written from SQL, {report.deleted:,} extra points deleted")
        return 0
    found = (f"{report.expected:,} points expected, {report.stored:,} stored: {len(report.missing):,} missing, "
             f"{len(report.extra):,} extra, {len(report.stale):,} stale, {len(report.stale_vector):,} stale_vector")
    if report.healed:
        print(f"{found}; healed ({report.written:,} written, {report.deleted:,} deleted)")
    else:
        print(found + ("; nothing changed (--dry-run)" if report.problems else ""))
    return EXIT_PROBLEMS if report.problems and not report.healed else 0
