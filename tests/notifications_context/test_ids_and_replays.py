"""Context ids are never reused; the log, not the ring's window, refuses replays;
the state file is validated key by key; a read-only open writes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notification_log.log import ContextReadOnlyError
from companion_memory.agent.notification_log.types import line_fingerprint
from companion_memory.ble.events import EventKind, NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.storage.atomic import CorruptStateError
from companion_memory.storage.faultfs import FaultFileSystem, PowerLoss
from companion_memory.storage.fs import StorageIOError
from companion_memory.storage.jsonl_log import encode_line
from tests.notifications_context.helpers import T0, event

ROOT = "/r"
SHARD = "/r/notifications/events/2026-03-01.jsonl"


async def open_ctx(fs: FaultFileSystem, ring: EventRing | None = None,
                   **kw: Any) -> NotificationContext:
    return await NotificationContext.open(ROOT, ring or EventRing(), fs=fs, clock=FakeClock(T0),
                                          **kw)


async def torn_image() -> FaultFileSystem:
    """Five acknowledged records, then power lost while appending records 6-10, of
    which only part of the first line reached the disk."""
    fs = FaultFileSystem()
    ring = EventRing()
    ctx = await open_ctx(fs, ring)
    for i in range(1, 6):
        ring.publish(event(i))
    assert (await ctx.consume()).persisted == 5
    for i in range(6, 11):
        ring.publish(event(i))
    fs.arm(fs.steps + 5, "power")  # 1-4 reserve the ids in state.json, 5 is the append
    with pytest.raises(PowerLoss):
        await ctx.consume()
    image = fs.crash_image(mode="synced")
    image.append(SHARD, encode_line({"context_id": 6, "key": "k6"})[:25])
    return image


async def test_a_torn_batch_is_a_gap_with_its_ids_and_they_are_never_reused() -> None:
    image = await torn_image()
    ring = EventRing()
    ctx = await open_ctx(image, ring)
    torn = [g for g in await ctx.gaps() if g.kind == "torn_tail"]
    assert [(g.first, g.last, g.count) for g in torn] == [(6, 10, 5)]
    assert ctx.last_context_id == 10
    ring.publish(event(11))
    await ctx.consume()
    records = await ctx.read_pending(limit=20)
    assert [r.context_id for r in records] == [1, 2, 3, 4, 5, 11]
    assert await ctx.pending_count() == 6
    # A second open finds nothing new to report (the cut is recorded once).
    again = await open_ctx(image)
    assert [g.kind for g in await again.gaps()] == ["torn_tail"]


async def test_reserved_ids_of_a_batch_that_never_landed_are_a_gap() -> None:
    fs = FaultFileSystem()
    ring = EventRing()
    ctx = await open_ctx(fs, ring)
    ring.publish(event(1))
    await ctx.consume()
    for i in range(2, 5):
        ring.publish(event(i))
    fs.arm(fs.steps + 5, "power")
    with pytest.raises(PowerLoss):
        await ctx.consume()
    image = fs.crash_image(mode="synced")  # none of the appended bytes landed
    reopened = await open_ctx(image)
    gaps = await reopened.gaps()
    assert [(g.kind, g.first, g.last, g.count) for g in gaps] == [("torn_tail", 2, 4, 3)]
    assert reopened.last_context_id == 4


async def test_a_failed_append_skips_its_ids_as_unused() -> None:
    fs = FaultFileSystem()
    ring = EventRing()
    ctx = await open_ctx(fs, ring)
    for i in range(1, 4):
        ring.publish(event(i))
    fs.arm(fs.steps + 5, "enospc")
    with pytest.raises(StorageIOError) as caught:
        await ctx.consume()
    assert caught.value.code == "disk_full"
    assert (await ctx.consume()).persisted == 3  # retried with fresh ids
    assert [r.context_id for r in await ctx.read_pending(limit=10)] == [4, 5, 6]
    gaps = await ctx.gaps()
    assert [(g.kind, g.first, g.last) for g in gaps] == [("unused_ids", 1, 3)]
    assert not any(g.kind == "corrupt_record" for g in gaps)
    assert await ctx.pending_count() == 3


async def test_a_flipped_bit_in_the_last_acknowledged_line_is_reported_not_deleted() -> None:
    fs = FaultFileSystem()
    ring = EventRing()
    ctx = await open_ctx(fs, ring)
    for i in range(1, 4):
        ring.publish(event(i))
    await ctx.consume()
    data = bytearray(fs.files()[SHARD])
    data[-40] ^= 0x04
    fs.write_file(SHARD, bytes(data))
    ring2 = EventRing()
    reopened = await open_ctx(fs, ring2)
    gaps = await reopened.gaps()
    assert [(g.kind, g.first, g.last) for g in gaps] == [("corrupt_record", 3, 3)]
    assert fs.files()[SHARD] == bytes(data)
    ring2.publish(event(4))
    await reopened.consume()
    assert [r.context_id for r in await reopened.read_pending(limit=10)] == [1, 2, 4]


async def test_refeeding_more_events_than_the_replay_window_stores_none_again() -> None:
    fs = FaultFileSystem()
    ring = EventRing(capacity=64, replay_window=16)
    ctx = await open_ctx(fs, ring)
    for i in range(1, 201):
        ring.publish(event(i))
        if i % 50 == 0:
            await ctx.consume(limit=64)
    assert ctx.last_context_id == 200
    # Same process, window long since passed: the log still refuses them.
    for i in range(1, 201):
        ring.publish(event(i))
        if i % 50 == 0:
            result = await ctx.consume(limit=64)
            assert result.persisted == 0
    assert ctx.last_context_id == 200
    # A new process (new ring, small window): still none stored twice.
    ring2 = EventRing(capacity=64, replay_window=16)
    reopened = await open_ctx(fs, ring2)
    duplicates = 0
    for i in range(1, 202):
        ring2.publish(event(i))
        if i % 50 == 0 or i == 201:
            result = await reopened.consume(limit=64)
            duplicates += result.duplicates
    assert reopened.last_context_id == 201  # only the new event 201
    assert duplicates + ring2.statistics().duplicates == 200


def test_line_fingerprint_equals_the_event_fingerprint() -> None:
    ev = NotificationEvent.create(kind=EventKind.MODIFIED, key="k", app_id="a", title="T",
                                  subtitle="s", body="b\u00e4", category="c", posted_at=T0)
    assert line_fingerprint(ev.to_dict()) == ev.fingerprint()


@pytest.mark.parametrize(("key", "value"), [
    ("memory_cursor", "seven"), ("deleted_through", None), ("id_high_water", -1),
    ("source_hint", [1]), ("gaps", {"a": 1}), ("intake_enabled", "yes"),
])
async def test_a_bad_state_value_names_its_key(key: str, value: Any) -> None:
    fs = FaultFileSystem()
    fs.makedirs("/r/notifications")
    fs.write_file("/r/notifications/state.json", orjson.dumps({"version": 1, key: value}))
    with pytest.raises(CorruptStateError) as caught:
        await open_ctx(fs)
    assert f"'{key}'" in caught.value.reason and "state.json" in caught.value.reason


async def test_a_bad_gap_entry_names_its_index() -> None:
    fs = FaultFileSystem()
    fs.makedirs("/r/notifications")
    gaps = [{"kind": "torn_tail", "reason": "x", "at": "yesterday", "count": 1}]
    fs.write_file("/r/notifications/state.json", orjson.dumps({"version": 1, "gaps": gaps}))
    with pytest.raises(CorruptStateError, match=r"'gaps\[0\]\.at'"):
        await open_ctx(fs)


class NoWrites(FaultFileSystem):
    """Every changing operation fails as on a full disk."""

    def _step(self, op: str, path: str) -> str | None:
        super()._step(op, path)
        if op in ("append", "write", "fsync", "fsync_dir", "replace", "unlink", "truncate",
                  "mkdir"):
            raise AssertionError(f"{op} {path} on a read-only open")
        return None


async def test_read_only_open_writes_nothing_and_shows_what_repair_would_record() -> None:
    image = await torn_image()
    before = image.files()
    guarded = NoWrites()
    guarded._nodes, guarded._next = image._nodes, image._next  # the same disk, guarded
    ctx = await open_ctx(guarded, read_only=True)
    gaps = await ctx.gaps()
    assert [(g.kind, g.first, g.last) for g in gaps] == [("torn_tail", 6, 10)]
    assert image.files() == before
    with pytest.raises(ContextReadOnlyError):
        await ctx.consume()
    with pytest.raises(ContextReadOnlyError):
        await ctx.cleanup_all_processed()


def test_a_linked_notifications_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "notifications").symlink_to(outside)
    with pytest.raises(StorageIOError, match="symbolic link"):
        asyncio.run(NotificationContext.open(root, EventRing(), clock=FakeClock(T0)))
    assert list(outside.iterdir()) == []
