"""Micro benchmark of what telemetry adds to the write path: a span with tracing off and on, a log
line bound to a turn (dropped by the level, and written as JSON), and counting one batch report in
the metrics.

Run: .venv/bin/python bench/telemetry.py [--calls 200000]
Tracing "on" is the SDK with a batch processor and no exporter (`OTEL_TRACES_EXPORTER=none`), so
the figure is the SDK's own cost, not a collector's.
"""

from __future__ import annotations

import argparse
import io
import logging
import sys
import timeit
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prometheus_client import CollectorRegistry  # noqa: E402

from agents.batch import BatchReport  # noqa: E402
from agents.metrics import IngestMetrics  # noqa: E402
from streams import tracing  # noqa: E402
from streams.logs import bound_turn, configure_logging  # noqa: E402


def per_call(body, calls: int) -> float:
    """Best of five, in seconds per call."""
    return min(timeit.repeat(body, number=calls, repeat=5)) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200_000)
    calls = parser.parse_args().calls

    def a_span() -> None:
        with tracing.span("beliefstream.sink", {"beliefstream.sink": "sql"}):
            pass

    off = per_call(a_span, calls)
    tracing.configure_tracing(environ={"OTEL_TRACES_EXPORTER": "none"})
    on = per_call(a_span, calls // 10)
    tracing.disable_tracing()

    configure_logging("json", level=logging.WARNING, stream=io.StringIO())
    turn = SimpleNamespace(tenant_id="acme", user_id="u-42", turn_id="t-1")
    log = logging.getLogger("agents.pipeline")

    def a_dropped_line() -> None:
        with bound_turn(turn):
            log.debug("turn %s written", turn.turn_id)

    dropped = per_call(a_dropped_line, calls // 10)

    def an_emitted_line() -> None:
        with bound_turn(turn):
            log.warning("turn %s refused by the store", turn.turn_id)

    emitted = per_call(an_emitted_line, calls // 100)
    metrics = IngestMetrics(CollectorRegistry())
    report = BatchReport(received=256, inserted=300, episodes=256, seconds=0.5, skip_reasons={"greeting": 20},
                         written={("preference", "trusted"): 200, ("fact", "trusted"): 100},
                         episodes_written={("user", "trusted"): 256})  # fmt: skip
    observed = per_call(lambda: metrics.observe(report), calls // 100)

    print(f"span, tracing off:             {off * 1e9:8.0f} ns")
    print(f"span, tracing on (no export):  {on * 1e9:8.0f} ns  ({on / off:.0f}x)")
    print(f"debug line bound to a turn, dropped by the level: {dropped * 1e9:8.0f} ns")
    print(f"warning line bound to a turn, rendered as JSON:  {emitted * 1e9:8.0f} ns")
    print(f"metrics of one 256-turn batch report: {observed * 1e6:8.1f} us")


if __name__ == "__main__":
    main()
