from __future__ import annotations

import errno

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_memory.storage.monitor import (
    CleanResult,
    FakeDiskProbe,
    GiB,
    MiB,
    StatvfsProbe,
    StorageLevel,
    StorageMonitor,
    ThresholdError,
    Thresholds,
    next_level,
    raw_level,
)


class RecordingCleaner:
    def __init__(self, name: str = "rec") -> None:
        self.name = name
        self.levels: list[StorageLevel] = []

    async def clean(self, level: StorageLevel) -> CleanResult:
        self.levels.append(level)
        return CleanResult(removed=1, freed_bytes=100)


T = Thresholds(warning=1000, critical=500, emergency=100, hysteresis=50)


def test_raw_levels_at_boundaries() -> None:
    assert raw_level(1000, T) is StorageLevel.NORMAL
    assert raw_level(999, T) is StorageLevel.WARNING
    assert raw_level(499, T) is StorageLevel.CRITICAL
    assert raw_level(99, T) is StorageLevel.EMERGENCY


def test_hysteresis_prevents_flapping() -> None:
    level = next_level(StorageLevel.NORMAL, 999, T)
    assert level is StorageLevel.WARNING
    # Back just above the boundary: still WARNING until threshold + hysteresis.
    assert next_level(level, 1001, T) is StorageLevel.WARNING
    assert next_level(level, 1049, T) is StorageLevel.WARNING
    assert next_level(level, 1050, T) is StorageLevel.NORMAL
    # From EMERGENCY a big recovery walks down all the way.
    assert next_level(StorageLevel.EMERGENCY, 5000, T) is StorageLevel.NORMAL
    # A partial recovery stops at the level whose margin is not yet cleared.
    assert next_level(StorageLevel.EMERGENCY, 520, T) is StorageLevel.CRITICAL


@given(st.lists(st.integers(min_value=0, max_value=2000), min_size=1, max_size=40))
def test_level_never_better_than_raw(frees: list[int]) -> None:
    level = StorageLevel.NORMAL
    for free in frees:
        level = next_level(level, free, T)
        assert level >= raw_level(free, T)
        # and never worse than the level of free - hysteresis
        assert level <= raw_level(max(0, free - T.hysteresis), T)


def test_thresholds_validated_with_names() -> None:
    with pytest.raises(ThresholdError, match="warning > critical > emergency"):
        Thresholds(warning=10, critical=20, emergency=5)
    with pytest.raises(ThresholdError, match=r"storage\.critical_free_bytes"):
        Thresholds(critical=0)
    assert Thresholds().warning == 1 * GiB


async def test_monitor_runs_cleaners_and_reports_changes() -> None:
    probe = FakeDiskProbe(free_bytes=2 * GiB)
    monitor = StorageMonitor(probe)
    cleaner = RecordingCleaner()
    monitor.register(cleaner)
    seen: list[tuple[StorageLevel, bool]] = []
    monitor.subscribe(lambda level, allowed: seen.append((level, allowed)))
    report = await monitor.check()
    assert report.level is StorageLevel.NORMAL and not report.changed
    assert report.cleaners == {"rec": {"removed": 1, "freed_bytes": 100}}
    probe.free_bytes = 100 * MiB
    report = await monitor.check()
    assert report.changed and report.level is StorageLevel.CRITICAL
    assert not report.intake_allowed
    assert seen[-1] == (StorageLevel.CRITICAL, False)
    assert cleaner.levels == [StorageLevel.NORMAL, StorageLevel.CRITICAL]
    assert report.to_dict()["previous"] == "normal"


async def test_probe_failure_is_cautious_never_normal() -> None:
    probe = FakeDiskProbe(free_bytes=800 * MiB)  # WARNING
    monitor = StorageMonitor(probe)
    cleaner = RecordingCleaner()
    monitor.register(cleaner)
    await monitor.check()
    assert monitor.level is StorageLevel.WARNING and monitor.intake_allowed
    probe.error = OSError(errno.EIO, "probe broke")
    report = await monitor.check()
    assert report.degraded and not report.intake_allowed
    # Cleaners ran no more aggressively than the last known level.
    assert cleaner.levels[-1] is StorageLevel.WARNING
    assert report.level is StorageLevel.WARNING
    assert report.free_bytes is None
    probe.error = None
    probe.free_bytes = 4 * GiB
    report = await monitor.check()
    assert not report.degraded and report.intake_allowed
    assert report.level is StorageLevel.NORMAL


async def test_duplicate_cleaner_name_refused() -> None:
    monitor = StorageMonitor(FakeDiskProbe(free_bytes=GiB * 2))
    monitor.register(RecordingCleaner("a"))
    with pytest.raises(ValueError, match="already registered"):
        monitor.register(RecordingCleaner("a"))


async def test_statvfs_probe_reads_real_filesystem(tmp_path: object) -> None:
    monitor = StorageMonitor(StatvfsProbe(str(tmp_path)))
    report = await monitor.check()
    assert report.free_bytes is not None and report.free_bytes > 0
