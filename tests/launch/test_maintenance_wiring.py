"""The worker's maintenance loops as the settings make them (issue 29, item 16): consolidation is a
weekly pass by default, and none at all when switched off; a closed window only decays."""

from __future__ import annotations

from types import SimpleNamespace

from launch.maintenance_wiring import consolidation_schedule, maintenance_loops
from streams.settings import Settings

WEEK_S = 7 * 24 * 3600.0


def loops(settings: Settings) -> dict[str, tuple[float, float]]:
    jobs = SimpleNamespace(close_windows=lambda: None, sweep=lambda consolidate=False: None)
    return {name: (interval, delay) for name, interval, _, delay in maintenance_loops(settings, jobs, None)}


def test_consolidation_is_weekly_by_default_and_can_be_switched_off(tmp_path) -> None:
    assert loops(Settings(data_dir=tmp_path))["consolidation sweep"] == (WEEK_S, WEEK_S)
    off = loops(Settings(data_dir=tmp_path, consolidation_enabled=False))
    assert "consolidation sweep" not in off and "decay sweep" in off


def test_the_first_scheduled_pass_is_a_dry_run_kept_under_the_data_dir(tmp_path) -> None:
    schedule = consolidation_schedule(Settings(data_dir=tmp_path))
    assert schedule.dry_run and schedule.diff_path.parent == tmp_path / "consolidation"
    assert not consolidation_schedule(Settings(data_dir=tmp_path, consolidation_dry_run_first=False)).dry_run
