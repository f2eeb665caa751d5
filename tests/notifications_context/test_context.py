"""NotificationContext on real files: consume, pending, commit, gaps, cleanup, reopen."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import date, timedelta
from pathlib import Path

import orjson
import pytest

from companion_memory.agent.notification_log import (
    BatchNotContiguousError,
    IntentsNeedStoreError,
    NotificationContext,
    StateFileCursor,
)
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from tests.notifications_context.helpers import T0, event


def publish(ring: EventRing, first: int, n: int) -> None:
    for i in range(first, first + n):
        assert ring.publish(event(i)) is not None


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def open_ctx(root: Path, ring: EventRing, clock: FakeClock) -> NotificationContext:
    return await NotificationContext.open(root, ring, clock=clock)


async def test_consume_persists_then_advances_and_reopen_derives_cursor(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing(capacity=64)
    ctx = await open_ctx(tmp_path, ring, clock)
    assert await asyncio.to_thread((tmp_path / "notifications" / "state.json").exists)
    publish(ring, 1, 30)
    first = await ctx.consume(limit=20)
    assert (first.persisted, first.lost, first.paused) == (20, 0, False)
    second = await ctx.consume(limit=20)
    assert second.persisted == 10
    assert (await ctx.consume()).persisted == 0
    assert ctx.last_context_id == 30
    assert ctx.source_cursor.ring_seq == 30
    assert ctx.source_cursor.ring_generation == ring.generation
    shard = tmp_path / "notifications" / "events" / "2026-03-01.jsonl"
    rows = await asyncio.to_thread(read_jsonl, shard)
    assert [r["context_id"] for r in rows] == list(range(1, 31))
    assert rows[0]["ring_seq"] == 1 and rows[0]["key"] == "k1"
    assert rows[0]["received_at"] == "2026-03-01T22:00:00Z"
    await ctx.close()
    await ctx.close()

    reopened = await open_ctx(tmp_path, ring, clock)
    assert reopened.last_context_id == 30 and reopened.source_cursor.ring_seq == 30
    publish(ring, 31, 5)
    assert (await reopened.consume()).persisted == 5
    assert reopened.last_context_id == 35


async def test_new_ring_generation_is_read_from_start_ids_continue(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await open_ctx(tmp_path, ring, clock)
    publish(ring, 1, 5)
    await ctx.consume()
    await ctx.close()
    ring2 = EventRing()
    publish(ring2, 100, 3)
    ctx2 = await open_ctx(tmp_path, ring2, clock)
    assert (await ctx2.consume()).persisted == 3
    pending = await ctx2.read_pending(limit=50)
    assert [r.context_id for r in pending] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [r.ring_seq for r in pending[5:]] == [1, 2, 3]
    assert {r.ring_generation for r in pending[5:]} == {ring2.generation}


async def test_ring_overflow_becomes_a_gap(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing(capacity=8, replay_window=0)
    ctx = await open_ctx(tmp_path, ring, clock)
    publish(ring, 1, 20)
    result = await ctx.consume()
    assert (result.persisted, result.lost) == (8, 12)
    gaps = await ctx.gaps()
    assert [(g.kind, g.first, g.last, g.count) for g in gaps] == [("ring_overflow", 1, 12, 12)]
    assert [r.ring_seq for r in await ctx.read_pending(limit=20)] == list(range(13, 21))
    again = await open_ctx(tmp_path, ring, clock)
    assert len(await again.gaps()) == 1


async def test_commit_requires_contiguous_batch_and_changes_nothing_on_error(
    tmp_path: Path,
) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await open_ctx(tmp_path, ring, clock)
    publish(ring, 1, 25)
    await ctx.consume()
    batch = await ctx.read_pending(limit=10)
    assert [r.context_id for r in batch] == list(range(1, 11))
    with pytest.raises(BatchNotContiguousError):
        await ctx.commit_processed(batch[1:])
    with pytest.raises(BatchNotContiguousError):
        await ctx.commit_processed([batch[0], batch[2]])
    with pytest.raises(BatchNotContiguousError):
        await ctx.commit_processed([])
    assert ctx.memory_cursor == 0
    await ctx.commit_processed(batch[:4])
    assert ctx.memory_cursor == 4
    with pytest.raises(BatchNotContiguousError):
        await ctx.commit_processed(batch[:4])  # replay of a committed batch
    assert [r.context_id for r in await ctx.read_pending(limit=3)] == [5, 6, 7]
    assert await ctx.pending_count() == 21
    from companion_memory.memory.records import IntentOp, MemoryIntent

    intent = MemoryIntent(op=IntentOp.REMOVE, memory_id="m1", expected_revision=1, reason="x")
    with pytest.raises(IntentsNeedStoreError):
        await ctx.commit_processed(batch[4:6], intents=[intent])
    assert ctx.memory_cursor == 4
    again = await open_ctx(tmp_path, ring, clock)
    assert again.memory_cursor == 4


async def test_skip_batch_records_poison_gap(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await open_ctx(tmp_path, ring, clock)
    publish(ring, 1, 12)
    await ctx.consume()
    batch = await ctx.read_pending(limit=10)
    gap = await ctx.skip_batch(batch, "retry_budget_exhausted")
    assert (gap.kind, gap.first, gap.last, gap.count) == ("poison_batch", 1, 10, 10)
    assert ctx.memory_cursor == 10
    state = json.loads(
        await asyncio.to_thread((tmp_path / "notifications" / "state.json").read_text)
    )
    assert state["memory_cursor"] == 10 and "gaps" not in state
    journal = await asyncio.to_thread((tmp_path / "notifications" / "gaps.jsonl").read_bytes)
    assert [orjson.loads(line)["kind"] for line in journal.splitlines()] == ["poison_batch"]


async def test_cleanup_deletes_only_fully_processed_shards_ids_never_reused(
    tmp_path: Path,
) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await open_ctx(tmp_path, ring, clock)
    for day in range(3):
        clock.set_wall(T0 + timedelta(days=day))
        publish(ring, day * 10 + 1, 10)
        await ctx.consume()
    assert (await ctx.status())["shards"] == 3
    while batch := await ctx.read_pending(limit=10):
        if batch[0].context_id > 15:
            break
        await ctx.commit_processed(batch[: max(1, min(10, 15 - batch[0].context_id + 1))])
    assert ctx.memory_cursor == 15
    result = await ctx.cleanup_all_processed()
    assert result.shards == 1 and result.bytes_freed > 0  # day 2 is only half processed
    events = tmp_path / "notifications" / "events"
    names = await asyncio.to_thread(os.listdir, events)
    assert sorted(names) == ["2026-03-02.jsonl", "2026-03-03.jsonl"]
    rest = await ctx.read_pending(limit=100)
    await ctx.commit_processed(rest)
    assert (await ctx.cleanup_processed_before(date(2026, 3, 3))).shards == 1
    assert (await ctx.cleanup_all_processed()).shards == 1
    assert await asyncio.to_thread(os.listdir, events) == []
    await ctx.close()
    again = await open_ctx(tmp_path, ring, clock)
    assert again.last_context_id == 30 and again.memory_cursor == 30
    assert again.source_cursor.ring_seq == 30
    publish(ring, 31, 2)
    assert (await again.consume()).persisted == 2
    assert [r.context_id for r in await again.read_pending()] == [31, 32]
    assert await again.gaps() == []


async def test_intake_disabled_persists_nothing_and_overflow_becomes_gap(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing(capacity=4, replay_window=0)
    ctx = await open_ctx(tmp_path, ring, clock)
    ctx.set_intake_enabled(False)
    publish(ring, 1, 6)
    assert (await ctx.consume()).paused
    assert ctx.last_context_id == 0 and ctx.source_cursor.ring_seq == 0
    ctx.set_intake_enabled(True)
    result = await ctx.consume()
    assert (result.persisted, result.lost, result.paused) == (4, 2, False)
    assert [g.kind for g in await ctx.gaps()] == ["ring_overflow"]


async def test_read_processed_between(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await open_ctx(tmp_path, ring, clock)
    for hour in range(4):
        clock.set_wall(T0 + timedelta(hours=hour))  # 22:00, 23:00, 00:00, 01:00
        publish(ring, hour * 3 + 1, 3)
        await ctx.consume()
    await ctx.commit_processed(await ctx.read_pending(limit=9))
    start = T0 + timedelta(hours=1)
    got = await ctx.read_processed_between(start, start + timedelta(hours=2), 100)
    assert [r.context_id for r in got] == [4, 5, 6, 7, 8, 9]
    got = await ctx.read_processed_between(start, start + timedelta(hours=5), 100)
    assert [r.context_id for r in got] == [4, 5, 6, 7, 8, 9]  # 10-12 not processed
    assert len(await ctx.read_processed_between(start, start + timedelta(hours=2), 2)) == 2


async def test_state_file_memory_cursor_ahead_of_log_is_reported(tmp_path: Path) -> None:
    clock = FakeClock(T0)
    ring = EventRing()
    ctx = await open_ctx(tmp_path, ring, clock)
    publish(ring, 1, 3)
    await ctx.consume()
    await ctx.close()
    state_path = tmp_path / "notifications" / "state.json"
    state = json.loads(await asyncio.to_thread(state_path.read_text))
    state["memory_cursor"] = 9
    await asyncio.to_thread(state_path.write_text, json.dumps(state))
    again = await NotificationContext.open(tmp_path, ring, clock=clock, cursor=StateFileCursor())
    gaps = await again.gaps()
    assert [(g.kind, g.first, g.last) for g in gaps] == [("cursor_ahead", 4, 9)]
    publish(ring, 4, 1)
    await again.consume()
    assert again.last_context_id == 10  # never reuses an id the cursor already passed
