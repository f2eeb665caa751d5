"""Intake benchmark: ring -> durable JSONL through NotificationContext.consume vs the raw floor.

The floor: the same line dicts serialized with orjson, one os.write and one
os.fsync per batch, on an fd kept open, in a plain loop (no crc, no asyncio).
The measured path: publish a batch into the EventRing (not timed), then time
`await ctx.consume(limit=batch)` (record building, crc, one write, one fsync
in a worker thread, cursor update). A ticker task measures the event loop's
lag (how late a 1 ms sleep wakes) while consuming. Rounds alternate floor and
consume on the same disk so the noisy fsync latency hits both alike.

    .venv/bin/python bench/intake.py --records 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.ble.events import EventKind, NotificationEvent, format_rfc3339
from companion_memory.ble.ring import EventRing

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def make_events(n: int) -> list[NotificationEvent]:
    body = "Your parcel from the shop is out for delivery and should arrive between 2 and 4 pm. "
    return [
        NotificationEvent.create(
            kind=EventKind.ADDED,
            key=f"key-{i}",
            app_id="com.example.delivery",
            title=f"Parcel update {i}",
            body=(body * 3)[: 180 + i % 40],
            category="logistics",
            posted_at=T0,
        )
        for i in range(n)
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def floor_run(directory: Path, events: list[NotificationEvent], batch: int) -> list[float]:
    path = directory / "floor.jsonl"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    received = format_rfc3339(T0)
    latencies: list[float] = []
    try:
        for start in range(0, len(events), batch):
            chunk = events[start : start + batch]
            t0 = time.perf_counter()
            lines = [
                {"context_id": start + i + 1, "ring_generation": "g", "ring_seq": start + i + 1,
                 "received_at": received, **event.to_dict()}
                for i, event in enumerate(chunk)
            ]
            data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            latencies.append(time.perf_counter() - t0)
    finally:
        os.close(fd)
    return latencies


async def consume_run(
    directory: Path, events: list[NotificationEvent], batch: int
) -> tuple[list[float], float]:
    ring = EventRing(capacity=max(1024, batch * 2), replay_window=0)
    ctx = await NotificationContext.open(directory, ring)
    lags: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            t0 = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - t0 - 0.001)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    latencies: list[float] = []
    for start in range(0, len(events), batch):
        for event in events[start : start + batch]:
            ring.publish(event)
        t0 = time.perf_counter()
        result = await ctx.consume(limit=batch)
        latencies.append(time.perf_counter() - t0)
        if result.persisted != min(batch, len(events) - start):
            raise RuntimeError("consume persisted fewer records than published")
    running = False
    await tick
    await ctx.close()
    return latencies, max(lags) if lags else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", default=None, help="parent folder (default: ./.bench-tmp)")
    args = parser.parse_args()
    parent = Path(args.dir or ".bench-tmp")
    parent.mkdir(parents=True, exist_ok=True)
    events = make_events(args.records)
    # The harness's own pre-built events are not what a device holds (its ring is
    # bounded): keep them out of the collector's full passes, which would otherwise
    # stall the loop mid-run and be charged to whichever path runs then.
    gc.collect()
    gc.freeze()
    line_bytes = len(orjson.dumps(events[0].to_dict())) + 90
    floor_lat: list[float] = []
    ctx_lat: list[float] = []
    floor_rates: list[float] = []
    ctx_rates: list[float] = []
    max_lag = 0.0
    try:
        for _ in range(args.rounds):
            work = Path(tempfile.mkdtemp(dir=parent))
            lat = floor_run(work, events, args.batch)
            floor_lat += lat
            floor_rates.append(args.records / sum(lat))
            lat, lag = asyncio.run(consume_run(work / "root", events, args.batch))
            ctx_lat += lat
            ctx_rates.append(args.records / sum(lat))
            max_lag = max(max_lag, lag)
            shutil.rmtree(work)
    finally:
        shutil.rmtree(parent, ignore_errors=True) if args.dir is None else None
    floor_rate = statistics.median(floor_rates)
    ctx_rate = statistics.median(ctx_rates)
    ratio = ctx_rate / floor_rate
    print(f"records={args.records} batch={args.batch} rounds={args.rounds} "
          f"~{line_bytes} B/record")
    print("| path | records/s (median of rounds) | p50 batch ms | p99 batch ms |")
    print("|---|---|---|---|")
    print(f"| raw floor: orjson + 1 write + 1 fsync per batch | {floor_rate:,.0f} | "
          f"{percentile(floor_lat, 0.5) * 1e3:.3f} | {percentile(floor_lat, 0.99) * 1e3:.3f} |")
    print(f"| `NotificationContext.consume` (ring -> durable JSONL) | {ctx_rate:,.0f} | "
          f"{percentile(ctx_lat, 0.5) * 1e3:.3f} | {percentile(ctx_lat, 0.99) * 1e3:.3f} |")
    print(f"\nratio consume / floor: {ratio:.0%} (target >= 60%); "
          f"max event-loop lag while consuming: {max_lag * 1e3:.2f} ms (target <= 5 ms)")


if __name__ == "__main__":
    main()
