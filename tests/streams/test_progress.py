from agents.pipeline import BatchReport
from streams.progress import IngestProgress


def test_progress_sums_batches_and_speaks_only_after_the_interval(monkeypatch):
    lines: list[str] = []
    clock = iter([0.0, 1.0, 11.0, 11.0])
    monkeypatch.setattr("streams.progress.time.monotonic", lambda: next(clock))
    progress = IngestProgress(lines.append, interval_s=10.0)
    progress(BatchReport(received=100, inserted=30, skipped=60, rejected=2))
    assert lines == []  # quiet inside the interval
    progress(BatchReport(received=50, inserted=10, confirmed=3, failed=1))
    assert len(lines) == 1
    assert "150 turns in 11s" in lines[0] and "40 new memories" in lines[0] and "3 to the DLQ" in lines[0]
