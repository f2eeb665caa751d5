"""Ring writer benchmark: what persisting on arrival costs and how fast it can go.

Three measurements, each on real files, in the same run:

1. Sustained rate: a publisher puts `--records` notifications into a 1,024-entry
   ring as fast as the event loop lets it (10 per loop turn; it pauses only when
   the ring is 90 % unwritten, which a real phone would not do: the figure is the
   most the writer can take), with the `RingWriter` committing on its own (its
   high-water mark). Beside it, the raw floor: the same lines serialized with
   orjson, one write and one fsync per batch of the writer's mean commit size, on
   an fd kept open, in a plain loop.
2. A 1,000-notification burst at about 1 kHz (10 every 10 ms) with the default
   loss window: how many commits and fsyncs (files and directories) it cost.
3. Per-notification CPU cost of persistence: the event loop's thread CPU time and
   the whole process's CPU time per notification, with the writer and without it
   (publishing alone), so the difference is what persistence adds on the loop and
   off it; and the loop's worst lag (a 1 ms ticker) while the writer works.

    .venv/bin/python bench/ring_writer.py --records 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.agent.notifications import RingWriter
from companion_memory.ble.events import EventKind, NotificationEvent, format_rfc3339
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import SystemClock
from companion_memory.storage.fs import RealFileSystem

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


async def until(done: Callable[[], bool], step: float) -> None:
    """Poll `done()` every `step` seconds (the writer's counters have no event)."""
    for _ in itertools.count():
        if done():
            return
        await asyncio.sleep(step)


class CountingFS(RealFileSystem):
    def __init__(self) -> None:
        super().__init__()
        self.fsyncs = 0

    def fsync(self, path: str) -> None:
        self.fsyncs += 1
        super().fsync(path)

    def fsync_dir(self, path: str) -> None:
        self.fsyncs += 1
        super().fsync_dir(path)


def make_events(n: int, tag: str) -> list[NotificationEvent]:
    body = "Your parcel from the shop is out for delivery and should arrive between 2 and 4 pm. "
    return [
        NotificationEvent.create(
            kind=EventKind.ADDED, key=f"{tag}-{i}", app_id="com.example.delivery",
            title=f"Parcel update {i}", body=(body * 3)[: 180 + i % 40], category="logistics",
            posted_at=T0,
        )
        for i in range(n)
    ]


def floor_run(directory: Path, events: list[NotificationEvent], batch: int) -> float:
    """Records per second of orjson + one write + one fsync per `batch` lines."""
    fd = os.open(directory / "floor.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    received = format_rfc3339(T0)
    started = time.perf_counter()
    try:
        for start in range(0, len(events), batch):
            lines = [{"context_id": start + i + 1, "ring_generation": "g",
                      "ring_seq": start + i + 1, "received_at": received, **e.to_dict()}
                     for i, e in enumerate(events[start:start + batch])]
            view = memoryview(b"".join(orjson.dumps(line) + b"\n" for line in lines))
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
    finally:
        os.close(fd)
    return len(events) / (time.perf_counter() - started)


async def open_root(root: Path, fs: RealFileSystem | None = None) -> tuple[
    EventRing, NotificationContext, RingWriter
]:
    ring = EventRing(1024, replay_window=0)
    ctx = await NotificationContext.open(root, ring, fs=fs)
    writer = RingWriter(ctx, ring, clock=SystemClock(), loss_window_s=1.0)
    await writer.start()
    return ring, ctx, writer


async def sustained(root: Path, events: list[NotificationEvent]) -> tuple[float, float, int]:
    """(records/s until all durable, mean records per commit, lost)."""
    ring, ctx, writer = await open_root(root)
    started = time.perf_counter()
    for i, event in enumerate(events, 1):
        ring.publish(event)
        if i % 10 == 0:
            await asyncio.sleep(0)
            await until(lambda: writer.unwritten <= 0.9 * 1024, 0.001)
    await until(lambda: writer.totals.persisted + writer.totals.lost >= len(events), 0.001)
    elapsed = time.perf_counter() - started
    totals = writer.totals
    await writer.stop()
    await ctx.close()
    return len(events) / elapsed, totals.persisted / max(1, totals.commits), totals.lost


async def burst(root: Path, events: list[NotificationEvent]) -> tuple[int, int, int, float]:
    """A 1,000 burst at ~1 kHz: (commits, fsyncs, lost, seconds the burst took)."""
    fs = CountingFS()
    ring, ctx, writer = await open_root(root, fs)
    before = fs.fsyncs
    started = time.perf_counter()
    for i, event in enumerate(events[:1000], 1):
        ring.publish(event)
        if i % 10 == 0:
            await asyncio.sleep(0.01)
    took = time.perf_counter() - started
    await until(lambda: writer.totals.persisted + writer.totals.lost >= 1000, 0.01)
    result = writer.totals.commits, fs.fsyncs - before, writer.totals.lost, took
    await writer.stop()
    await ctx.close()
    return result


async def cpu_cost(root: Path, events: list[NotificationEvent], with_writer: bool) -> tuple[
    float, float, float
]:
    """(loop-thread CPU us per notification, process CPU us per notification, max lag ms)
    for publishing at ~2 kHz, with or without the writer persisting."""
    ring = EventRing(len(events) + 1, replay_window=0)
    ctx = await NotificationContext.open(root, ring)
    writer = RingWriter(ctx, ring, clock=SystemClock(), loss_window_s=1.0) if with_writer \
        else None
    if writer is not None:
        await writer.start()
    lags: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            t0 = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - t0 - 0.001)

    tick = asyncio.create_task(ticker())
    loop0, proc0 = time.thread_time(), time.process_time()
    for i, event in enumerate(events, 1):
        ring.publish(event)
        if i % 20 == 0:
            await asyncio.sleep(0.01)
    if writer is not None:
        done = writer
        await until(lambda: done.totals.persisted >= len(events), 0.005)
    loop_cpu, proc_cpu = time.thread_time() - loop0, time.process_time() - proc0
    running = False
    await tick
    if writer is not None:
        await writer.stop()
    await ctx.close()
    n = len(events)
    return loop_cpu / n * 1e6, proc_cpu / n * 1e6, max(lags) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cost-records", type=int, default=4_000)
    parser.add_argument("--dir", default=None, help="parent folder (default: ./.bench-tmp)")
    args = parser.parse_args()
    parent = Path(args.dir or ".bench-tmp")
    parent.mkdir(parents=True, exist_ok=True)
    gc.collect()
    gc.freeze()
    rates, floors, sizes, lost_all = [], [], [], 0
    bursts: list[tuple[int, int, int, float]] = []
    cost_with: list[tuple[float, float, float]] = []
    cost_without: list[tuple[float, float, float]] = []
    try:
        for r in range(args.rounds):
            work = Path(tempfile.mkdtemp(dir=parent))
            events = make_events(args.records, f"s{r}")
            rate, size, lost = asyncio.run(sustained(work / "sustained", events))
            rates.append(rate)
            sizes.append(size)
            lost_all += lost
            floors.append(floor_run(work, events, max(1, round(size))))
            bursts.append(asyncio.run(burst(work / "burst", make_events(1000, f"b{r}"))))
            cost_events = make_events(args.cost_records, f"c{r}")
            cost_without.append(asyncio.run(cpu_cost(work / "c0", cost_events, False)))
            cost_with.append(asyncio.run(cpu_cost(work / "c1", cost_events, True)))
            shutil.rmtree(work)
    finally:
        if args.dir is None:
            shutil.rmtree(parent, ignore_errors=True)
    med = statistics.median
    rate, floor = med(rates), med(floors)
    print(f"records={args.records} rounds={args.rounds} cores={os.cpu_count()} "
          f"mean commit={med(sizes):.0f} records lost={lost_all}")
    print("| path | records/s (median of rounds) |")
    print("|---|---|")
    print(f"| raw floor: orjson + 1 write + 1 fsync per {med(sizes):.0f} records | {floor:,.0f} |")
    print(f"| `RingWriter` (publish -> durable, high-water commits) | {rate:,.0f} |")
    print(f"\nratio writer / floor: {rate / floor:.0%}")
    commits = med([b[0] for b in bursts])
    fsyncs = med([b[1] for b in bursts])
    print(f"1,000-notification burst at ~1 kHz: {commits:.0f} commits, {fsyncs:.0f} fsyncs "
          f"(files + directories), lost {sum(b[2] for b in bursts)}; the bursts took "
          + ", ".join(f"{b[3]:.2f}" for b in bursts) + " s (per round: "
          + ", ".join(f"{b[0]} commits/{b[1]} fsyncs" for b in bursts) + ")")
    loop_w, proc_w, lag_w = (med([c[i] for c in cost_with]) for i in range(3))
    loop_0, proc_0, lag_0 = (med([c[i] for c in cost_without]) for i in range(3))
    print("| per notification (publishing at ~2 kHz) | loop thread CPU us | process CPU us |"
          " max loop lag ms |")
    print("|---|---|---|---|")
    print(f"| publish only (baseline) | {loop_0:.1f} | {proc_0:.1f} | {lag_0:.2f} |")
    print(f"| publish + RingWriter | {loop_w:.1f} | {proc_w:.1f} | {lag_w:.2f} |")
    print(f"persistence adds {loop_w - loop_0:.1f} us on the loop and "
          f"{(proc_w - proc_0) - (loop_w - loop_0):.1f} us off it per notification")


if __name__ == "__main__":
    main()
