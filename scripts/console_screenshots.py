#!/usr/bin/env python3
"""Screenshots of every console view for docs/console.md, taken by the browser test itself.

Runs tests/integration/test_console.py (a real `beliefstream dev`, real turns, headless Chromium)
with BELIEFSTREAM_CONSOLE_SHOTS pointing at docs/console/, so each picture is of a flow the test
has just checked. With Pillow installed, each PNG is reduced to a 64-colour palette (a few tens of
KiB); without it they are kept as Chromium wrote them.

    .venv/bin/python scripts/console_screenshots.py            # rewrites docs/console/*.png
    .venv/bin/python scripts/console_screenshots.py --out /tmp/shots
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/integration/test_console.py"


def shrink(png: Path) -> None:
    """A palette PNG of the screenshot when Pillow is there (text and flat colours survive it)."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as image:
        reduced = image.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    reduced.save(png, optimize=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "console", help="where the PNGs go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, BELIEFSTREAM_CONSOLE_SHOTS=str(args.out.resolve()))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:randomly", "-rs"], cwd=ROOT, env=env, check=False
    )
    if run.returncode != 0:
        print(f"the browser test failed (exit {run.returncode}): no screenshots were refreshed", file=sys.stderr)
        return 1
    shots = sorted(args.out.glob("*.png"))
    if not shots:
        print("the browser test took no screenshot: is chromium installed? (see the skip reason above)", file=sys.stderr)
        return 1
    for png in shots:
        shrink(png)
        print(f"{png.relative_to(ROOT) if png.is_relative_to(ROOT) else png}  {png.stat().st_size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
