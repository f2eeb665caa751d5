"""Power-loss / EIO simulator for NotificationContext over `FaultFileSystem`.

A fixed workload (open, publish, consume in small batches, process and commit,
a day change, ring overflow, a poison-batch skip, cleanup of one day and then of
everything, more intake after that, and intake by the `RingWriter`: a burst past
its high-water mark and a trickle committed by its timer) is run once without
faults as the reference. Then a fault is injected at every I/O step:

- power: each possible disk image (synced only, everything landed, random
  prefixes/garbage/dropped directory entries) is recovered and checked against
  the invariants `check_recovered` holds it to, recovered a second time
  (idempotent: nothing changes), resumed from the step that crashed and
  compared with the reference end state; optionally a second power cut is
  swept over every step of the recovery itself.
- eio: the failing call must raise StorageIOError with every cursor where it
  was; a crash image taken right then must satisfy the invariants; the step is
  retried and the run must end in the reference state.

Used by tests/notifications_context/test_power_loss.py (small) and
bench/crash_sweep.py (large).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notifications import RingWriter
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.storage.faultfs import FaultFileSystem, PowerLoss
from companion_memory.storage.fs import FileSystem, StorageIOError
from companion_memory.storage.jsonl_log import decode_line
from tests.notifications_context.helpers import T0, event

ROOT = "/data"
EVENTS = f"{ROOT}/notifications/events"

Step = tuple[Any, ...]

WORKLOAD: list[Step] = [
    ("open",),
    ("publish", 1, 12),
    ("consume_all", 5),
    ("process", 4),
    ("publish", 13, 6),
    ("day", 1),
    ("consume_all", 5),
    ("publish", 19, 14),  # ring capacity 10: 4 events are overwritten unread
    ("consume_all", 5),
    ("process", 4),
    ("cleanup_before", 1),
    ("day", 2),
    ("publish", 33, 5),
    ("consume_all", 5),
    ("skip_until", 30),
    ("process", 3),
    ("cleanup_all",),
    ("publish", 38, 3),
    ("consume_all", 5),
    ("process", 10),
    ("writer", 41, 8),  # past the writer's high-water mark (5 of 10): committed at once
    ("writer", 49, 3),  # below it: committed by the writer's timer
    ("process", 10),
]
RING_CAPACITY = 10


class InvariantError(AssertionError):
    pass


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InvariantError(message)


@dataclass
class Driver:
    fs: FaultFileSystem
    ring: EventRing
    clock: FakeClock
    ctx: NotificationContext | None = None
    acked_last_id: int = 0
    acked_memory: int = 0
    seen: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    record_seen: bool = False
    acked_source: int = 0
    wrap: Callable[[FaultFileSystem], FileSystem] | None = None

    async def open(self) -> NotificationContext:
        fs = self.wrap(self.fs) if self.wrap is not None else self.fs
        self.ctx = await NotificationContext.open(ROOT, self.ring, fs=fs, clock=self.clock)
        return self.ctx

    async def run(self, step: Step) -> None:
        kind = step[0]
        if kind == "open":
            await self.open()
            return
        if kind == "publish":
            for i in range(step[1], step[1] + step[2]):
                self.ring.publish(event(i))
            return
        if kind == "day":
            self.clock.set_wall(T0 + timedelta(days=step[1]))
            return
        ctx = self.ctx
        assert ctx is not None
        if kind == "writer":
            await self.write_through_writer(ctx, step[1], step[2])
        elif kind == "consume_all":
            while True:
                before = ctx.last_context_id
                result = await ctx.consume(limit=step[1])
                self.acked_last_id = ctx.last_context_id
                self.acked_source = ctx.source_cursor.ring_seq
                if self.record_seen and result.persisted:
                    for line in await asyncio.to_thread(all_lines, self.fs):
                        if line["context_id"] > before:
                            self.seen[line["context_id"]] = identity(line)
                if result.persisted == 0 and result.lost == 0:
                    return
        elif kind == "process":
            while batch := await ctx.read_pending(limit=step[1]):
                await ctx.commit_processed(batch)
                self.acked_memory = ctx.memory_cursor
        elif kind == "skip_until":
            # By event number (the key), not context id: ids after a crash may have
            # skipped the ones a torn batch held.
            pending = await ctx.read_pending(limit=100)
            batch = [r for r in pending if int(r.event.key[1:]) <= step[1]]
            if batch:
                await ctx.skip_batch(batch, "retry_budget_exhausted")
                self.acked_memory = ctx.memory_cursor
        elif kind == "cleanup_before":
            await ctx.cleanup_processed_before((T0 + timedelta(days=step[1])).date())
        elif kind == "cleanup_all":
            await ctx.cleanup_all_processed()
        else:
            raise ValueError(f"unknown step {kind}")


    async def write_through_writer(self, ctx: NotificationContext, first: int,
                                   count: int) -> None:
        """Publish with a `RingWriter` running and let it commit (its timer moved on
        the fake clock). A power cut inside its commit ends the writer's task and is
        re-raised by `stop`; a failed write (which the writer itself would retry
        after a back-off) is raised here, so the sweep checks the cursors."""
        before = ctx.last_context_id
        # The writer's own clock (the context dates records by the driver's): a crash
        # image forks the driver's clock, which must hold no parked sleeper.
        timer = FakeClock(T0)
        writer = RingWriter(ctx, self.ring, clock=timer, loss_window_s=1.0)
        await writer.start()
        try:
            for i in range(first, first + count):
                self.ring.publish(event(i))
            for _ in range(20):
                await asyncio.sleep(0)  # the writer parks on the clock (or commits)
            await timer.advance(0.5)
            for _ in range(100_000):
                if not writer.alive or not writer.unwritten or writer.status()["failures"]:
                    break
                await asyncio.sleep(0.0005)
        finally:
            await writer.stop(flush=False)
        if writer.status()["failures"]:
            raise StorageIOError("append", EVENTS)
        require(not writer.unwritten, "the writer left events in the ring")
        self.acked_last_id = ctx.last_context_id
        self.acked_source = ctx.source_cursor.ring_seq
        if self.record_seen:
            for line in await asyncio.to_thread(all_lines, self.fs):
                if line["context_id"] > before:
                    self.seen[line["context_id"]] = identity(line)


def identity(line: dict[str, Any]) -> tuple[Any, ...]:
    """What a record must be, independent of the (random) ring generation of a run."""
    return (line["ring_seq"], line["key"])


def all_lines(fs: FaultFileSystem) -> list[dict[str, Any]]:
    """Every line of every shard, checking that each one is complete and valid."""
    out: list[dict[str, Any]] = []
    for path, data in sorted(fs.files().items()):
        if not path.startswith(EVENTS + "/") or not path.endswith(".jsonl"):
            continue
        require(data.endswith(b"\n"), f"{path} does not end with a complete line")
        for raw in data.split(b"\n")[:-1]:
            obj = decode_line(raw)
            require(obj is not None, f"{path} holds an invalid line after recovery")
            assert obj is not None
            out.append(obj)
    return out


HOLE_KINDS = ("torn_tail", "unused_ids", "corrupt_record", "cursor_ahead")
_ID_GAPS = ("poison_batch",)
"""Gaps whose first/last are context ids: a crash may shift later ids (cut ids are
never reused), so the end state compares their kind only."""


async def end_state(ctx: NotificationContext, fs: FaultFileSystem) -> dict[str, Any]:
    """What a run ends with, independent of ids skipped after a crash."""
    lines = await asyncio.to_thread(all_lines, fs)
    gaps = [
        (g.kind, None, None, "") if g.kind in _ID_GAPS
        else (g.kind, g.first, g.last, (g.ref or "").split(":")[0])
        for g in await ctx.gaps()
        if g.kind not in ("torn_tail", "unused_ids")
    ]
    return {
        "records": [identity(ln) for ln in lines],
        "unprocessed": [identity(ln) for ln in lines if ln["context_id"] > ctx.memory_cursor],
        "source": ctx.source_cursor.ring_seq,
        "gaps": gaps,
        "shards": sorted(p for p in fs.files() if p.startswith(EVENTS)),
    }


async def run_reference() -> tuple[dict[str, Any], dict[int, tuple[Any, ...]], int]:
    """The crash-free run: its end state, every record it ever held, its step count."""
    fs = FaultFileSystem()
    driver = Driver(fs, EventRing(capacity=RING_CAPACITY), FakeClock(T0), record_seen=True)
    for step in WORKLOAD:
        await driver.run(step)
    assert driver.ctx is not None
    return await end_state(driver.ctx, fs), driver.seen, fs.steps


@dataclass
class SweepStats:
    points: int = 0
    images: int = 0
    nested: int = 0
    eio: int = 0


class Simulator:
    """Sweeps faults; `wrap` lets a test put a deliberately broken layer over the fake."""

    def __init__(
        self,
        reference: dict[str, Any],
        seen: dict[int, tuple[Any, ...]],
        wrap: Callable[[FaultFileSystem], FileSystem] | None = None,
    ) -> None:
        self.reference = reference
        self.seen = seen
        self.wrap = wrap
        self.stats = SweepStats()

    def _fs(self, fs: FaultFileSystem) -> FileSystem:
        return self.wrap(fs) if self.wrap is not None else fs

    def _driver(self, fs: FaultFileSystem) -> Driver:
        return Driver(fs, EventRing(capacity=RING_CAPACITY), FakeClock(T0), wrap=self.wrap)

    async def check_recovered(
        self, image: FaultFileSystem, driver: Driver
    ) -> NotificationContext:
        """Open on a crash image and check every invariant; return the open context."""
        ctx = await NotificationContext.open(
            ROOT, driver.ring, fs=self._fs(image), clock=driver.clock
        )
        lines = await asyncio.to_thread(all_lines, image)
        ids = [ln["context_id"] for ln in lines]
        holes: set[int] = set()
        for gap in await ctx.gaps():
            if gap.kind in HOLE_KINDS and gap.first is not None and gap.last is not None:
                holes.update(range(gap.first, gap.last + 1))
        if ids:
            require(ids == sorted(set(ids)), f"context ids do not increase: {ids}")
            missing = set(range(ids[0], ctx.last_context_id + 1)) - set(ids)
            require(missing <= holes, f"ids {sorted(missing - holes)} vanished unreported")
        pairs = {(ln["ring_generation"], ln["ring_seq"]) for ln in lines}
        require(len(pairs) == len(lines), "a ring item was persisted twice")
        for line in lines:
            require(line["ring_generation"] == driver.ring.generation, "foreign generation")
            want = self.seen.get(line["context_id"])
            require(want == identity(line), f"record {line['context_id']} differs from reference")
        present = set(ids)
        mc = ctx.memory_cursor
        require(mc >= driver.acked_memory, f"memory cursor {mc} lost acked {driver.acked_memory}")
        require(mc <= ctx.last_context_id, "memory cursor ahead of the log")
        require(ctx.last_context_id >= driver.acked_last_id, "an acknowledged context id is gone")
        for cid in range(mc + 1, driver.acked_last_id + 1):
            require(cid in present, f"acknowledged unprocessed record {cid} lost")
        if lines:
            require(ctx.last_context_id >= ids[-1], "context id cursor behind durable data")
            require(
                ctx.source_cursor.ring_seq == lines[-1]["ring_seq"],
                "source cursor does not match the durable log",
            )
        require(not any(g.kind == "corrupt_record" for g in await ctx.gaps()), "corruption")
        return ctx

    async def check_idempotent(self, image: FaultFileSystem, driver: Driver) -> tuple[
        NotificationContext, FaultFileSystem
    ]:
        durable = image.crash_image(mode="synced")
        before = durable.files()
        ctx = await self.check_recovered(durable, driver)
        require(durable.files() == before, "a second recovery changed the disk")
        return ctx, durable

    async def resume(self, ctx: NotificationContext, fs: FaultFileSystem, driver: Driver,
                     from_step: int) -> None:
        driver.ctx = ctx
        driver.fs = fs
        for step in WORKLOAD[from_step:]:
            if step[0] != "open":
                await driver.run(step)
        state = await end_state(ctx, fs)
        require(state == self.reference, f"resumed end state differs: {state} vs reference")

    async def power_point(self, step_no: int, images: int, rng: random.Random,
                          nested: bool) -> bool:
        """Cut power at I/O step `step_no`; False when the workload has fewer steps."""
        fs = FaultFileSystem()
        fs.arm(step_no, "power")
        driver = self._driver(fs)
        crashed_at = None
        for index, step in enumerate(WORKLOAD):
            try:
                await driver.run(step)
            except PowerLoss:
                crashed_at = index
                break
        if crashed_at is None:
            return False
        self.stats.points += 1
        for number, image in enumerate(fs.crash_images(images, rng)):
            self.stats.images += 1
            fork = self._fork(driver)
            await self.check_recovered(image, fork)
            ctx, durable = await self.check_idempotent(image, fork)
            if nested and number == images - 1:
                await self.crash_during_recovery(image, fork, rng)
            await self.resume(ctx, durable, fork, crashed_at)
        return True

    @staticmethod
    def _fork(driver: Driver) -> Driver:
        # The ring and clock survive the crash (the phone side); each image resumes
        # from the same point, so each gets its own copy of them.
        return Driver(driver.fs, copy.deepcopy(driver.ring), copy.deepcopy(driver.clock), None,
                      driver.acked_last_id, driver.acked_memory,
                      acked_source=driver.acked_source, wrap=driver.wrap)

    async def crash_during_recovery(
        self, image: FaultFileSystem, driver: Driver, rng: random.Random
    ) -> None:
        probe = image.crash_image(mode="synced")
        await NotificationContext.open(ROOT, driver.ring, fs=self._fs(probe), clock=driver.clock)
        for k in range(1, probe.steps + 1):
            fs = image.crash_image(mode="synced")
            fs.arm(k, "power")
            with contextlib.suppress(PowerLoss):
                await NotificationContext.open(
                    ROOT, driver.ring, fs=self._fs(fs), clock=driver.clock
                )
            self.stats.nested += 1
            second = fs.crash_image(rng)
            await self.check_recovered(second, driver)
            await self.check_idempotent(second, driver)

    async def eio_point(self, step_no: int, rng: random.Random, kind: str = "eio") -> bool:
        fs = FaultFileSystem()
        fs.arm(step_no, kind)
        driver = self._driver(fs)
        for step in WORKLOAD:
            while True:
                try:
                    await driver.run(step)
                    break
                except StorageIOError:
                    self.stats.eio += 1
                    ctx = driver.ctx
                    if ctx is not None:
                        # Every cursor is where the last acknowledged call left it.
                        require(ctx.last_context_id == driver.acked_last_id, "EIO moved ids")
                        require(
                            ctx.source_cursor.ring_seq == driver.acked_source,
                            "EIO moved the source cursor",
                        )
                        require(ctx.memory_cursor >= driver.acked_memory, "EIO lost a commit")
                    image = fs.crash_image(rng)
                    await self.check_recovered(image, self._fork(driver))
        if fs.faulted is None:
            return False
        assert driver.ctx is not None
        state = await end_state(driver.ctx, fs)
        require(state == self.reference, f"end state after {kind} differs: {state}")
        return True


async def sweep(
    *,
    images: int,
    seed: int,
    nested_every: int,
    kinds: tuple[str, ...] = ("power", "eio", "enospc"),
    wrap: Callable[[FaultFileSystem], FileSystem] | None = None,
) -> tuple[SweepStats, int]:
    """Fault at every I/O step of the workload; returns the stats and the step count.

    Raises InvariantError at the first violation.
    """
    reference, seen, steps = await run_reference()
    sim = Simulator(reference, seen, wrap)
    rng = random.Random(seed)
    for step_no in range(1, steps + 1):
        if "power" in kinds:
            nested = nested_every > 0 and step_no % nested_every == 0
            await sim.power_point(step_no, images, rng, nested=nested)
        for kind in ("eio", "enospc"):
            if kind in kinds:
                await sim.eio_point(step_no, rng, kind)
    return sim.stats, steps
