"""Round reports are cleaned by storage level like processed shards; today's file stays."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from companion_memory.core.clock import FakeClock
from companion_memory.device.reports import REPORTS_DIR, ReportsCleaner, append_report
from companion_memory.storage.fs import RealFileSystem
from companion_memory.storage.monitor import StorageLevel

RETENTION = {StorageLevel.NORMAL: 14, StorageLevel.WARNING: 7, StorageLevel.CRITICAL: 1}


async def test_reports_are_cleaned_by_level(tmp_path: Path) -> None:
    fs = RealFileSystem()
    clock = FakeClock(datetime(2026, 3, 31, 12, tzinfo=UTC))
    for day in (1, 20, 25, 30, 31):
        await asyncio.to_thread(append_report, fs, tmp_path, {"processors": []},
                                datetime(2026, 3, day, 9, tzinfo=UTC))
    directory = tmp_path / REPORTS_DIR

    def names() -> list[str]:
        return sorted(p.name for p in directory.iterdir())

    await asyncio.to_thread((directory / "notes.txt").write_text, "operator's own file")
    cleaner = ReportsCleaner(fs, tmp_path, clock, RETENTION)
    normal = await cleaner.clean(StorageLevel.NORMAL)  # keeps 14 days: drops March 1
    assert normal.removed == 1 and normal.freed_bytes > 0
    assert "2026-03-01.jsonl" not in await asyncio.to_thread(names)
    assert (await cleaner.clean(StorageLevel.WARNING)).removed == 1  # drops March 20
    assert (await cleaner.clean(StorageLevel.CRITICAL)).removed == 1  # drops March 25
    assert (await cleaner.clean(StorageLevel.EMERGENCY)).removed == 1  # drops March 30
    assert await asyncio.to_thread(names) == ["2026-03-31.jsonl", "notes.txt"]


async def test_missing_reports_folder_is_nothing_to_clean(tmp_path: Path) -> None:
    cleaner = ReportsCleaner(RealFileSystem(), tmp_path, FakeClock(), RETENTION)
    result = await cleaner.clean(StorageLevel.EMERGENCY)
    assert (result.removed, result.freed_bytes) == (0, 0)
