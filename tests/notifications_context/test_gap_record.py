"""Gaps are an append-only, fsynced record: O(1) to add, a torn last line cut, and
state files that still hold their gaps are migrated on open without loss."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import orjson
import pytest

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notification_log import state as log_state
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.storage.atomic import CorruptStateError
from companion_memory.storage.faultfs import FaultFileSystem, PowerLoss
from companion_memory.storage.journal import encode_record
from tests.notifications_context.helpers import T0

ROOT = "/r"
STATE = "/r/notifications/state.json"
GAPS = "/r/notifications/gaps.jsonl"


async def open_ctx(fs: FaultFileSystem, **kw: Any) -> NotificationContext:
    return await NotificationContext.open(ROOT, EventRing(), fs=fs, clock=FakeClock(T0), **kw)


def legacy_gap(i: int) -> dict[str, Any]:
    return {"kind": "poison_batch", "first": i, "last": i, "count": 1,
            "reason": "retry_budget_exhausted", "at": "2026-03-01T22:00:00Z", "ref": None}


def legacy_root(gaps: int, dropped: int = 0) -> FaultFileSystem:
    """A root written before gaps had their own record: they sit in state.json."""
    fs = FaultFileSystem()
    fs.makedirs("/r/notifications/events")
    state = {"version": 1, "memory_cursor": 0, "gaps": [legacy_gap(i) for i in range(1, gaps + 1)],
             "gaps_dropped": dropped}
    fs.write_file(STATE, orjson.dumps(state))
    fs.fsync(STATE)
    for directory in ("/", "/r", "/r/notifications", "/r/notifications/events"):
        fs.fsync_dir(directory)
    return fs


def keys(gaps: list[Any]) -> list[tuple[str, int | None, int | None]]:
    return [(g.kind, g.first, g.last) for g in gaps]


async def test_adding_a_gap_appends_one_line_whatever_is_recorded() -> None:
    costs = []
    for existing in (3, 300):
        fs = FaultFileSystem()
        ctx = await open_ctx(fs)
        for i in range(existing):
            await ctx.record_gap("processor_gap", i, i, 1, "dropped_by_filter")
        before = (fs.steps, len(fs.files().get(GAPS, b"")))
        await ctx.record_gap("processor_gap", 10_000, 10_000, 1, "dropped_by_filter")
        ops = [(op, path) for _, op, path in fs.trace[before[0]:]]
        assert ops == [("append", GAPS), ("fsync", GAPS)]
        costs.append(len(fs.files()[GAPS]) - before[1])
        assert STATE not in {path for _, path in ops}
    assert costs[0] == costs[1]  # one line, the same size at 3 and at 300 gaps


async def test_a_state_file_holding_gaps_is_migrated_on_open_without_loss() -> None:
    fs = legacy_root(5, dropped=2)
    ctx = await open_ctx(fs)
    assert keys(await ctx.gaps()) == [("poison_batch", i, i) for i in range(1, 6)]
    state = orjson.loads(fs.files()[STATE])
    assert "gaps" not in state and "gaps_dropped" not in state
    assert state["memory_cursor"] == 0  # the rest of the state is kept
    assert ctx._state.gaps_dropped == 2
    again = await open_ctx(fs)
    assert keys(await again.gaps()) == [("poison_batch", i, i) for i in range(1, 6)]
    assert again._state.gaps_dropped == 2
    await again.record_gap("processor_gap", 9, 9, 1, "dropped_by_filter")
    third = await open_ctx(fs)
    assert keys(await third.gaps())[-1] == ("processor_gap", 9, 9)
    assert len(await third.gaps()) == 6


async def test_a_power_cut_at_any_step_of_the_migration_loses_no_gap() -> None:
    probe = legacy_root(4, dropped=1)
    start = probe.steps
    await open_ctx(probe)
    steps = probe.steps - start
    assert steps >= 8  # journal write, fsync, replace, dir fsync; then the state file
    for k in range(1, steps + 1):
        fs = legacy_root(4, dropped=1)
        fs.arm(fs.steps + k, "power")
        with contextlib.suppress(PowerLoss):
            await open_ctx(fs)
        for image in fs.crash_images(3, random.Random(k)):
            ctx = await open_ctx(image)
            assert keys(await ctx.gaps()) == [("poison_batch", i, i) for i in range(1, 5)], k
            assert ctx._state.gaps_dropped == 1, k
            assert "gaps" not in orjson.loads(image.files()[STATE])


async def test_a_read_only_open_shows_legacy_gaps_and_writes_nothing() -> None:
    fs = legacy_root(3)
    before = fs.files()
    ctx = await open_ctx(fs, read_only=True)
    assert keys(await ctx.gaps()) == [("poison_batch", i, i) for i in range(1, 4)]
    assert fs.files() == before


async def test_a_torn_last_gap_line_is_cut_and_the_rest_kept() -> None:
    fs = FaultFileSystem()
    ctx = await open_ctx(fs)
    await ctx.record_gap("processor_gap", 1, 1, 1, "dropped_by_filter")
    await ctx.record_gap("processor_gap", 2, 2, 1, "dropped_by_filter")
    whole = fs.files()[GAPS]
    fs.append(GAPS, encode_record(legacy_gap(3))[:30])  # power lost mid-append
    again = await open_ctx(fs)
    assert keys(await again.gaps()) == [("processor_gap", 1, 1), ("processor_gap", 2, 2)]
    assert fs.files()[GAPS] == whole
    await again.record_gap("processor_gap", 3, 3, 1, "dropped_by_filter")
    assert len(await (await open_ctx(fs)).gaps()) == 3


async def test_a_damaged_gap_line_is_refused_with_its_place_never_dropped() -> None:
    fs = FaultFileSystem()
    ctx = await open_ctx(fs)
    await ctx.record_gap("processor_gap", 1, 1, 1, "dropped_by_filter")
    await ctx.record_gap("processor_gap", 2, 2, 1, "dropped_by_filter")
    data = bytearray(fs.files()[GAPS])
    data[12] ^= 0x01
    fs.write_file(GAPS, bytes(data))
    with pytest.raises(CorruptStateError, match=r"gaps\.jsonl at byte 0"):
        await open_ctx(fs)
    assert fs.files()[GAPS] == bytes(data)  # nothing cut


async def test_old_gaps_are_folded_into_a_count_and_the_record_stays_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(log_state, "MAX_GAPS", 5)
    fs = FaultFileSystem()
    ctx = await open_ctx(fs)
    for i in range(1, 24):
        await ctx.record_gap("processor_gap", i, i, 1, "dropped_by_filter")
        assert len(fs.files()[GAPS].splitlines()) <= 2 * 5 + 1
    assert keys(await ctx.gaps()) == [("processor_gap", i, i) for i in range(19, 24)]
    assert ctx._state.gaps_dropped == 18
    again = await open_ctx(fs)
    assert keys(await again.gaps()) == [("processor_gap", i, i) for i in range(19, 24)]
    assert again._state.gaps_dropped == 18
