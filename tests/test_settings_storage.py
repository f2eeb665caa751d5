"""Each `[storage]` setting does what its docstring says, set in a config file and observed
through a `Runtime` on a fake clock and a fake disk: the free-space levels and their
hysteresis, the retention of processed notifications at each level, and how often the
root's owner rewrites its status file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from companion_memory import Runtime
from companion_memory.core.clock import FakeClock
from companion_memory.storage.monitor import FakeDiskProbe, MiB, StorageLevel
from tests.settings_helpers import START, configured, days, note, running, settle, wait_for

LEVELS = "[storage]\nwarning_free_mb = 2000\ncritical_free_mb = 1000\nemergency_free_mb = 500\n"


@pytest.mark.parametrize(("free_mb", "custom", "default"), [
    (1500, StorageLevel.WARNING, StorageLevel.NORMAL),
    (800, StorageLevel.CRITICAL, StorageLevel.WARNING),
    (400, StorageLevel.EMERGENCY, StorageLevel.WARNING),
])
async def test_free_mb_thresholds_set_the_storage_levels(
    tmp_path: Path, free_mb: int, custom: StorageLevel, default: StorageLevel,
) -> None:
    """`warning_free_mb`, `critical_free_mb`, `emergency_free_mb`: the level below each;
    Critical and Emergency refuse intake."""
    for name, toml, want in (("custom", LEVELS, custom), ("default", "", default)):
        cfg = await configured(tmp_path / name, toml)
        probe = FakeDiskProbe(free_bytes=free_mb * MiB)
        async with running(tmp_path / name, cfg, probe=probe) as runtime:
            assert await runtime.check_storage() is want
            totals = await runtime.feed([note("a", "Dinner at Luigi's on Saturday at 7")])
            assert totals.paused is (want >= StorageLevel.CRITICAL)


async def test_hysteresis_mb_is_the_margin_before_a_level_is_left(tmp_path: Path) -> None:
    """Warning below 1024 MiB; with `hysteresis_mb = 100` it is left at 1124 MiB, not at
    1100 (with 0, at once)."""
    seen = {}
    for margin in (0, 100):
        cfg = await configured(tmp_path / str(margin), f"[storage]\nhysteresis_mb = {margin}\n")
        probe = FakeDiskProbe(free_bytes=1000 * MiB)
        async with running(tmp_path / str(margin), cfg, probe=probe) as runtime:
            levels = [await runtime.check_storage()]
            for free in (1100, 1124):
                probe.free_bytes = free * MiB
                levels.append(await runtime.check_storage())
        seen[margin] = levels
    w, n = StorageLevel.WARNING, StorageLevel.NORMAL
    assert seen == {0: [w, n, n], 100: [w, w, n]}


async def kept_after(tmp_path: Path, toml: str, free_mb: int, after: float) -> int:
    """Notifications the log still holds `after` days past one processed at START, at the
    storage level `free_mb` sets (the cleaners run when the level is checked)."""
    cfg = await configured(tmp_path, toml)
    clock = FakeClock(START)
    probe = FakeDiskProbe(free_bytes=4 << 30)
    async with running(tmp_path, cfg, clock=clock, probe=probe) as runtime:
        await runtime.feed([note("a", "Dinner at Luigi's on Saturday at 7")])
        await runtime.run_once()
        probe.free_bytes = free_mb * MiB
        clock.set_wall(START + days(after))
        await runtime.check_storage()
        return len(await runtime.notifications_between(START - days(1), START + days(1)))


@pytest.mark.parametrize(("key", "free_mb"), [("normal_retention_days", 4096),
                                              ("warning_retention_days", 800),
                                              ("critical_retention_days", 200)])
async def test_retention_days_are_how_long_processed_notifications_stay(
    tmp_path: Path, key: str, free_mb: int,
) -> None:
    """The notification's day shard goes `n` whole days after its day ends: with n = 0 at
    the Critical level, from the next day; with n = 3 past the 15th, not before."""
    n = 0 if key == "critical_retention_days" else 3
    toml = f"[storage]\n{key} = {n}\n"
    if n == 0:
        assert await kept_after(tmp_path / "a", toml, free_mb, 0.5) == 1
        assert await kept_after(tmp_path / "b", toml, free_mb, 1.0) == 0
    else:
        assert await kept_after(tmp_path / "a", toml, free_mb, n + 0.5) == 1
        assert await kept_after(tmp_path / "b", toml, free_mb, n + 1.0) == 0
        # the default (14 at Normal, 7 at Warning) keeps it longer
        assert await kept_after(tmp_path / "c", "", free_mb, n + 1.0) == 1


def status_pending(runtime: Runtime) -> int:
    data = orjson.loads((runtime.root / "daemon" / "status.json").read_bytes())
    return int(data["pending"])


async def test_check_interval_s_is_how_often_the_status_file_is_rewritten(
    tmp_path: Path,
) -> None:
    """Between rounds the owner rewrites `daemon/status.json` every `check_interval_s` of
    its clock (the fake one here, so ten minutes pass at once): a notification taken in
    shows there after 600 s, not after 599."""
    cfg = await configured(tmp_path, "[storage]\ncheck_interval_s = 600.0\n"
                                     "[worker]\nidle_delay_s = 86400.0\n")
    clock = FakeClock(START)
    async with running(tmp_path, cfg, clock=clock, start_worker=True) as runtime:
        await settle()
        assert await asyncio.to_thread(status_pending, runtime) == 0
        await runtime.feed([note("a", "Dinner at Luigi's on Saturday at 7")])
        assert await runtime.pending_count() == 1
        await clock.advance(599.0)
        await settle()
        assert await asyncio.to_thread(status_pending, runtime) == 0
        await clock.advance(1.0)

        async def shown() -> bool:
            return await asyncio.to_thread(status_pending, runtime) == 1

        await wait_for(shown, what="the status file's refresh")
