"""commit_processed/skip_batch verify a batch against what read_pending returned
(no log re-read), read_pending serves what consume just appended; both fall back
to reading the log after a recovery or when the memory cursor moved."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from companion_memory.agent.notification_log import (
    BatchNotContiguousError,
    NotificationContext,
    StorageIOError,
    StoreMemoryCursor,
)
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.memory.store import MemoryStore
from companion_memory.storage.faultfs import FaultFileSystem
from tests.memory.helpers import create
from tests.notifications_context.helpers import T0, event


def count_log_reads(ctx: NotificationContext) -> list[int]:
    """Count JsonlLog.read_after calls of this context (the re-read the shortcut avoids)."""
    log = ctx._log  # internal: the only way to see the re-read from outside
    original = log.read_after
    calls: list[int] = []

    def read_after(after: int, limit: int) -> list[dict[str, Any]]:
        calls.append(after)
        return original(after, limit)

    log.read_after = read_after  # type: ignore[method-assign,assignment]
    return calls


async def test_matching_batch_is_accepted_without_reading_the_log(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await NotificationContext.open(tmp_path, ring, clock=clock)
    reads = count_log_reads(ctx)
    for i in range(1, 13):
        ring.publish(event(i))
    await ctx.consume()
    batch = await ctx.read_pending(limit=10)
    assert [r.context_id for r in batch] == list(range(1, 11))
    await ctx.commit_processed(batch[:6])
    assert ctx.memory_cursor == 6
    assert reads == []  # served from what consume appended, verified against read_pending
    await ctx.close()
    # the window held exactly what the log holds
    again = await NotificationContext.open(tmp_path, ring, clock=clock)
    from_log = await again.read_pending(limit=10)
    assert from_log[:4] == batch[6:]  # equal records: same ids, keys, times and events
    assert [r.context_id for r in from_log] == [7, 8, 9, 10, 11, 12]


async def test_forged_or_non_contiguous_batch_is_refused_and_nothing_changes(
    tmp_path: Path,
) -> None:
    clock = FakeClock(T0)
    store = await MemoryStore.open(tmp_path / "memory.sqlite3", clock=clock)
    try:
        ring = EventRing()
        ctx = await NotificationContext.open(
            tmp_path, ring, cursor=StoreMemoryCursor(store), clock=clock
        )
        for i in range(1, 11):
            ring.publish(event(i))
        await ctx.consume()
        batch = await ctx.read_pending(limit=5)
        forged_seq = [batch[0], dataclasses.replace(batch[1], ring_seq=999), *batch[2:]]
        forged_gen = [dataclasses.replace(batch[0], ring_generation="other"), *batch[1:]]
        longer = [*batch, dataclasses.replace(batch[-1], context_id=6)]  # not what the log has
        for bad in (forged_seq, forged_gen, batch[1:], [batch[0], batch[2]], longer):
            with pytest.raises(BatchNotContiguousError):
                await ctx.commit_processed(bad, [create("notif-x", source="1")], receipt="r")
            with pytest.raises(BatchNotContiguousError):
                await ctx.skip_batch(bad, "poison_test")
        assert ctx.memory_cursor == 0
        assert await store.get_cursor("notifications") == 0
        assert await store.get("notif-x") is None
        assert await ctx.gaps() == []
        await ctx.commit_processed(batch, [create("notif-1", source="1")], receipt="r-1")
        assert (ctx.memory_cursor, await store.get_cursor("notifications")) == (5, 5)
    finally:
        await store.close()


async def test_moved_cursor_uses_the_log_re_read(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await NotificationContext.open(tmp_path, ring, clock=clock)
    reads = count_log_reads(ctx)
    for i in range(1, 11):
        ring.publish(event(i))
    await ctx.consume()
    batch = await ctx.read_pending(limit=10)
    await ctx.commit_processed(batch[:4])
    assert reads == []
    # read_pending's keys were taken after cursor 0; the cursor is now 4: re-read
    await ctx.commit_processed(batch[4:7])
    assert reads == [4]
    assert ctx.memory_cursor == 7
    gap = await ctx.skip_batch(batch[7:], "poison_test")  # again a moved cursor
    assert reads == [4, 7]
    assert (gap.first, gap.last, ctx.memory_cursor) == (8, 10, 10)


async def test_after_a_recovery_the_log_is_read_again() -> None:
    fs = FaultFileSystem()
    ring = EventRing()
    ctx = await NotificationContext.open("/r", ring, fs=fs, clock=FakeClock(T0))
    reads = count_log_reads(ctx)
    for i in range(1, 6):
        ring.publish(event(i))
    await ctx.consume()
    batch = await ctx.read_pending(limit=5)
    assert reads == []
    for i in range(6, 9):
        ring.publish(event(i))
    # Steps 1-4 reserve the batch's ids in the state file; the append (5) fails,
    # so the log needs recovery.
    fs.arm(fs.steps + 5, "enospc")
    with pytest.raises(StorageIOError):
        await ctx.consume()
    await ctx.commit_processed(batch[:2])  # recovers first, then verifies from the log
    assert reads == [0]
    assert ctx.memory_cursor == 2
    assert (await ctx.consume()).persisted == 3
    pending = await ctx.read_pending(limit=10)  # the window was emptied by the recovery
    assert reads == [0, 2]
    # Ids 6-8 were reserved by the failed append: never reused, the retry gets 9-11.
    assert [r.context_id for r in pending] == [3, 4, 5, 9, 10, 11]
    assert pending[:3] == batch[2:]
