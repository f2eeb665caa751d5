"""kill -9 at arbitrary points of processing: no duplicate memory, no lost notification."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion_memory.agent.notifications.processor import derive_memory_id
from tests.notifications.crash_child import COUNT, SECRET_EVERY

ROOT = Path(__file__).resolve().parents[2]


def run_child(root: Path, mode: str, kill: tuple[int, float] | None = None) -> bool:
    """Run the child; True if it finished.

    With `kill = (batches, after)` the child may start `batches` batches, and is killed
    with SIGKILL `after` seconds once it is ready: the kill lands inside one of those
    batches or while the child waits for the next go-ahead, never after the backlog is
    drained, whatever the speed of the machine (unless fewer batches are left)."""
    with subprocess.Popen(
        [sys.executable, "-m", "tests.notifications.crash_child", str(root), mode],
        cwd=ROOT, stdin=subprocess.DEVNULL if kill is None else subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as proc:
        if kill is None:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err[-2000:]
            return True
        batches, after = kill
        assert proc.stdin is not None and proc.stdout is not None
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.communicate(timeout=30)[1][-2000:]
        proc.stdin.write("go\n" * batches)
        proc.stdin.flush()
        time.sleep(after)  # where inside the allowed batches the kill lands; not a wait
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        return proc.returncode == 0


@pytest.mark.crash
def test_kill_9_during_processing_never_duplicates_or_loses(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("CRASH_SEED", "4")))
    run_child(tmp_path, "feed")
    killed = 0
    for _ in range(6):
        killed += not run_child(tmp_path, "process",
                                kill=(rng.randrange(1, 6), rng.uniform(0.0, 0.15)))
    # 120 notifications in batches of 4: the first runs are stopped before the end
    assert killed >= 1
    run_child(tmp_path, "process")

    with sqlite3.connect(tmp_path / "memory.sqlite3") as conn:
        rows = conn.execute("SELECT memory_id, sources FROM memories").fetchall()
        cursor = conn.execute(
            "SELECT * FROM memory_cursors"
        ).fetchall()
    meaningful = [i + 1 for i in range(COUNT) if i % SECRET_EVERY != 0]
    assert sorted(r[0] for r in rows) == sorted(derive_memory_id([cid]) for cid in meaningful)
    cited = [s for _, sources in rows for s in json.loads(sources)]
    assert sorted(cited) == sorted(f"context:{cid}" for cid in meaningful)
    assert any(COUNT in row for row in cursor)
