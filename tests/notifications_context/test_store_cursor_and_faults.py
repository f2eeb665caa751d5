"""The memory cursor in the real MemoryStore; disk full and cancellation during consume."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

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


async def test_store_cursor_commits_with_intents_in_one_transaction(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    store = await MemoryStore.open(tmp_path / "memory.sqlite3", clock=clock)
    try:
        ring = EventRing()
        cursor = StoreMemoryCursor(store)
        ctx = await NotificationContext.open(tmp_path, ring, cursor=cursor, clock=clock)
        for i in range(1, 8):
            ring.publish(event(i))
        await ctx.consume()
        batch = await ctx.read_pending(limit=5)
        await ctx.commit_processed(batch, [create("notif-1", source="1")], receipt="r-1")
        assert ctx.memory_cursor == 5
        assert await store.get_cursor("notifications") == 5
        assert await store.get("notif-1") is not None
        with pytest.raises(BatchNotContiguousError):
            await ctx.commit_processed(batch, [create("notif-2")], receipt="r-2")
        assert await store.get("notif-2") is None
        await ctx.close()
        again = await NotificationContext.open(
            tmp_path, ring, cursor=StoreMemoryCursor(store), clock=clock
        )
        assert again.memory_cursor == 5
        assert [r.context_id for r in await again.read_pending()] == [6, 7]
    finally:
        await store.close()


async def test_disk_full_during_append_leaves_cursors_and_surfaces_typed_error() -> None:
    fs = FaultFileSystem()
    ring = EventRing()
    ctx = await NotificationContext.open("/r", ring, fs=fs, clock=FakeClock(T0))
    for i in range(1, 4):
        ring.publish(event(i))
    await ctx.consume()
    for i in range(4, 9):
        ring.publish(event(i))
    fs.arm(fs.steps + 1, "enospc")  # the append itself
    with pytest.raises(StorageIOError) as info:
        await ctx.consume()
    assert info.value.code == "disk_full"
    assert (ctx.last_context_id, ctx.source_cursor.ring_seq) == (3, 3)
    assert (await ctx.consume()).persisted == 5  # space is back: the same items land once
    records = await ctx.read_pending(limit=20)
    assert [(r.context_id, r.ring_seq) for r in records] == [(i, i) for i in range(1, 9)]


class SlowFs(FaultFileSystem):
    """Blocks fsync until released, to cancel a consume while its write is in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.entered = threading.Event()

    def fsync(self, path: str) -> None:
        if path.endswith(".jsonl"):
            self.entered.set()
            self.gate.wait(60)
        super().fsync(path)


async def test_cancelled_consume_keeps_the_durable_write_and_its_cursor() -> None:
    fs = SlowFs()
    ring = EventRing()
    fs.gate.set()
    ctx = await NotificationContext.open("/r", ring, fs=fs, clock=FakeClock(T0))
    fs.gate.clear()
    for i in range(1, 6):
        ring.publish(event(i))
    task = asyncio.create_task(ctx.consume())
    assert await asyncio.to_thread(fs.entered.wait, 60), "consume never reached its fsync"
    task.cancel()
    for _ in range(10):  # the cancellation is delivered; the fsync is still held
        await asyncio.sleep(0)
    assert not task.done()  # waits for the write it cannot stop
    fs.gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ctx.last_context_id == 5 and ctx.source_cursor.ring_seq == 5
    assert (await ctx.consume()).persisted == 0  # nothing persisted twice
