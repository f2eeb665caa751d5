"""Storage levels driving the real NotificationContext on real files.

The property: no sequence of appends, commits, level changes and cleanups ever
deletes an unprocessed record, and a partly processed shard is kept whole.
"""

from __future__ import annotations

import asyncio
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.agent.storage_maintenance import (
    NotificationShardCleaner,
    StorageMaintenanceProcessor,
    pause_intake_with_level,
)
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.storage.monitor import (
    FakeDiskProbe,
    MiB,
    StorageLevel,
    StorageMonitor,
    Thresholds,
)

THRESHOLDS = Thresholds(warning=1000 * MiB, critical=200 * MiB, emergency=50 * MiB,
                        hysteresis=10 * MiB)
FREE_BY_LEVEL = {
    StorageLevel.NORMAL: 4000 * MiB,
    StorageLevel.WARNING: 500 * MiB,
    StorageLevel.CRITICAL: 100 * MiB,
    StorageLevel.EMERGENCY: 10 * MiB,
}


def event(n: int, clock: FakeClock) -> NotificationEvent:
    return NotificationEvent.create(
        kind="added", key=f"k{n}", app_id="com.example.chat", title=f"t{n}",
        body=f"body {n}", posted_at=clock.now(),
    )


async def open_all(root: Path, clock: FakeClock) -> tuple[
    EventRing, NotificationContext, FakeDiskProbe, StorageMonitor
]:
    ring = EventRing(capacity=64)
    ctx = await NotificationContext.open(root, ring, clock=clock)
    probe = FakeDiskProbe(free_bytes=FREE_BY_LEVEL[StorageLevel.NORMAL])
    monitor = StorageMonitor(probe, THRESHOLDS)
    monitor.register(NotificationShardCleaner(ctx, clock))
    pause_intake_with_level(monitor, ctx)
    return ring, ctx, probe, monitor


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("publish"), st.integers(min_value=1, max_value=12)),
        st.tuples(st.just("consume"), st.just(0)),
        st.tuples(st.just("commit"), st.integers(min_value=1, max_value=15)),
        st.tuples(st.just("level"), st.sampled_from(list(StorageLevel))),
        st.tuples(st.just("clean"), st.just(0)),
        st.tuples(st.just("day"), st.integers(min_value=1, max_value=10)),
    ),
    min_size=5,
    max_size=40,
)


async def run_ops(root: Path, ops: list[tuple[str, object]]) -> None:
    clock = FakeClock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    ring, ctx, probe, monitor = await open_all(root, clock)
    published = 0
    for op, arg in ops:
        if op == "publish":
            for _ in range(int(arg)):  # type: ignore[call-overload]
                published += 1
                ring.publish(event(published, clock))
        elif op == "consume":
            await ctx.consume(100)
        elif op == "commit":
            pending = await ctx.read_pending(int(arg))  # type: ignore[call-overload]
            if pending:
                await ctx.commit_processed(pending)
        elif op == "level":
            assert isinstance(arg, StorageLevel)
            probe.free_bytes = FREE_BY_LEVEL[arg]
            await monitor.check()
        elif op == "clean":
            await monitor.check()
        elif op == "day":
            await clock.advance(int(arg) * 86400)  # type: ignore[call-overload]
        # Invariant after every step: every unprocessed record is still readable,
        # contiguous from the memory cursor to the last context id.
        cursor = ctx.memory_cursor
        pending = await ctx.read_pending(10_000)
        assert [r.context_id for r in pending] == list(
            range(cursor + 1, ctx.last_context_id + 1)
        )
        # A partly processed shard is kept whole: every id from its first line on is there.
        shards = await asyncio.to_thread(ctx._log.shards)
        for shard in shards:
            if shard.first_id <= cursor < shard.last_id:
                lines = await asyncio.to_thread(ctx._log.read_after, shard.first_id - 1, 10_000)
                ids = [line["context_id"] for line in lines if line["context_id"] <= shard.last_id]
                assert ids == list(range(shard.first_id, shard.last_id + 1))
    await ctx.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
@example([("publish", 5), ("consume", 0), ("commit", 2), ("level", StorageLevel.EMERGENCY)])
@example([("publish", 3), ("consume", 0), ("day", 2), ("publish", 3), ("consume", 0),
          ("commit", 4), ("day", 3), ("level", StorageLevel.CRITICAL)])
def test_no_level_deletes_unprocessed(ops: list[tuple[str, object]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run_ops(Path(tmp), ops))


async def test_critical_pauses_intake_and_resumes_exactly(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    ring, ctx, probe, monitor = await open_all(tmp_path, clock)
    step = StorageMaintenanceProcessor(monitor)
    for n in range(1, 6):
        ring.publish(event(n, clock))
    assert (await ctx.consume()).persisted == 5
    probe.free_bytes = FREE_BY_LEVEL[StorageLevel.CRITICAL]
    outcome = await step.run_batch()
    assert outcome.report.extra["level"] == "critical"
    assert outcome.report.extra["level_changed"] is True
    assert outcome.report.extra["intake_allowed"] is False
    source_before = ctx.source_cursor
    for n in range(6, 11):
        ring.publish(event(n, clock))
    paused = await ctx.consume()
    assert paused.paused and paused.persisted == 0
    assert ctx.source_cursor == source_before
    assert ctx.last_context_id == 5
    # Recovery: back to normal, intake picks up exactly at ring seq 6.
    probe.free_bytes = FREE_BY_LEVEL[StorageLevel.NORMAL]
    await step.run_batch()
    resumed = await ctx.consume()
    assert resumed.persisted == 5 and resumed.lost == 0
    records = await ctx.read_pending(100)
    assert [r.ring_seq for r in records] == list(range(1, 11))
    assert [r.context_id for r in records] == list(range(1, 11))
    await ctx.close()


async def test_overflow_while_paused_becomes_a_gap(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    ring, ctx, probe, monitor = await open_all(tmp_path, clock)
    probe.free_bytes = FREE_BY_LEVEL[StorageLevel.EMERGENCY]
    await monitor.check()
    for n in range(1, 101):  # ring capacity is 64
        ring.publish(event(n, clock))
    assert (await ctx.consume()).paused
    probe.free_bytes = FREE_BY_LEVEL[StorageLevel.NORMAL]
    await monitor.check()
    got = await ctx.consume(100)
    assert got.lost == 36 and got.persisted == 64
    gaps = await ctx.gaps()
    assert [(g.kind, g.count) for g in gaps] == [("ring_overflow", 36)]
    await ctx.close()


async def test_probe_failure_pauses_intake_and_cleans_no_more(tmp_path: Path) -> None:
    clock = FakeClock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    ring, ctx, probe, monitor = await open_all(tmp_path, clock)
    for n in range(1, 4):
        ring.publish(event(n, clock))
    await ctx.consume()
    await ctx.commit_processed(await ctx.read_pending(10))
    await clock.advance(3 * 86400)  # the shard is 3 days old and fully processed
    await monitor.check()  # NORMAL keeps 14 days
    probe.error = OSError(5, "probe failed")
    report = await monitor.check()
    assert report.degraded and not ctx.intake_enabled
    # Still cleaned as at NORMAL (the last known level): the 3-day-old shard stays.
    assert report.cleaners["notification_shards"] == {"removed": 0, "freed_bytes": 0}
    shards = await asyncio.to_thread(ctx._log.shards)
    assert len(shards) == 1
    # At EMERGENCY the processed shard goes.
    probe.error = None
    probe.free_bytes = FREE_BY_LEVEL[StorageLevel.EMERGENCY]
    report = await monitor.check()
    assert report.cleaners["notification_shards"]["removed"] == 1
    assert report.cleaners["notification_shards"]["freed_bytes"] > 0
    await ctx.close()
