"""`ConsolidationSchedule`: when the worker's weekly consolidation writes, and where its diffs are kept.

The design reading's rule: consolidation runs weekly (or on demand), never per write or per hourly
window, and a dry run comes before the first run that writes. So the first scheduled pass of a
deployment is a dry run; every diff it finds is kept (one JSON line per scope with groups, in
`<data_dir>/consolidation/diffs.jsonl`), and a marker says the preview was made; from the next
pass on the sweep applies, and keeps what it applied the same way. Deleting the marker makes the
next pass a dry run again. The off switch (`BELIEFSTREAM_CONSOLIDATION_ENABLED=false`) leaves the
pass unscheduled; the route, the CLI and the MCP tool still run on demand (dry run by default).
"""

from __future__ import annotations

import json
from pathlib import Path

from beliefs.consolidation_diff import ConsolidationDiff
from beliefs.records import utcnow

DIFFS = "diffs.jsonl"
PREVIEWED = "previewed"


class ConsolidationSchedule:
    """A dry run first, its diff kept; applying from the pass after it."""

    def __init__(self, directory: Path, dry_run_first: bool = True) -> None:
        self.directory = Path(directory)
        self.dry_run_first = dry_run_first

    @property
    def dry_run(self) -> bool:
        """Whether the next pass only previews: no pass has previewed yet (and previews are wanted)."""
        return self.dry_run_first and not (self.directory / PREVIEWED).exists()

    @property
    def diff_path(self) -> Path:
        return self.directory / DIFFS

    def keep(self, diff: ConsolidationDiff) -> None:
        """Append a diff that found groups, with when it was kept."""
        if not diff.groups:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"kept_at": utcnow().isoformat(), **diff.model_dump(mode="json")}, sort_keys=True)
        with self.diff_path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    def finished(self, dry_run: bool, complete: bool = True) -> None:
        """After a pass: a complete dry run marks the preview made, so the next pass applies."""
        if dry_run and complete:
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / PREVIEWED).write_text(utcnow().isoformat() + "\n", encoding="utf-8")
