#!/usr/bin/env python3
"""Regenerate the HTTP reference in docs/api.md from the sidecar's OpenAPI document.

Run after changing a route, a request or an answer model:

    .venv/bin/python scripts/api_docs.py           # rewrites docs/api.md below its marker line
    .venv/bin/python scripts/api_docs.py --check   # exit 1 when docs/api.md is out of step (CI)
    .venv/bin/python scripts/api_docs.py --json    # print /openapi.json instead

The prose above the marker line of docs/api.md (topic, records, CLI, configuration) is written by
hand and kept as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sidecar.api_reference import full_app_openapi, regenerated  # noqa: E402

DOCUMENT = ROOT / "docs" / "api.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true", help="only check; exit 1 when docs/api.md is stale")
    action.add_argument("--json", action="store_true", help="print the OpenAPI document and exit")
    args = parser.parse_args()
    openapi = full_app_openapi()
    if args.json:
        print(json.dumps(openapi, indent=2, sort_keys=True))
        return 0
    wanted = regenerated(DOCUMENT, openapi)
    if args.check:
        if DOCUMENT.read_text() != wanted:
            print(f"{DOCUMENT.relative_to(ROOT)} is out of step with /openapi.json: run {sys.argv[0]}",
                  file=sys.stderr)
            return 1
        print(f"{DOCUMENT.relative_to(ROOT)} is in step with /openapi.json")
        return 0
    DOCUMENT.write_text(wanted)
    print(f"wrote {DOCUMENT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
