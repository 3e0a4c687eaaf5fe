"""The worker's collector settings: start-up objects frozen, young collections less often."""

from __future__ import annotations

import gc

from streams.gc_tuning import YOUNG_THRESHOLD, tune_for_throughput


def test_freezes_the_start_up_heap_and_raises_the_young_threshold() -> None:
    before = gc.get_threshold()
    try:
        tune_for_throughput()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
