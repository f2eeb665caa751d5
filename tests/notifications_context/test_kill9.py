"""kill -9 loop: a real child process on real files, killed at random times.

A process kill keeps the page cache, so this cannot see missing fsyncs (the
power-loss sweep does); it exercises real syscalls, threads and asyncio, and
a process dying between any two of them.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion_memory.agent.notification_log import NotificationContext
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import FakeClock
from companion_memory.storage.jsonl_log import decode_line
from tests.notifications_context.helpers import T0, event

REPO = Path(__file__).resolve().parents[2]
KILLS = 25


def durable_lines(root: Path) -> list[dict[str, object]]:
    events = root / "notifications" / "events"
    out: list[dict[str, object]] = []
    for shard in sorted(events.glob("*.jsonl")):
        data = shard.read_bytes()
        assert data.endswith(b"\n"), f"{shard.name} does not end with a complete line"
        for raw in data.split(b"\n")[:-1]:
            obj = decode_line(raw)
            assert obj is not None, f"{shard.name} holds an invalid line after recovery"
            out.append(obj)
    return out


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


HOLE_KINDS = ("torn_tail", "unused_ids", "corrupt_record", "cursor_ahead")


async def reopen(root: Path) -> tuple[int, int, set[int]]:
    """Last context id, memory cursor and every id a recorded gap says is missing."""
    ctx = await NotificationContext.open(root, EventRing(), clock=FakeClock(T0))
    try:
        holes: set[int] = set()
        for gap in await ctx.gaps():
            if gap.kind in HOLE_KINDS and gap.first is not None and gap.last is not None:
                holes.update(range(gap.first, gap.last + 1))
        return ctx.last_context_id, ctx.memory_cursor, holes
    finally:
        await ctx.close()


async def refeed_stores_nothing(root: Path, keys: list[str]) -> None:
    """Every retained event re-sent through a new ring without a replay window: the
    log (checkpointed sidecars plus what open scanned) must refuse each one."""
    ring = EventRing(capacity=len(keys) + 1, replay_window=0)
    ctx = await NotificationContext.open(root, ring, clock=FakeClock(T0))
    try:
        for key in keys:
            ring.publish(event(int(key[1:])))
        result = await ctx.consume(limit=len(keys) + 1)
        assert result.persisted == 0, f"{result.persisted} re-sent events stored again"
        assert result.duplicates == len(keys)
    finally:
        await ctx.close()


def run_child(root: Path, run: int, rng: random.Random) -> tuple[int, int, bool]:
    """Start the child, let it acknowledge 1 to 5 consumes, then kill it with SIGKILL at
    a random moment after that; (acked id, acked mem). Waiting for the acknowledgements
    (not for a time) means every run does some work, however slow the machine."""
    with subprocess.Popen(
        [sys.executable, "-m", "tests.notifications_context.killee", str(root), str(run),
         str(rng.randrange(1 << 30))],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as child:
        assert child.stdout is not None and child.stderr is not None
        ready = child.stdout.readline()
        assert ready.startswith(b"ready"), child.stderr.read()
        seen: list[bytes] = []
        acks_wanted = rng.randrange(1, 6)
        while sum(line.startswith(b"ack ") for line in seen) < acks_wanted:
            line = child.stdout.readline()
            assert line, child.stderr.read().decode(errors="replace")[-2000:]
            seen.append(line)
        time.sleep(rng.uniform(0.0, 0.1))  # where the kill lands; not a wait for anything
        os.kill(child.pid, signal.SIGKILL)
        out = child.stdout.read()  # read(), not communicate(): it keeps what readline buffered
        err = child.stderr.read()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL, err.decode(errors="replace")[-2000:]
    acked_id = acked_mem = 0
    for line in [*seen, *out.splitlines()]:
        word, _, value = line.strip().partition(b" ")
        if word == b"ack":
            acked_id = max(acked_id, int(value))
        elif word == b"mem":
            acked_mem = max(acked_mem, int(value))
    return acked_id, acked_mem, bool(seen)


@pytest.mark.crash
def test_kill9_loop_keeps_every_acknowledged_record(tmp_path: Path) -> None:
    rng = random.Random(2026)
    acked_id = acked_mem = 0
    for run in range(KILLS):
        new_id, new_mem, _ = run_child(tmp_path, run, rng)
        acked_id = max(acked_id, new_id)
        acked_mem = max(acked_mem, new_mem)
        last_id, memory_cursor, holes = asyncio.run(reopen(tmp_path))
        lines = durable_lines(tmp_path)
        ids = [int(str(line["context_id"])) for line in lines]
        if ids:
            assert ids == sorted(set(ids)), "context ids do not increase"
            assert last_id >= ids[-1]
            # An id the log lacks was cut or never written: a gap names it, and it is
            # never given to a later record.
            missing = set(range(ids[0], last_id + 1)) - set(ids)
            assert missing <= holes, f"ids {sorted(missing - holes)[:5]} vanished unreported"
        for line in lines:
            # key == context id: nothing duplicated, nothing re-numbered.
            assert line["key"] == f"k{line['context_id']}"
        assert last_id >= acked_id, "an acknowledged record is gone"
        assert acked_mem <= memory_cursor <= last_id
        present = set(ids)
        # Every acknowledged unprocessed id is in the log, except ids an earlier kill
        # left unwritten (reported holes, which no record was ever given).
        assert all(cid in present or cid in holes
                   for cid in range(memory_cursor + 1, acked_id + 1))
        assert acked_id <= memory_cursor or acked_id in present
        if lines:
            asyncio.run(refeed_stores_nothing(tmp_path, [str(ln["key"]) for ln in lines]))
        before = snapshot(tmp_path)
        asyncio.run(reopen(tmp_path))
        assert snapshot(tmp_path) == before, "recovery is not idempotent"
    # every run acknowledged at least one consume of at least one new record
    assert acked_id >= KILLS
