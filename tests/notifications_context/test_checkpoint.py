"""Open reads only what changed since the last checkpoint, and every recovery
guarantee holds across it: the same cursors, gaps and pending records as a scan
of the whole log, at every crash point of the checkpoint writes, and no event
stored twice however the sidecars fare."""

from __future__ import annotations

import contextlib
import random
from datetime import timedelta
from typing import Any

import pytest

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notification_log import checkpoint as log_checkpoint
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.storage.atomic import write_atomic
from companion_memory.storage.faultfs import FaultFileSystem, PowerLoss
from tests.notifications_context.helpers import T0, event

ROOT = "/r"
BASE = "/r/notifications"
EVENTS = f"{BASE}/events"
CHECKPOINT = f"{BASE}/checkpoint.json"
PRINTS = f"{BASE}/prints"


class Counting(FaultFileSystem):
    """Counts the shard bytes read (what open cost is made of)."""

    def __init__(self, disk: FaultFileSystem) -> None:
        super().__init__()
        self._nodes, self._next = disk._nodes, disk._next  # the same disk
        self.shard_bytes = 0

    def read_bytes(self, path: str) -> bytes:
        data = super().read_bytes(path)
        if path.startswith(EVENTS):
            self.shard_bytes += len(data)
        return data

    def read_at(self, path: str, offset: int, size: int) -> bytes:
        data = super().read_at(path, offset, size)
        if path.startswith(EVENTS):
            self.shard_bytes += len(data)
        return data


def clock_at(day: int) -> FakeClock:
    return FakeClock(T0 + timedelta(days=day))


async def open_ctx(fs: FaultFileSystem, ring: EventRing | None = None, day: int = 0,
                   **kw: Any) -> NotificationContext:
    return await NotificationContext.open(ROOT, ring or EventRing(replay_window=0), fs=fs,
                                          clock=clock_at(day), **kw)


async def build(fs: FaultFileSystem, days: int = 3, per_day: int = 40,
                close: bool = True) -> tuple[NotificationContext, EventRing]:
    """`days` shards of `per_day` records (event i has key k<i>), a day per process,
    half a day processed; the last context closed unless `close` is False (killed)."""
    ring = EventRing(capacity=4096, replay_window=0)
    i = 1
    for day in range(days):
        ctx = await open_ctx(fs, ring, day)
        for _ in range(per_day):
            ring.publish(event(i))
            i += 1
        while (await ctx.consume(limit=16)).persisted:
            pass
        if day < days - 1:
            await ctx.close()
    batch = await ctx.read_pending(limit=per_day // 2)
    await ctx.commit_processed(batch)
    if close:
        await ctx.close()
    return ctx, ring


def without_checkpoint(fs: FaultFileSystem) -> FaultFileSystem:
    """The same disk with the checkpoint and the sidecars gone (a whole-log scan)."""
    copy = fs.crash_image(mode="all")
    copy.unlink(CHECKPOINT)
    for name in copy.listdir(PRINTS):
        copy.unlink(f"{PRINTS}/{name}")
    return copy


async def observed(ctx: NotificationContext, ring: EventRing, refeed: int) -> dict[str, Any]:
    """What a context shows, then what re-feeding events 1..refeed through a new ring
    (no replay window: the log alone must refuse them) stores."""
    gaps = [(g.kind, g.first, g.last, g.count, g.ref) for g in await ctx.gaps()]
    pending = [(r.context_id, r.event.key) for r in await ctx.read_pending(limit=10_000)]
    seen = {
        "last_context_id": ctx.last_context_id,
        "source": ctx.source_cursor.ring_seq,
        "memory_cursor": ctx.memory_cursor,
        "gaps": gaps,
        "pending": pending,
    }
    stored = 0
    for i in range(1, refeed + 1):
        ring.publish(event(i))
        if i % 500 == 0 or i == refeed:
            while (result := await ctx.consume(limit=500)).persisted or result.lost:
                stored += result.persisted
    keys = [r.event.key for r in await ctx.read_pending(limit=10_000)]
    seen["refeed_stored"] = stored
    assert len(keys) == len(set(keys)), "an event is stored twice"
    return seen


async def same_as_whole_scan(image: FaultFileSystem, refeed: int) -> dict[str, Any]:
    plain = without_checkpoint(image)
    results = []
    for disk in (image, plain):
        ring = EventRing(capacity=4096, replay_window=0)
        results.append(await observed(await open_ctx(disk, ring), ring, refeed))
    got, want = results
    assert got == want
    return got


async def test_reopen_reads_no_shard_bytes_when_nothing_changed() -> None:
    fs = FaultFileSystem()
    await build(fs)
    total = sum(len(d) for p, d in fs.files().items() if p.startswith(EVENTS))
    counting = Counting(fs)
    ctx = await open_ctx(counting)
    # Only the last record of each shard is read back (to check it is still there).
    assert 0 < counting.shard_bytes < total // 20
    assert ctx.last_recovery is not None and ctx.last_recovery.bytes_read == 0
    assert ctx.last_context_id == 120 and ctx.memory_cursor == 20
    assert [r.context_id for r in await ctx.read_pending(limit=200)] == list(range(21, 121))


async def test_reopen_after_a_kill_scans_only_the_appended_bytes() -> None:
    fs = FaultFileSystem()
    _, ring = await build(fs)
    ctx = await open_ctx(fs, ring, day=2)
    before = sum(len(d) for p, d in fs.files().items() if p.startswith(EVENTS))
    for i in range(121, 131):
        ring.publish(event(i))
    await ctx.consume()
    appended = sum(len(d) for p, d in fs.files().items() if p.startswith(EVENTS)) - before
    # killed: no close, no checkpoint of the 10 new records
    counting = Counting(fs)
    again = await open_ctx(counting, ring)
    assert again.last_recovery is not None and again.last_recovery.bytes_read == appended
    assert counting.shard_bytes < appended + before // 20
    assert again.last_context_id == 130


async def test_consume_writes_a_checkpoint_every_so_many_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(log_checkpoint, "CHECKPOINT_EVERY", 10)
    fs = FaultFileSystem()
    ring = EventRing(replay_window=0)
    ctx = await open_ctx(fs, ring)
    for i in range(1, 36):
        ring.publish(event(i))
    while (await ctx.consume(limit=5)).persisted:
        pass
    # killed after 35 records: the last checkpoint covers 30 of them
    again = await open_ctx(Counting(fs))
    assert again.last_recovery is not None
    assert again.last_recovery.from_checkpoint == {"2026-03-01.jsonl": 30}
    assert (await same_as_whole_scan(fs, 40))["refeed_stored"] == 5  # only 36-40 are new


@pytest.mark.parametrize("day", [1, 2], ids=["grows_a_checkpointed_shard", "new_shard"])
async def test_every_power_cut_while_appending_and_checkpointing_recovers_as_a_whole_scan(
    day: int,
) -> None:
    async def workload(fs: FaultFileSystem, arm: int | None) -> int:
        ctx, ring = await build(fs, days=2, per_day=12)
        ctx = await open_ctx(fs, ring, day=day)
        start = fs.steps
        if arm is not None:
            fs.arm(start + arm, "power")
        with contextlib.suppress(PowerLoss):
            for i in range(25, 40):
                ring.publish(event(i))
            await ctx.consume(limit=7)
            await ctx.consume(limit=7)
            await ctx.close()  # writes the sidecar and the checkpoint
        return fs.steps - start

    steps = await workload(FaultFileSystem(), None)
    assert steps > 12
    rng = random.Random(5)
    for k in range(1, steps + 1):
        fs = FaultFileSystem()
        await workload(fs, k)
        for image in fs.crash_images(4, rng):
            seen = await same_as_whole_scan(image, 40)
            ids = [cid for cid, _ in seen["pending"]]
            assert ids == sorted(set(ids))


async def test_a_failing_checkpoint_write_changes_nothing_else() -> None:
    probe = FaultFileSystem()
    ctx, _ = await build(probe, close=False)
    start = probe.steps
    await ctx.close()
    steps = probe.steps - start
    assert steps >= 6  # sidecars, their directory, the checkpoint's four steps
    for kind in ("eio", "enospc"):
        for k in range(1, steps + 1):
            fs = FaultFileSystem()
            ctx, _ = await build(fs, close=False)
            fs.arm(fs.steps + k, kind)
            await ctx.close()  # logged, not raised
            await same_as_whole_scan(fs, 130)


async def test_a_flipped_bit_in_a_checkpointed_last_record_is_reported_at_open() -> None:
    fs = FaultFileSystem()
    await build(fs)
    path = f"{EVENTS}/2026-03-03.jsonl"
    data = bytearray(fs.files()[path])
    data[-40] ^= 0x04
    fs.write_file(path, bytes(data))
    ctx = await open_ctx(fs)
    assert [(g.kind, g.first, g.last) for g in await ctx.gaps()] == [("corrupt_record", 120, 120)]
    assert fs.files()[path] == bytes(data)


async def test_damage_inside_an_unchanged_shard_is_reported_when_first_read() -> None:
    fs = FaultFileSystem()
    await build(fs)
    path = f"{EVENTS}/2026-03-02.jsonl"
    lines = fs.files()[path].splitlines(keepends=True)
    damaged = bytearray(lines[10])
    damaged[5] ^= 0x01  # record 51: same size, same last record
    fs.write_file(path, b"".join([*lines[:10], bytes(damaged), *lines[11:]]))
    ctx = await open_ctx(fs)
    assert ctx.last_recovery is not None and ctx.last_recovery.bytes_read == 0
    records = await ctx.read_pending(limit=200)
    gaps = [(g.kind, g.first, g.last) for g in await ctx.gaps()]
    assert gaps == [("corrupt_record", 51, 51)]
    assert [r.context_id for r in records] == [i for i in range(21, 121) if i != 51]
    assert await ctx.pending_count() == 99


async def test_a_replaced_shard_is_scanned_whole() -> None:
    fs = FaultFileSystem()
    await build(fs)
    path = f"{EVENTS}/2026-03-02.jsonl"
    lines = fs.files()[path].splitlines(keepends=True)
    damaged = bytearray(lines[3])
    damaged[5] ^= 0x01
    # restored from elsewhere: another file, same size, same last record
    write_atomic(fs, path, b"".join([*lines[:3], bytes(damaged), *lines[4:]]))
    ctx = await open_ctx(fs)
    assert ctx.last_recovery is not None
    assert ctx.last_recovery.from_checkpoint == {"2026-03-01.jsonl": 40}
    assert [(g.kind, g.first) for g in await ctx.gaps()] == [("corrupt_record", 44)]


@pytest.mark.parametrize("damage", ["missing", "flipped", "short"])
async def test_a_lost_or_damaged_sidecar_never_lets_an_event_in_twice(damage: str) -> None:
    fs = FaultFileSystem()
    await build(fs)
    sidecar = f"{PRINTS}/2026-03-02.fp"
    data = fs.files()[sidecar]
    if damage == "missing":
        fs.unlink(sidecar)
    elif damage == "flipped":
        fs.write_file(sidecar, data[:5] + bytes([data[5] ^ 1]) + data[6:])
    else:
        fs.truncate(sidecar, len(data) - 24)
    seen = await same_as_whole_scan(fs, 130)
    assert seen["refeed_stored"] == 10  # only events 121-130, never seen before
    ring = EventRing(capacity=4096, replay_window=0)
    again = await open_ctx(fs, ring)  # the checkpoint written after the repair is whole
    assert (await observed(again, ring, 130))["refeed_stored"] == 0


async def test_cleanup_drops_the_deleted_shards_prints_and_sidecars() -> None:
    fs = FaultFileSystem()
    ctx, ring = await build(fs)
    ctx = await open_ctx(fs, ring, day=3)
    batch = await ctx.read_pending(limit=20)
    await ctx.commit_processed(batch)  # the first day is processed
    assert (await ctx.cleanup_processed_before((T0 + timedelta(days=1)).date())).shards == 1
    assert f"{PRINTS}/2026-03-01.fp" not in fs.files()
    await ctx.close()
    counting = Counting(fs)
    again = await open_ctx(counting)
    assert again.last_recovery is not None
    assert again.last_recovery.from_checkpoint == {"2026-03-02.jsonl": 40,
                                                   "2026-03-03.jsonl": 40}
    assert again.last_recovery.bytes_read == 0
    await same_as_whole_scan(fs, 130)


async def test_a_second_open_writes_nothing() -> None:
    fs = FaultFileSystem()
    await build(fs, close=False)
    await open_ctx(fs)
    before = fs.files()
    start = fs.steps
    await open_ctx(fs)
    assert fs.files() == before
    writes = [op for _, op, _ in fs.trace[start:]
              if op in ("append", "write", "fsync", "fsync_dir", "replace", "unlink", "truncate")]
    assert writes == []


async def test_a_malformed_checkpoint_is_ignored() -> None:
    fs = FaultFileSystem()
    await build(fs)
    fs.write_file(CHECKPOINT, b'{"version": 1, "shards": [{"name": 3}]}')
    ctx = await open_ctx(fs)
    assert ctx.last_recovery is not None and ctx.last_recovery.from_checkpoint == {}
    await same_as_whole_scan(fs, 130)


class NoWrites(FaultFileSystem):
    """The same disk; every changing operation fails the test."""

    def __init__(self, disk: FaultFileSystem) -> None:
        super().__init__()
        self._nodes, self._next = disk._nodes, disk._next

    def _step(self, op: str, path: str) -> str | None:
        if op in ("append", "write", "fsync", "fsync_dir", "replace", "unlink", "truncate",
                  "mkdir"):
            raise AssertionError(f"{op} {path} on a read-only open")
        return super()._step(op, path)


async def test_a_read_only_open_uses_the_checkpoint_and_writes_nothing() -> None:
    fs = FaultFileSystem()
    _, ring = await build(fs)
    ctx = await open_ctx(fs, ring, day=2)
    for i in range(121, 126):
        ring.publish(event(i))
    await ctx.consume()
    fs.append(f"{EVENTS}/2026-03-03.jsonl", b'{"context_id":126,"ke')  # a torn tail
    before = fs.files()
    ro = await open_ctx(NoWrites(fs), read_only=True)
    assert fs.files() == before
    assert ro.last_recovery is not None and 0 < ro.last_recovery.bytes_read < 2000
    assert [(g.kind, g.first, g.last) for g in await ro.gaps()] == [("torn_tail", 126, 126)]
    assert [r.context_id for r in await ro.read_pending(limit=200)] == list(range(21, 126))
