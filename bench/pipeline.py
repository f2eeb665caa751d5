"""Worker and notification pipeline benchmarks (issue 4).

1. Throughput: N realistic notifications through the deterministic pipeline
   (publish -> consume -> coalesce/filter -> related recall -> fallback "model" ->
   validate -> apply + memory cursor in one transaction), against the floor of
   the same records written raw in the same run (per batch of 10: one JSONL
   append + fsync, one SQLite transaction inserting the 10 rows, WAL and
   synchronous=FULL like the store).
2. Foreground cancellation latency: a provider that streams tokens at a
   realistic rate (`--token-ms`); time from `foreground_started()` to the
   provider's await being cancelled, and to the worker being idle again.
3. An idle worker over a simulated hour on a fake clock: wake-ups of the worker
   task, windows, model calls and the CPU time it all took.

    .venv/bin/python bench/pipeline.py --notifications 10000 --cancels 40 --write
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion_memory.agent.model.merge import MemoryMergeEngine
from companion_memory.agent.model.provider import ModelProvider, ModelRequest
from companion_memory.agent.model.scripted import ScriptedProvider
from companion_memory.agent.notification_log.log import NotificationContext
from companion_memory.agent.notification_log.state import StoreMemoryCursor
from companion_memory.agent.notifications.extractor import (
    ModelNotificationExtractor,
    RulesNotificationExtractor,
)
from companion_memory.agent.notifications.fallback import distill
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.agent.worker import MemoryWorker
from companion_memory.ble.events import NotificationEvent
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, FakeClock, SystemClock
from companion_memory.memory.store import MemoryStore

HEADING = "## Worker and notification pipeline (issue 4)"
T0 = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)

PEOPLE = ["Anna", "Bob", "Carla", "Dev team", "Mum", "Jonas", "Priya", "Landlord", "Coach"]
TOPICS = [
    "dinner on Friday at the Greek place", "the quarterly report draft",
    "moving the match to Sunday", "picking up the kids at 4", "the flat viewing next Tuesday",
    "a new version of the slides", "the dentist appointment on Monday",
    "train delayed by 20 minutes", "the birthday present for Lea",
    "the budget review meeting", "weekend hiking plans near the lake", "rent increase from May",
]
APPS = ["net.whatsapp.WhatsApp", "com.google.android.gm", "com.slack", "com.apple.MobileSMS",
        "org.telegram.messenger", "com.apple.mobilecal"]


def realistic_events(n: int, seed: int = 7) -> list[NotificationEvent]:
    """Messages, mail, calendar; ~6 % codes, ~10 % marketing, ~2 % secrets, ~10 % updates."""
    rng = random.Random(seed)
    out: list[NotificationEvent] = []
    for i in range(n):
        at = T0 + timedelta(seconds=6 * i)
        roll = rng.random()
        key = f"k{i}"
        if roll < 0.06:
            body, title, app = f"Your verification code is {rng.randint(100000, 999999)}", "Bank", \
                "com.bank.app"
        elif roll < 0.16:
            body, title, app = f"Flash sale! {rng.randint(10, 70)}% off everything this weekend", \
                "Shop", "com.shop.app"
        elif roll < 0.18:
            body, title, app = "card 4111 1111 1111 1111 for the booking", rng.choice(PEOPLE), \
                APPS[0]
        elif roll < 0.28 and i > 0:
            prev = out[rng.randrange(max(0, i - 8), i)]
            out.append(NotificationEvent.create(
                kind=rng.choice(["modified", "removed"]), key=prev.key, app_id=prev.app_id,
                title=prev.title, body=prev.body + " (edited)", posted_at=at, category="social",
            ))
            continue
        else:
            person, topic = rng.choice(PEOPLE), rng.choice(TOPICS)
            body = f"Hey, about {topic} - message {i}: can you confirm by tonight?"
            title, app = person, rng.choice(APPS)
        out.append(NotificationEvent.create(
            kind="added", key=key, app_id=app, title=title, body=body, posted_at=at,
            category="social",
        ))
    return out


# -- 1. throughput ---------------------------------------------------------------------


async def pipeline_run(root: Path, events: list[NotificationEvent]) -> tuple[float, dict[str, int]]:
    clock = SystemClock()
    ring = EventRing(capacity=1024)
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    context = await NotificationContext.open(root, ring, cursor=StoreMemoryCursor(store),
                                             clock=clock)
    processor = NotificationProcessor(context, store, RulesNotificationExtractor(), clock=clock)
    totals = {"batches": 0, "model_calls": 0, "applied": 0, "filtered": 0}
    started = time.perf_counter()
    for offset in range(0, len(events), 500):
        for ev in events[offset:offset + 500]:
            ring.publish(ev)
        while True:
            outcome = await processor.run_batch()
            r = outcome.report
            totals["batches"] += r.batches
            totals["model_calls"] += r.model_calls
            totals["applied"] += r.applied
            totals["filtered"] += sum(r.filtered.values())
            if r.error:
                raise RuntimeError(f"pipeline error {r.error}")
            if not outcome.backlog:
                break
    elapsed = time.perf_counter() - started
    assert context.memory_cursor == context.last_context_id
    await context.close()
    await store.close()
    return elapsed, totals


def floor_run(root: Path, events: list[NotificationEvent]) -> float:
    """The same records written raw: per batch of 10, JSONL append+fsync and one SQLite txn."""
    conn = sqlite3.connect(root / "floor.sqlite3", isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE raw (context_id INTEGER PRIMARY KEY, line TEXT NOT NULL)")
    path = root / "floor.jsonl"
    started = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    dfd = os.open(root, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)
    try:
        for offset in range(0, len(events), 10):
            chunk = events[offset:offset + 10]
            lines = [{"context_id": offset + i + 1, **ev.to_dict()} for i, ev in enumerate(chunk)]
            blob = b"".join(orjson.dumps(line) + b"\n" for line in lines)
            os.write(fd, blob)
            os.fsync(fd)
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO raw VALUES (?, ?)",
                             [(ln["context_id"], orjson.dumps(ln).decode()) for ln in lines])
            conn.execute("COMMIT")
    finally:
        os.close(fd)
        conn.close()
    return time.perf_counter() - started


# -- 2. cancellation latency ----------------------------------------------------------------


async def cancel_latency(root: Path, cancels: int, token_ms: float) -> dict[str, float]:
    clock = SystemClock()
    ring = EventRing()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=clock)
    context = await NotificationContext.open(root, ring, cursor=StoreMemoryCursor(store),
                                             clock=clock)
    stamps: list[float] = []

    async def streaming_sleep(seconds: float) -> None:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            stamps.append(time.perf_counter())
            raise

    def long_answer(request: ModelRequest) -> str:
        """The per-batch contract, each item the rules' statement, then a long tail."""
        answer = {str(i): {"about": "", "a": "new", "t": (distill(item) or "")[:120],
                           "k": "event", "r": 0}
                  for i, item in enumerate(request.payload["items"], 1)}
        return orjson.dumps(answer).decode() + " " * 2000

    provider: ModelProvider = ScriptedProvider([long_answer], repeat_last=True,
                                               token_delay_s=token_ms / 1000,
                                               sleep=streaming_sleep)
    processor = NotificationProcessor(
        context, store, ModelNotificationExtractor(MemoryMergeEngine(provider)), clock=clock)
    worker = MemoryWorker(clock=clock, idle_delay=0.02)
    worker.register(processor)
    await worker.start()
    rng = random.Random(3)
    to_cancel: list[float] = []
    to_idle: list[float] = []
    scripted = provider
    assert isinstance(scripted, ScriptedProvider)
    for i in range(cancels):
        ring.publish(NotificationEvent.create(
            kind="added", key=f"c{i}", app_id="com.slack", title="Priya",
            body=f"can we move standup {i} to 9:45", posted_at=T0,
        ))
        worker.wake()
        seen = len(scripted.requests)
        while len(scripted.requests) == seen:  # noqa: ASYNC110 - wait for the call in flight
            await asyncio.sleep(0.001)
        await asyncio.sleep(rng.uniform(0.0, 0.15))
        rounds = worker.rounds
        before = len(stamps)
        t0 = time.perf_counter()
        worker.foreground_started()
        await worker.wait_rounds(rounds + 1)
        t_idle = time.perf_counter()
        if len(stamps) > before:
            to_cancel.append(stamps[-1] - t0)
            to_idle.append(t_idle - t0)
        worker.foreground_ended()
    await worker.stop()
    await context.close()
    await store.close()
    return {
        "n": len(to_cancel),
        "cancel_p50_ms": statistics.median(to_cancel) * 1000,
        "cancel_p95_ms": percentile(to_cancel, 95) * 1000,
        "idle_p50_ms": statistics.median(to_idle) * 1000,
        "idle_p95_ms": percentile(to_idle, 95) * 1000,
    }


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


# -- 3. idle hour ------------------------------------------------------------------------------


class CountingClock(FakeClock):
    def __init__(self, start: datetime) -> None:
        super().__init__(start)
        self.sleeps = 0

    async def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        await super().sleep(seconds)


async def idle_hour(root: Path, publish_every_s: float | None) -> dict[str, float]:
    clock = CountingClock(T0)
    typed: Clock = clock
    ring = EventRing()
    store = await MemoryStore.open(root / "memory.sqlite3", clock=typed)
    context = await NotificationContext.open(root, ring, cursor=StoreMemoryCursor(store),
                                             clock=typed)
    provider = ScriptedProvider([], sleep=clock.sleep)
    processor = NotificationProcessor(
        context, store, ModelNotificationExtractor(MemoryMergeEngine(provider)), clock=typed)
    worker = MemoryWorker(clock=typed, idle_delay=300)
    worker.register(processor)
    await worker.start()
    cpu0 = time.process_time()
    next_wake = publish_every_s or float("inf")
    for second in range(1, 3601):
        if second >= next_wake:
            worker.wake()  # what a ring publish does (the event itself is not needed here)
            next_wake += publish_every_s or float("inf")
        await clock.advance(1.0)
        if worker.status()["busy"]:
            while worker.status()["busy"]:  # noqa: ASYNC110 - real I/O of the window
                await asyncio.sleep(0.001)
    cpu = time.process_time() - cpu0
    result = {
        "wakeups": clock.sleeps,
        "windows": worker.rounds,
        "model_calls": len(provider.requests),
        "cpu_ms": cpu * 1000,
    }
    await worker.stop()
    await context.close()
    await store.close()
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notifications", type=int, default=10_000)
    parser.add_argument("--cancels", type=int, default=40)
    parser.add_argument("--token-ms", type=float, default=30.0,
                        help="streaming rate of the cancellation provider (30 ms = ~33 tok/s)")
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    events = realistic_events(args.notifications)
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "floor").mkdir()
        (base / "pipe").mkdir()
        floor_s = await asyncio.to_thread(floor_run, base / "floor", events)
        pipe_s, totals = await pipeline_run(base / "pipe", events)
        ratio = floor_s / pipe_s
        lines.append(
            f"| throughput, {len(events)} notifications | pipeline {len(events) / pipe_s:,.0f}/s "
            f"({pipe_s:.2f} s; {totals['batches']} batches, {totals['model_calls']} calls, "
            f"{totals['applied']} intents, {totals['filtered']} filtered) | raw floor "
            f"{len(events) / floor_s:,.0f}/s ({floor_s:.2f} s) | **{ratio:.0%} of floor** "
            "(target >= 50 %) |"
        )
        print(lines[-1], flush=True)
        (base / "cancel").mkdir()
        lat = await cancel_latency(base / "cancel", args.cancels, args.token_ms)
        lines.append(
            f"| foreground cancel, {lat['n']:.0f} cancels at {args.token_ms:g} ms/token | "
            f"to provider cancelled p50 {lat['cancel_p50_ms']:.2f} ms, "
            f"**p95 {lat['cancel_p95_ms']:.2f} ms** (target < 50 ms) | worker idle again p50 "
            f"{lat['idle_p50_ms']:.2f} ms, p95 {lat['idle_p95_ms']:.2f} ms | |"
        )
        print(lines[-1], flush=True)
        for label, every in (("no publish", None), ("a publish every 60 s", 60.0)):
            sub = base / f"idle-{every}"
            sub.mkdir()
            idle = await idle_hour(sub, every)
            lines.append(
                f"| idle worker, simulated hour, {label} | {idle['wakeups']:.0f} task wake-ups, "
                f"{idle['windows']:.0f} windows | {idle['model_calls']:.0f} model calls | "
                f"{idle['cpu_ms']:.0f} ms CPU for the whole simulated hour |"
            )
            print(lines[-1], flush=True)
    if args.write:
        write_doc(args, lines)


def write_doc(args: argparse.Namespace, lines: list[str]) -> None:
    doc = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
    command = (f".venv/bin/python bench/pipeline.py --notifications {args.notifications} "
               f"--cancels {args.cancels} --token-ms {args.token_ms:g} --write")
    section = "\n".join([
        HEADING,
        "",
        f"Command: `{command}` (2-core shared VM, Python {sys.version.split()[0]}, SQLite "
        f"{sqlite3.sqlite_version}; temp dir on the same disk for pipeline and floor; "
        "deterministic provider; the floor writes the same records raw in the same run: "
        "per batch of 10 one JSONL append + fsync and one WAL synchronous=FULL transaction).",
        "",
        "| measure | result | baseline / detail | |",
        "|---|---|---|---|",
        *lines,
        "",
        "Idle: the worker sleeps on the clock until the idle countdown ends; a publish only "
        "moves the deadline (no wake-up), so the task wakes about once per idle delay.",
        "",
        "Before (commit 034ba17, same command): pipeline 1,030/s (9.71 s) vs raw floor "
        "23,480/s, 4 % of floor. Changes since: the batch's related-memory lookups run in ONE "
        "store-thread job (`MemoryStore.related_many`: rarest indexed terms within a posting "
        "budget, AND of the two rarest when even the rarest is common, per-term document "
        "counts cached for 32 write transactions because `fts5vocab` walks whole posting "
        "lists); owner-rejection checks for a batch in one job (`rejected_many`); "
        "`commit_processed` verifies a batch against the keys its own `read_pending` returned "
        "(falls back to re-reading the log after a recovery or a moved cursor).",
        "",
        "Then (commit 68a8709, same command): pipeline 2,096/s (4.77 s) vs raw floor "
        "27,178/s, 8 % of floor; per batch ~0.9 ms related lookups, ~1.0 ms apply + cursor "
        "transaction, ~2.5 ms Python on the event loop and ~5 thread hops. Changes since: "
        "`record_from_row` decodes a row in 3.0 us instead of 7.6 (enum dict lookups, memoized "
        "source lists); `read_pending` serves the records `consume` just appended from a "
        "small contiguous window (emptied by any recovery, a miss reads the log) and "
        "`pending_count` reads in-memory gaps, so neither hops to a thread; the noise filter "
        "runs lowercased case-sensitive twins of its IGNORECASE patterns on ASCII text "
        "(28 -> 14 us per notification, same decisions: differential test).",
        "",
        "Then (commit 729b192, same command): pipeline 2,483/s (4.03 s) vs raw floor "
        "26,544/s, 9 % of floor; per batch ~4.2 ms: `related_many` ~2.4 ms (one FTS5 query + "
        "join per kept notification, ~240 us each, growing with the store), the apply + "
        "cursor transaction ~1.0 ms, event loop ~0.8 ms. Changes since (store performance "
        "pass): a related lookup ranks at most the newest 64 rows its MATCH finds "
        "(`RELATED_WINDOW`; `ORDER BY bm25()` costs ~1 us a row plus a posting walk per "
        "phrase, and a rare-term lookup may match 256 rows); when even the rarest term is "
        "common (AND of the two rarest) it returns the newest live matches unranked (every "
        "row holds the same terms: no scoring pass, ~40 us instead of ~190); texts of a "
        "batch that choose the same MATCH share one query; related memories and the "
        "owner's recent rejections come from ONE store-thread job "
        "(`MemoryStore.batch_context`). tests/memory/test_related_batch.py compares each "
        "text's batched result with an exhaustive per-item ranking.",
        "",
        "Throughput still misses the 50 % target. Per batch of 10 now (wall time of each "
        "await, `/tmp` profile of this run's workload): `batch_context` ~0.9 ms (7 lookups, "
        "~4 newest-match and ~3 windowed BM25, plus the cached document counts), the apply "
        "+ cursor transaction ~0.9 ms (7 creates with FTS triggers, receipt, one WAL fsync), "
        "`rejected_many` ~0.1 ms, the event loop ~0.7 ms. The floor is ~0.38 ms per batch, "
        "so 50 % needs the whole pipeline under ~0.75 ms: the apply transaction alone is "
        "above that; not reachable while each notification gets its own related lookup and "
        "each batch its own durable apply.",
        "",
        "",
    ])
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n\n"
    if HEADING in text:
        start = text.index(HEADING)
        nxt = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + (text[nxt + 1:] if nxt >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())
