"""RingWriter: the ring is persisted on arrival, group-committed, within the loss window.

The first tests move a fake clock, so when a commit is due is exact; the last ones
run the whole `Runtime` (real clock, real worker, real files) with the agent in the
foreground and wait on the durable count, never on how fast it got there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notifications import RingWriter
from companion_memory.agent.notifications.settings import IntakeSettings
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.core.settings import SettingsError
from companion_memory.device.config import parse_config
from companion_memory.device.errors import ConfigError
from companion_memory.device.runtime import Runtime
from companion_memory.storage.faultfs import FaultFileSystem
from companion_memory.storage.fs import RealFileSystem
from companion_memory.storage.jsonl_log import decode_line
from companion_memory.testing import event_ring
from tests.notifications_context.helpers import T0, event

# Parsed at import: checking the zone reads tz files, which is blocking I/O.
DEFAULTS = parse_config({})
FAST = parse_config({"intake": {"loss_window_s": 0.2}})
SLOW = parse_config({"intake": {"loss_window_s": 60.0}})

WAIT_LIMIT_S = 60.0
"""How long a test waits for what the writer must do before it fails: far beyond the
loss window, so a loaded machine cannot fail it, while a writer that never commits
(the defect these tests look for) still does."""


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def wait_until(predicate: Any, what: str) -> None:
    """Poll `predicate()` (sync) every 10 ms of real time, up to WAIT_LIMIT_S."""
    for _ in range(int(WAIT_LIMIT_S / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{what} not reached within {WAIT_LIMIT_S} s")


async def wait_durable(writer: RingWriter, count: int) -> None:
    """Until the writer's commits made `count` records durable (a fake clock's time is
    moved by the test; the commits themselves take real thread time)."""
    await wait_until(lambda: writer.totals.persisted >= count, f"{count} durable records")


class CountingFS(RealFileSystem):
    """The real file system, counting fsyncs (files and directories)."""

    def __init__(self) -> None:
        super().__init__()
        self.fsyncs = 0

    def fsync(self, path: str) -> None:
        self.fsyncs += 1
        super().fsync(path)

    def fsync_dir(self, path: str) -> None:
        self.fsyncs += 1
        super().fsync_dir(path)


async def open_writer(
    root: Path | str, *, capacity: int = 1024, window: float = 1.0, fs: Any = None,
) -> tuple[FakeClock, EventRing, NotificationContext, RingWriter]:
    clock = FakeClock(T0)
    ring = EventRing(capacity)
    ctx = await NotificationContext.open(root, ring, clock=clock, fs=fs)
    writer = RingWriter(ctx, ring, clock=clock, loss_window_s=window)
    await writer.start()
    return clock, ring, ctx, writer


async def test_commits_half_a_loss_window_after_the_first_unwritten_event(tmp_path: Path) -> None:
    clock, ring, ctx, writer = await open_writer(tmp_path, window=1.0)
    for i in range(1, 4):
        ring.publish(event(i))
    await settle()
    await clock.advance(0.49)
    await settle()
    assert ctx.last_context_id == 0 and writer.status()["in_ring"] == 3
    await clock.advance(0.01)
    await wait_durable(writer, 3)
    status = writer.status()
    assert status["in_ring"] == 0 and status["written_persisted"] == 3
    assert status["written_commits"] == 1 and status["durable_ring_seq"] == 3
    await writer.stop()
    await ctx.close()


async def test_a_burst_of_a_thousand_costs_a_few_fsyncs(tmp_path: Path) -> None:
    fs = CountingFS()
    clock, ring, ctx, writer = await open_writer(tmp_path, fs=fs)
    before = fs.fsyncs
    for i in range(1, 1001):  # as fast as the link delivers: no clock time passes
        ring.publish(event(i))
        if i % 50 == 0:
            await asyncio.sleep(0)
    await wait_until(lambda: writer.status()["in_ring"] < 512, "the high-water commit")
    await settle()
    await clock.advance(0.5)  # the rest is committed by the timer
    await wait_durable(writer, 1000)
    fsyncs = fs.fsyncs - before
    commits = writer.status()["written_commits"]
    # one commit per half ring, not one per notification: each commit is one append
    # + one fsync of the shard and one atomic state update (file and directory fsync);
    # beside them the new shard's directory entry once and the periodic checkpoint
    # (every CHECKPOINT_EVERY records): a few fsyncs for the burst, not a thousand
    assert commits <= 3
    assert fsyncs <= 3 * commits + 1 + 8, fsyncs
    assert writer.totals.lost == 0 and await ctx.gaps() == []
    await writer.stop()
    await ctx.close()


async def test_the_high_water_mark_commits_before_the_ring_can_overflow(tmp_path: Path) -> None:
    clock, ring, ctx, writer = await open_writer(tmp_path, capacity=64)
    for i in range(1, 1001):  # no time passes: only the high-water mark can save the ring
        ring.publish(event(i))
        if i % 8 == 0:
            await asyncio.sleep(0)
            if writer.status()["in_ring"] >= 48:  # the link waits for the radio
                await wait_until(lambda: writer.status()["in_ring"] < 48, "a commit")
    await settle()
    await clock.advance(0.5)
    await wait_durable(writer, 1000)
    # the ring wrapped many times over, always over entries already durable
    assert writer.totals.lost == 0 and await ctx.gaps() == []
    await writer.stop()
    await ctx.close()


async def test_stop_flushes_what_waits_and_unsubscribes(tmp_path: Path) -> None:
    _clock, ring, ctx, writer = await open_writer(tmp_path)
    for i in range(1, 6):
        ring.publish(event(i))
    await writer.stop()  # no time passed: the last flush made them durable
    assert ctx.last_context_id == 5 and writer.status()["state"] == "stopped"
    ring.publish(event(6))  # after stop the writer is no longer subscribed
    await settle()
    assert writer.status()["in_ring"] == 1
    await writer.stop()  # idempotent
    await ctx.close()


async def test_paused_intake_persists_nothing_and_resumes_from_the_source_cursor(
    tmp_path: Path,
) -> None:
    clock, ring, ctx, writer = await open_writer(tmp_path)
    ring.publish(event(1))
    await settle()
    await clock.advance(0.5)
    await wait_durable(writer, 1)
    ctx.set_intake_enabled(False)  # the storage level went Critical
    for i in range(2, 6):
        ring.publish(event(i))
    await settle()
    await clock.advance(5.0)
    await settle()
    await wait_until(lambda: not ctx.intake_enabled, "pause")
    assert ctx.last_context_id == 1 and ctx.source_cursor.ring_seq == 1
    status = writer.status()
    assert status["intake_paused"] and status["in_ring"] == 4
    ctx.set_intake_enabled(True)  # the level recovered
    writer.poke()
    await wait_durable(writer, 5)
    assert ctx.source_cursor.ring_seq == 5 and await ctx.gaps() == []
    await writer.stop()
    await ctx.close()


async def test_a_failed_write_moves_nothing_and_is_retried(tmp_path: Path) -> None:
    fs = FaultFileSystem()
    clock, ring, ctx, writer = await open_writer("/data", fs=fs)
    ring.publish(event(1))
    await settle()
    fs.arm(fs.steps + 1, "eio")
    await clock.advance(0.5)
    await wait_until(lambda: writer.status()["failures"] == 1, "the failed commit")
    status = writer.status()
    assert status["last_error"] == "storage_io_error" and status["in_ring"] == 1
    assert ctx.last_context_id == 0 and ctx.source_cursor.ring_seq == 0
    ring.publish(event(2))
    await settle()
    await clock.advance(1.0)  # the back-off: one loss window
    await wait_durable(writer, 2)
    assert writer.status()["last_error"] is None
    lines = [decode_line(raw) for path, data in fs.files().items() if path.endswith(".jsonl")
             for raw in data.split(b"\n")[:-1]]
    assert sorted(str(line["key"]) for line in lines if line) == ["k1", "k2"]
    await writer.stop()
    await ctx.close()


def test_the_loss_window_has_bounds() -> None:
    for bad in (0.0, 0.01, 61.0, float("nan")):
        with pytest.raises(ConfigError, match=r"intake\.loss_window_s = .*(from 0\.05 to 60|NaN)"):
            parse_config({"intake": {"loss_window_s": bad}})
        with pytest.raises(SettingsError, match="loss_window_s"):
            IntakeSettings(loss_window_s=bad)
    assert parse_config({"intake": {"loss_window_s": 0.25}}).intake.loss_window_s == 0.25


# -- the whole runtime: real clock, real worker, agent in the foreground ----------------

def shard_keys(root: Path) -> list[str]:
    """The keys of every complete record in the log's files, as a reader of the disk sees."""
    out: list[str] = []
    events = root / "notifications" / "events"
    for shard in sorted(events.glob("*.jsonl")):
        for raw in shard.read_bytes().split(b"\n")[:-1]:
            line = decode_line(raw)
            if line is not None:
                out.append(str(line["key"]))
    return out


async def test_with_the_agent_in_the_foreground_every_notification_reaches_the_disk(
    tmp_path: Path,
) -> None:
    async with Runtime(FAST, root=tmp_path) as runtime:
        with runtime.foreground():
            for i in range(30):  # 30 notifications over about 0.3 s while the agent works
                runtime.publish(event(i))
                await asyncio.sleep(0.01)
            keys: list[str] = []
            for _ in range(int(WAIT_LIMIT_S / 0.05)):
                keys = await asyncio.to_thread(shard_keys, tmp_path)
                if len(keys) == 30:
                    break
                await asyncio.sleep(0.05)
            assert sorted(keys) == sorted(f"k{i}" for i in range(30))
            await wait_until(lambda: event_ring(runtime).statistics().published == 30, "publish")
            for _ in range(int(WAIT_LIMIT_S / 0.01)):
                status = await runtime.status()
                if status.intake["written_persisted"] == 30:  # the commit has returned
                    break
                await asyncio.sleep(0.01)
            # no idle window ran (the agent was busy the whole time): the writer did it
            assert runtime.rounds == 0 and status.worker["foreground"]
            assert status.intake["in_ring"] == 0 and status.intake["written_persisted"] == 30
            assert status.pending == 30


async def test_a_burst_of_3000_at_about_a_kilohertz_loses_nothing(tmp_path: Path) -> None:
    async with Runtime(DEFAULTS, root=tmp_path) as runtime:
        with runtime.foreground():
            published = 0
            while published < 3000:  # ten every 10 ms, as fast as a phone can send
                for _ in range(10):
                    assert runtime.publish(event(published)) is not None
                    published += 1
                await asyncio.sleep(0.01)
            await wait_until(
                lambda: event_ring(runtime).statistics().last_seq == 3000, "3000 published")
            for _ in range(int(WAIT_LIMIT_S / 0.05)):
                status = await runtime.status()
                if status.intake["written_persisted"] == 3000:
                    break
                await asyncio.sleep(0.05)
            assert status.intake["written_persisted"] == 3000
            assert status.intake["in_ring"] == 0
            assert status.intake["written_lost"] == 0 and await runtime.gaps() == []
            assert runtime.rounds == 0
        keys = await asyncio.to_thread(shard_keys, tmp_path)
        assert len(keys) == len(set(keys)) == 3000


async def test_closing_the_runtime_flushes_what_waits(tmp_path: Path) -> None:
    async with Runtime(SLOW, root=tmp_path, start_worker=False) as runtime:
        for i in range(7):
            runtime.publish(event(i))
        status = await runtime.status()
        assert status.intake["in_ring"] == 7 and status.intake["loss_window_s"] == 60.0
    keys = await asyncio.to_thread(shard_keys, tmp_path)
    assert sorted(keys) == sorted(f"k{i}" for i in range(7))
