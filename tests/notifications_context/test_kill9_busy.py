"""kill -9 loop of a busy agent: nothing published more than the loss window before
the kill is missing from the log.

The child (`busy_killee`) runs the whole runtime with the agent in the foreground and
publishes bursts; its ledger says what it published and when. The parent kills it
with SIGKILL at a random moment and checks, on the durable log, that every event
published earlier than LOSS_WINDOW_S + SCHEDULING_SLACK_S before the kill is there,
exactly once; then reopens the root (recovery) before the next run.
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
from tests.notifications_context.helpers import T0

REPO = Path(__file__).resolve().parents[2]
KILLS = 5
LOSS_WINDOW_S = 0.5
"""The child's `intake.loss_window_s`."""
SCHEDULING_SLACK_S = 1.5
"""What the contract allows beyond the loss window: the writer's commit is a thread
hop, a write and two fsyncs, started by a timer on a loop the busy child also blocks
(its own ledger fsyncs), on a machine other tests share. Three times the window keeps
a loaded CI runner from failing the test, while a writer that waits for an idle
window (the defect) misses everything older, and each run still checks events."""


def log_keys(root: Path) -> list[str]:
    """The keys of every complete, valid record in the log's shards."""
    out: list[str] = []
    for shard in sorted((root / "notifications" / "events").glob("*.jsonl")):
        for raw in shard.read_bytes().split(b"\n")[:-1]:
            line = decode_line(raw)
            if line is not None:
                out.append(str(line["key"]))
    return out


def ledger(path: Path) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    if not path.exists():
        return out
    for raw in path.read_text().splitlines():
        key, _, at = raw.partition(" ")
        out.append((key, float(at)))
    return out


async def recover(root: Path) -> None:
    ctx = await NotificationContext.open(root, EventRing(), clock=FakeClock(T0))
    await ctx.close()


def kill_busy_child(root: Path, book: Path, run: int, rng: random.Random) -> float:
    """Run the child, SIGKILL it after a random while; returns the kill's monotonic time."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.notifications_context.busy_killee", str(root),
         str(book), str(run), str(rng.randrange(1 << 30)), str(LOSS_WINDOW_S)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    ready = child.stdout.readline()
    assert ready.startswith(b"ready"), child.stderr.read() if child.stderr else ready
    time.sleep(rng.uniform(2.5, 4.0))
    killed_at = time.monotonic()
    os.kill(child.pid, signal.SIGKILL)
    _, err = child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL, err.decode(errors="replace")[-2000:]
    return killed_at


@pytest.mark.crash
def test_kill9_of_a_busy_agent_loses_nothing_older_than_the_loss_window(
    tmp_path: Path,
) -> None:
    rng = random.Random(24)
    root = tmp_path / "root"
    checked_total = 0
    for run in range(KILLS):
        book = tmp_path / f"ledger-{run}.txt"
        killed_at = kill_busy_child(root, book, run, rng)
        keys = log_keys(root)
        assert len(keys) == len(set(keys)), "a notification was stored twice"
        present = set(keys)
        published = ledger(book)
        old = [key for key, at in published if at < killed_at - LOSS_WINDOW_S
               - SCHEDULING_SLACK_S]
        missing = [key for key in old if key not in present]
        assert not missing, f"run {run}: {len(missing)} of {len(old)} old notifications lost"
        assert old, f"run {run} published nothing old enough to check"
        checked_total += len(old)
        asyncio.run(recover(root))
    assert checked_total > KILLS
