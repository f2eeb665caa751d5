"""A host's own `Runtime` keeps the root's operator files as the daemon does (round
reports, `daemon/status.json`), and `wait_idle()` returns exactly when memory work has
caught up."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest

from companion_memory import NotificationEvent, Runtime, RuntimeStateError, parse_config
from companion_memory.core.clock import FakeClock
from companion_memory.storage.fs import RealFileSystem
from companion_memory.storage.monitor import FakeDiskProbe
from companion_memory.testing import event_ring, runtime_clock
from tests.device.helpers import cli

START = datetime(2026, 3, 12, 9, 0, tzinfo=UTC)
QUICK = parse_config({"worker": {"idle_delay_s": 60}})
BROKEN_MODEL = parse_config({"worker": {"idle_delay_s": 60},
                             "provider": {"kind": "llama",
                                          "llama": {"model_path": "/nonexistent/none.gguf"}}})
PROBE = FakeDiskProbe(free_bytes=4 << 30)


def ev(key: str, body: str) -> NotificationEvent:
    return NotificationEvent.create(kind="added", key=key, app_id="net.whatsapp.WhatsApp",
                                    title="Anna", body=body, posted_at=START)


def read_json(path: Path) -> Any:
    return orjson.loads(path.read_bytes())


async def until(condition: Callable[[], bool]) -> None:
    """Poll `condition` in a thread (it reads files); fail after 30 s."""
    deadline = time.monotonic() + 30
    while not await asyncio.to_thread(condition):
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached within 30 s")
        await asyncio.sleep(0.01)


def report_lines(root: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for path in sorted((root / "reports").glob("*.jsonl")):
        lines += [orjson.loads(line) for line in path.read_bytes().splitlines() if line]
    return lines


async def test_an_embedded_runtime_writes_reports_and_status(tmp_path: Path) -> None:
    root = tmp_path / "root"
    clock = FakeClock(START)
    status_file = root / "daemon" / "status.json"
    async with Runtime(QUICK, root=root, clock=clock, probe=PROBE) as runtime:
        opened = await asyncio.to_thread(read_json, status_file)
        assert (opened["state"], opened["owner"], opened["pid"]) == ("running", "runtime",
                                                                      os.getpid())
        await runtime.feed([ev("k1", "Dinner on Saturday at 7?"),
                            ev("k2", "The parcel comes on Monday")])
        # a worker round of its own: its report and a fresh status follow it
        rounds = runtime.rounds
        await clock.advance(61)
        report = await asyncio.wait_for(runtime.wait_round(after=rounds), 30)
        assert report is not None
        await until(lambda: bool(report_lines(root)))
        (line,) = await asyncio.to_thread(report_lines, root)
        assert line["started_at"] == report.started_at.isoformat()
        assert line["processors"][2]["consumed"] + line["processors"][2]["analyzed"] > 0
        await until(lambda: read_json(status_file)["last_round"] is not None)
        # `status` from another process reads it while the runtime holds the root
        shown = orjson.loads((await asyncio.to_thread(cli, "status", "--json",
                                                      root=root)).stdout)
        assert shown["busy_with"] == "runtime" and shown["state"] == "running"
        assert shown["pending"] == 0 and shown["last_round"]["started_at"] == line["started_at"]
        # an explicit round is always reported, even one that found nothing
        await runtime.run_once()
        assert len(await asyncio.to_thread(report_lines, root)) == 2
    closed = await asyncio.to_thread(read_json, status_file)
    assert closed["state"] == "stopped" and closed["stopped_at"]
    written = await asyncio.to_thread(status_file.read_text)
    assert "Saturday" not in written
    assert "Saturday" not in str(await asyncio.to_thread(report_lines, root))


async def test_wait_idle_returns_once_a_round_leaves_nothing_to_do(tmp_path: Path) -> None:
    clock = FakeClock(START)
    async with Runtime(QUICK, root=tmp_path / "root", clock=clock, probe=PROBE) as runtime:
        runtime.publish(ev("k1", "Dinner on Saturday at 7?"))  # only in the ring so far
        waiter = asyncio.create_task(runtime.wait_idle())
        await asyncio.sleep(0.05)
        assert not waiter.done()  # no round yet: the idle delay has not passed
        assert await runtime.pending_count() == 1  # wait_idle flushed the ring
        with runtime.foreground():  # the agent is busy: no round, still not idle
            await clock.advance(61)
            await asyncio.sleep(0.05)
            assert not waiter.done()
        await clock.advance(61)
        report = await asyncio.wait_for(waiter, 30)
        assert not report.cancelled and not report.errors
        assert {r.processor for r in report.reports} == {"storage", "episodes",
                                                         "notifications", "sweep"}
        assert all(r.pending == 0 for r in report.reports)
        assert await runtime.pending_count() == 0
        assert event_ring(runtime).statistics().published == 1
        assert runtime_clock(runtime) is clock


async def test_wait_idle_waits_while_work_stays_undone(tmp_path: Path) -> None:
    clock = FakeClock(START)
    async with Runtime(BROKEN_MODEL, root=tmp_path / "root", clock=clock,
                       probe=PROBE) as runtime:
        await runtime.feed([ev("k1", "Dinner on Saturday at 7?")])
        waiter = asyncio.create_task(runtime.wait_idle())
        rounds = runtime.rounds
        await clock.advance(61)
        report = await asyncio.wait_for(runtime.wait_round(after=rounds), 30)
        assert report is not None and report.errors == {"notifications": "model_unavailable"}
        await asyncio.sleep(0.05)
        assert not waiter.done()  # a failed round is not idle: the work is still pending
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)


async def test_wait_idle_needs_the_worker(tmp_path: Path) -> None:
    async with Runtime(QUICK, root=tmp_path / "root", start_worker=False,
                       probe=PROBE) as runtime:
        with pytest.raises(RuntimeStateError, match="start_worker=False"):
            await runtime.wait_idle()


class GatedStatusFS(RealFileSystem):
    """The real file system, except that replacing the status file can be held (a slow
    flash write), so a round ends while the status of the one before is being written."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = threading.Event()
        self.held = threading.Event()
        self.release = threading.Event()

    def replace(self, src: str, dst: str) -> None:
        if self.hold.is_set() and dst.endswith("status.json"):
            self.held.set()
            self.release.wait(30)
        super().replace(src, dst)


async def test_a_round_that_ends_while_the_status_is_written_is_still_reported(
        tmp_path: Path) -> None:
    root = tmp_path / "root"
    clock = FakeClock(START)
    fs = GatedStatusFS()
    config = parse_config({"worker": {"idle_delay_s": 60},
                           "storage": {"check_interval_s": 5}})
    async with Runtime(config, root=root, clock=clock, probe=PROBE, fs=fs) as runtime:
        await runtime.feed([ev("k1", "Dinner on Saturday at 7?")])
        fs.hold.set()
        await clock.advance(6)  # the status refresh between rounds begins and is held
        await until(fs.held.is_set)
        rounds = runtime.rounds
        await clock.advance(61)  # meanwhile a round does the work
        report = await asyncio.wait_for(runtime.wait_round(after=rounds), 30)
        assert report is not None and not report.cancelled
        fs.hold.clear()
        fs.release.set()
        await until(lambda: bool(report_lines(root)))
        (line,) = await asyncio.to_thread(report_lines, root)
        assert line["started_at"] == report.started_at.isoformat()
