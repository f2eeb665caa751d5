"""The daemon through the real console script: lock, status while running, stop,
SIGINT/SIGTERM graceful exit, SIGKILL mid-round recovered on the next start."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from companion_memory.ble.events import NotificationEvent
from companion_memory.core.clock import FakeClock
from companion_memory.device import Runtime, parse_config
from companion_memory.storage.fs import RealFileSystem, StorageIOError
from companion_memory.storage.monitor import FakeDiskProbe
from tests.device.helpers import as_json, cli, event, start, wait_exit


def test_daemon_lock_status_stop_and_sigint(tmp_path: Path) -> None:
    root = tmp_path / "root"
    config = tmp_path / "c.toml"
    config.write_text("[worker]\nidle_delay_s = 0.3\n[storage]\ncheck_interval_s = 1.0\n")
    feed = tmp_path / "f.jsonl"
    feed.write_bytes(b"\n".join(event(f"k{i}", f"Dentist appointment number {i} on Friday")
                                for i in range(30)))
    assert cli("feed", str(feed), root=root).returncode == 0
    proc = start(root, config)
    try:
        second = cli("--config", str(config), "run", root=root)
        assert second.returncode == 2
        assert f"in use by the daemon (pid {proc.pid})" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
        busy = cli("feed", str(feed), root=root)
        assert busy.returncode == 2 and "stop it with `companion-memory stop`" in busy.stderr
        # The idle window runs on its own; status shows it while the daemon runs.
        deadline = time.monotonic() + 60
        status = as_json(cli("status", "--json", root=root))
        while status.get("last_round") is None and time.monotonic() < deadline:
            time.sleep(0.2)
            status = as_json(cli("status", "--json", root=root))
        assert status.get("last_round") is not None, "the daemon ran no round within 60 s"
        assert status["running"] is True and status["pid"] == proc.pid
        assert status["state"] == "running" and status["pending"] == 0
        assert status["storage"]["level"] in ("normal", "warning", "critical", "emergency")
        assert status["notifications"]["memory_cursor"] == 30
        # what is durable and what still waits in the ring (the daemon's ring writer)
        assert status["intake"]["in_ring"] == 0 and status["intake"]["loss_window_s"] == 1.0
        assert status["intake"]["state"] == "running"
        assert status["last_round"]["processors"]
        assert "provider" in status and "gaps" in status
        text = cli("status", root=root)
        assert text.returncode == 0 and f"running (pid {proc.pid})" in text.stdout
        assert "0 in the ring (not yet durable)" in text.stdout
        assert cli("recall", "dentist", "--json", root=root).returncode == 0  # beside it
        assert as_json(cli("gaps", "--json", root=root)) == []
        stopped = cli("stop", root=root)
        assert stopped.returncode == 0 and f"pid {proc.pid}" in stopped.stdout
        code, err = wait_exit(proc)
        assert code == 0, err
        assert '"daemon stopped"' in err
        for line in err.splitlines():  # the log is JSON Lines and content-free
            assert "Dentist" not in orjson.loads(line).get("event", "")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    after = as_json(cli("status", "--json", root=root))
    assert after["running"] is False and after["state"] == "stopped"
    assert cli("stop", root=root).returncode == 0  # nothing to stop is fine
    reports = list((root / "reports").glob("*.jsonl"))
    assert reports and all(orjson.loads(x) for r in reports for x in r.read_bytes().splitlines())

    # SIGINT (Ctrl-C in a terminal) is graceful too, and the lock is free again.
    proc = start(root, config)
    proc.send_signal(signal.SIGINT)
    code, err = wait_exit(proc)
    assert code == 0, err
    assert as_json(cli("status", "--json", root=root))["running"] is False


def _memory_cursor(root: Path) -> int:
    """How far the daemon has processed, read from its database (read-only)."""
    db = root / "memory.sqlite3"
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        row = conn.execute(
            "SELECT value FROM memory_cursors WHERE name = 'notifications'").fetchone()
    except sqlite3.OperationalError:  # tables not created yet
        return 0
    finally:
        conn.close()
    return int(row[0]) if row else 0


@pytest.mark.crash
def test_sigkill_mid_round_recovers_on_next_start(tmp_path: Path) -> None:
    root = tmp_path / "root"
    config = tmp_path / "c.toml"
    # keyword recall only: what is pinned is recovery after a kill, and embedding 2,000
    # memories would take the next start a minute of CPU on a loaded machine
    config.write_text('[worker]\nidle_delay_s = 0.05\n[memory]\nembedder = "none"\n')
    feed = tmp_path / "f.jsonl"
    total = 2000
    feed.write_bytes(b"\n".join(
        event(f"k{i}", f"Meeting {i} with the team about release {i % 7} in room {i % 5}",
              at=f"2026-03-{12 + i // 1440:02d}T{i // 60 % 24:02d}:{i % 60:02d}:00Z")
        for i in range(total)))
    assert cli("feed", str(feed), root=root).returncode == 0
    proc = start(root, config)
    deadline = time.monotonic() + 60
    while _memory_cursor(root) == 0 and time.monotonic() < deadline:
        time.sleep(0.005)  # polling another process's progress, not waiting on a guess
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    at_kill = _memory_cursor(root)
    assert 0 < at_kill < total, f"the kill did not land mid-round (cursor {at_kill})"
    killed = as_json(cli("status", "--json", root=root))
    # The lock died with the process, but its status file still says "running".
    assert killed["running"] is False and killed["state"] == "killed"
    # The next start recovers from disk: everything processed once, nothing duplicated.
    report = as_json(cli("--config", str(config), "once", "--json", root=root))
    notes = next(p for p in report["processors"] if p["processor"] == "notifications")
    assert notes["pending"] == 0 and notes["gaps"] == 0
    exported = [orjson.loads(x) for x in cli("export", root=root).stdout.splitlines()]
    ids = [row["memory_id"] for row in exported if "memory_id" in row]
    assert len(ids) == len(set(ids))
    state = as_json(cli("status", "--json", root=root))
    assert state["running"] is False
    proc = start(root, config)
    os.kill(proc.pid, signal.SIGTERM)
    code, err = wait_exit(proc)
    assert code == 0, err
    final = as_json(cli("status", "--json", root=root))
    assert final["pending"] == 0
    assert final["notifications"]["memory_cursor"] == final["notifications"]["last_context_id"]


_QUICK = parse_config({"worker": {"idle_delay_s": 60}})  # at import: reads tz files


class _StatusDiskFull(RealFileSystem):
    """Real files, except that the daemon's status and report files hit a full disk."""

    def __init__(self) -> None:
        self.full = True
        self.refused = 0
        self.was_refused = threading.Event()
        self.status_written = threading.Event()

    def _check(self, op: str, path: str) -> None:
        parts = Path(path).parts
        if self.full and ("daemon" in parts or "reports" in parts):
            self.refused += 1
            self.was_refused.set()
            raise StorageIOError(op, path, OSError(errno.ENOSPC, "No space left on device"))

    def append(self, path: str, data: bytes) -> None:
        self._check("append", path)
        super().append(path, data)

    def write_file(self, path: str, data: bytes) -> None:
        self._check("write", path)
        super().write_file(path, data)

    def replace(self, src: str, dst: str) -> None:
        super().replace(src, dst)
        if Path(dst).name == "status.json":
            self.status_written.set()


async def test_round_watcher_survives_a_status_write_failure(tmp_path: Path) -> None:
    """A full disk while writing status.json / reports must not stop the runtime (the
    daemon's or an embedded one): the failure is kept by code, and the next round after
    space came back writes both again."""
    clock = FakeClock(datetime(2026, 3, 12, 9, 0, tzinfo=UTC))
    fs = _StatusDiskFull()
    async with Runtime(_QUICK, root=tmp_path / "root", clock=clock, fs=fs,
                       probe=FakeDiskProbe(free_bytes=4 << 30)) as runtime:
        assert fs.was_refused.is_set()  # the opening status could not be written
        assert runtime.status_file_error == "disk_full"
        await runtime.feed([NotificationEvent.create(
            kind="added", key="k1", app_id="net.whatsapp.WhatsApp", title="Anna",
            body="Dinner on Saturday at 7?", posted_at=clock.now())])
        rounds = runtime.rounds
        refused = fs.refused
        await clock.advance(61)
        await asyncio.wait_for(runtime.wait_round(after=rounds), 30)
        await _until(lambda: fs.refused > refused)  # that round's report: refused too
        fs.full = False  # space is back: the watcher, still running, publishes the next round
        await clock.advance(61)
        await asyncio.wait_for(runtime.wait_round(after=rounds + 1), 30)
        assert await asyncio.to_thread(fs.status_written.wait, 30)
        await _until(lambda: runtime.status_file_error is None)


async def _until(condition: Callable[[], bool]) -> None:
    """Poll `condition` (the writes happen on worker threads); fail after 30 s."""
    deadline = time.monotonic() + 30
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached within 30 s")
        await asyncio.sleep(0.01)

