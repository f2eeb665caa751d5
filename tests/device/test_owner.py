"""One owner per root: a `Runtime` takes the root's lock, so a second `Runtime` (in this
process or another), the daemon and every writing command are refused, naming the
holder, while the readers keep working; the lock goes with `close()` and with the
process."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory import (
    ConflictError,
    NotificationEvent,
    RootBusyError,
    Runtime,
    RuntimeState,
    parse_config,
)
from companion_memory.core.clock import FakeClock
from companion_memory.storage.monitor import FakeDiskProbe
from tests.device.helpers import CLI, EPISODE, REPO, cli, event

START = "2026-03-12T09:00:00Z"
PROBE = FakeDiskProbe(free_bytes=4 << 30)
CONFIG = parse_config({})  # at import: the zone check reads tz files (blocking)


def ev(n: int) -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=f"k{n}", app_id="net.whatsapp.WhatsApp",
                                    title="Anna", body=f"Dentist appointment {n} on Friday",
                                    posted_at=FakeClock().now())


def log_ids(root: Path) -> list[int]:
    """Every record id in the notification log, in file order."""
    ids: list[int] = []
    for shard in sorted((root / "notifications" / "events").glob("*.jsonl")):
        for line in shard.read_bytes().splitlines():
            if line.strip():
                ids.append(orjson.loads(line)["context_id"])
    return ids


async def test_a_second_runtime_in_the_same_process_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    first = Runtime(CONFIG, root=root, start_worker=False, probe=PROBE)
    second = Runtime(CONFIG, root=root, start_worker=False, probe=PROBE)
    async with first:
        await first.feed([ev(1), ev(2)])
        with pytest.raises(RootBusyError) as info:
            await second.open()
        err = info.value
        assert isinstance(err, ConflictError) and err.code == "root_busy"
        assert err.pid == os.getpid() and err.command == "runtime"
        assert "Runtime (this process)" in err.reason and "close that Runtime" in err.reason
        assert second.state is RuntimeState.CLOSED
        # the refused one wrote nothing: the first goes on with its own ids
        await first.feed([ev(3)])
    assert await asyncio.to_thread(log_ids, root) == [1, 2, 3]
    # closed: the root is free again
    async with Runtime(CONFIG, root=root, start_worker=False, probe=PROBE) as third:
        await third.feed([ev(4)])
    assert await asyncio.to_thread(log_ids, root) == [1, 2, 3, 4]


async def test_a_cancelled_open_leaves_the_root_free(tmp_path: Path) -> None:
    root = tmp_path / "root"
    runtime = Runtime(CONFIG, root=root, start_worker=False, probe=PROBE)
    task = asyncio.create_task(runtime.open())
    await asyncio.sleep(0)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await runtime.close()
    async with Runtime(CONFIG, root=root, start_worker=False, probe=PROBE) as again:
        assert again.state is RuntimeState.OPEN


HOLDER = """
import asyncio, sys
from companion_memory import NotificationEvent, Runtime
from companion_memory.core.clock import FakeClock

async def main(root):
    async with Runtime(root=root, start_worker=False) as runtime:
        await runtime.feed([NotificationEvent.create(
            kind="added", key=f"c{n}", app_id="net.whatsapp.WhatsApp", title="Anna",
            body=f"Dinner {n} on Saturday", posted_at=FakeClock().now()) for n in range(5)])
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.read)  # held until the test closes stdin

asyncio.run(main(sys.argv[1]))
"""


def start_holder(root: Path) -> subprocess.Popen[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(root)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO, env=environ)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(proc.communicate()[1])
    return proc


def refused_by(proc: subprocess.CompletedProcess[str], pid: int) -> bool:
    lines = proc.stderr.strip().splitlines()
    return (proc.returncode == 2 and len(lines) == 1
            and f"in use by a companion-memory Runtime (pid {pid})" in lines[0])


def test_another_process_cannot_own_a_root_a_runtime_holds(tmp_path: Path) -> None:
    """A host's Runtime in one process: a Runtime in another process, the daemon and
    every writing command are refused with the holder's pid; the readers answer; the log
    never holds an id twice; the root is free once the holder's process is gone."""
    root = tmp_path / "root"
    holder = start_holder(root)
    try:
        second = subprocess.run(
            [sys.executable, "-c", HOLDER, str(root)], input="", capture_output=True,
            text=True, cwd=REPO, timeout=60, check=False)
        assert second.returncode != 0 and "RootBusyError" in second.stderr
        assert f"Runtime (pid {holder.pid})" in second.stderr
        feed = tmp_path / "f.jsonl"
        feed.write_bytes(event("x1", "Lunch with Tom on Friday"))
        episode = tmp_path / "e.json"
        episode.write_bytes(orjson.dumps(EPISODE))
        for command in (["feed", str(feed)], ["once"], ["forget", "n-1", "--reason", "no"],
                        ["episode", str(episode)], ["run"], ["sweep", "reconcile"]):
            proc = cli(*command, root=root)
            assert refused_by(proc, holder.pid), (command, proc.stderr)
        status = orjson.loads(cli("status", "--json", root=root).stdout)
        assert status["running"] is False and status["busy_with"] == "runtime"
        assert status["busy_pid"] == holder.pid and status["state"] == "running"
        assert status["owner"] == "runtime" and status["pid"] is None  # pid: the daemon's only
        for command in (["gaps"], ["recall", "dinner"], ["export"], ["sweep", "status"],
                        ["doctor"]):
            proc = cli(*command, root=root)
            assert proc.returncode == 0, (command, proc.stderr)
        assert cli("status", root=root).stdout.startswith(
            f"daemon: not running; root owned by a host's Runtime (pid {holder.pid})")
    finally:
        holder.kill()  # SIGKILL: the kernel drops the lock with the process
        holder.communicate()
    assert holder.returncode == -signal.SIGKILL
    proc = cli("feed", str(tmp_path / "f.jsonl"), root=root)
    assert proc.returncode == 0, proc.stderr
    ids = log_ids(root)
    assert ids == sorted(set(ids)) and len(ids) == 6


def test_two_processes_racing_for_one_root_never_duplicate_an_id(tmp_path: Path) -> None:
    """Ten `feed`s started together on one root: every one either persists its events or
    is refused naming a holder; the log holds each id once."""
    root = tmp_path / "root"
    assert cli("once", root=root).returncode == 0
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_MEMORY")}
    feeds = []
    for n in range(10):
        path = tmp_path / f"f{n}.jsonl"
        path.write_bytes(b"\n".join(event(f"p{n}-{i}", f"Message {i} from feed {n}")
                                    for i in range(20)))
        feeds.append(path)
    procs = [subprocess.Popen([*CLI, "--root", str(root), "feed", str(path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=environ) for path in feeds]
    outcomes: list[tuple[int, Any]] = [(p.wait(timeout=120), p.communicate()[1])
                                       for p in procs]
    won = [code for code, _ in outcomes if code == 0]
    assert won
    for code, err in outcomes:
        assert code in (0, 2), err
        if code == 2:
            assert "in use by" in err, err
    ids = log_ids(root)
    assert len(ids) == len(set(ids)) == 20 * len(won)
