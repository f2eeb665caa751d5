"""MemoryWorker: idle windows on a fake clock, serial order, cancellation, back-off, stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import pytest

from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.agent.worker import MemoryWorker, WorkerError, WorkerState
from companion_memory.core.clock import FakeClock
from companion_memory.core.errors import CompanionMemoryError


class Recorder:
    """A processor that logs its calls into a shared list and has `backlog` batches queued."""

    def __init__(self, name: str, log: list[str], *, backlog: int = 0) -> None:
        self.name = name
        self.log = log
        self.backlog = backlog
        self.calls = 0
        self.fail_with: BaseException | None = None
        self.gate: asyncio.Event | None = None
        self.cancelled = 0
        self.committed = 0

    async def run_batch(self) -> BatchOutcome:
        self.calls += 1
        self.log.append(self.name)
        if self.fail_with is not None:
            raise self.fail_with
        if self.gate is not None:
            try:
                await self.gate.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
        self.committed += 1
        report = ProcessorReport(self.name, batches=1, applied=1 if self.backlog else 0)
        if self.backlog:
            self.backlog -= 1
        return BatchOutcome(report, backlog=self.backlog > 0)


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def tick(clock: FakeClock, seconds: float) -> None:
    """Let the worker park on the clock, then move time."""
    await settle()
    await clock.advance(seconds)
    await settle()


def make(clock: FakeClock, *procs: Recorder, idle: float = 300.0) -> MemoryWorker:
    worker = MemoryWorker(clock=clock, idle_delay=idle)
    for p in procs:
        worker.register(p)
    return worker


async def test_serial_registration_order_across_rounds_and_backlog_drains() -> None:
    clock = FakeClock()
    log: list[str] = []
    episodes = Recorder("episodes", log)
    notes = Recorder("notifications", log, backlog=3)
    worker = make(clock, episodes, notes)
    await worker.start()
    await tick(clock, 299)
    assert log == []
    await tick(clock, 1)
    await worker.wait_rounds(1)
    assert log == ["episodes", "notifications", "notifications", "notifications"]
    notes.backlog = 1
    await tick(clock, 300)
    await worker.wait_rounds(2)
    assert log[4:] == ["episodes", "notifications"]
    assert worker.last_report is not None
    assert [r.processor for r in worker.last_report.reports] == ["episodes", "notifications"]
    await worker.stop()


async def test_a_publish_does_not_postpone_the_window_nor_wake_the_task() -> None:
    """The countdown is the agent's idleness: new work (a publish, an episode) is found
    by the next window, which still opens `idle_delay` after the last foreground."""
    clock = FakeClock()
    log: list[str] = []
    worker = make(clock, Recorder("notifications", log))
    await worker.start()
    await tick(clock, 200)
    worker.wake()  # a publish at t=200: the window stays at t=300
    await tick(clock, 99)
    assert log == []
    await tick(clock, 1)
    await worker.wait_rounds(1)
    assert log == ["notifications"]
    assert worker.status()["work_notices"] == 1
    await worker.stop()


async def test_only_foreground_activity_restarts_the_countdown() -> None:
    clock = FakeClock()
    log: list[str] = []
    worker = make(clock, Recorder("notifications", log))
    await worker.start()
    await tick(clock, 200)
    worker.foreground_started()
    worker.foreground_ended()  # the agent was busy at t=200: the window moves to t=500
    await tick(clock, 299)
    assert log == []
    await tick(clock, 1)
    await worker.wait_rounds(1)
    assert log == ["notifications"]
    await worker.stop()


async def test_foreground_cancels_in_flight_batch_then_waits_for_next_idle_window() -> None:
    clock = FakeClock()
    log: list[str] = []
    slow = Recorder("notifications", log)
    slow.gate = asyncio.Event()
    worker = make(clock, Recorder("episodes", log), slow)
    await worker.start()
    await tick(clock, 300)
    await settle()
    assert log == ["episodes", "notifications"] and worker.status()["busy"]
    worker.foreground_started()
    report = await worker.wait_rounds(1)
    assert report is not None and report.cancelled
    assert slow.cancelled == 1 and slow.committed == 0
    # no window while the foreground runs, however long
    await tick(clock, 3600)
    assert worker.rounds == 1
    worker.foreground_ended()
    slow.gate.set()
    await tick(clock, 299)
    assert worker.rounds == 1
    await tick(clock, 1)
    report = await worker.wait_rounds(2)
    assert report is not None and not report.cancelled
    assert log[2:] == ["episodes", "notifications"] and slow.committed == 1
    assert worker.status()["cancellations"] == 1
    await worker.stop()


async def test_failing_processor_backs_off_while_others_still_run() -> None:
    clock = FakeClock()
    log: list[str] = []
    bad = Recorder("episodes", log)
    bad.fail_with = CompanionMemoryError("disk is full", code="storage_full")
    good = Recorder("notifications", log)
    worker = make(clock, bad, good, idle=100)
    await worker.start()
    await tick(clock, 100)
    report = await worker.wait_rounds(1)
    assert report is not None and report.errors == {"episodes": "storage_full"}
    assert log == ["episodes", "notifications"]
    assert worker.status()["backoff_s"] == {"episodes": 100.0}
    bad.fail_with = ValueError("boom with content")
    await tick(clock, 100)
    report = await worker.wait_rounds(2)
    assert report is not None and report.errors == {"episodes": "unexpected_ValueError"}
    # one call per window for the failing processor: no hot loop
    assert log.count("episodes") == 2 and log.count("notifications") == 2
    await worker.stop()


async def test_a_busy_hour_of_publishes_still_reaches_windows_without_a_busy_loop() -> None:
    clock = FakeClock()
    sleeps: list[float] = []
    real_sleep: Callable[[float], object] = clock.sleep

    async def counting_sleep(seconds: float) -> None:
        sleeps.append(seconds)
        await real_sleep(seconds)  # type: ignore[misc]

    clock.sleep = counting_sleep  # type: ignore[method-assign]
    log: list[str] = []
    worker = make(clock, Recorder("notifications", log))
    await worker.start()
    for _ in range(60):
        for _ in range(10):
            worker.wake()  # ten publishes a minute: they do not wake the task
        await tick(clock, 60)
    await worker.stop()
    # publishes do not postpone memory work: a window every idle delay (300 s) of the
    # hour, and the task sleeps once per window, never in a loop
    assert log == ["notifications"] * 12
    assert len(sleeps) <= 13


async def test_register_rules_and_stop_is_idempotent() -> None:
    clock = FakeClock()
    worker = make(clock, Recorder("a", []))
    with pytest.raises(WorkerError, match="already registered"):
        worker.register(Recorder("a", []))
    with pytest.raises(WorkerError, match="name"):
        worker.register(object())  # type: ignore[arg-type]
    for bad in (0, -1.0, float("nan"), float("inf"), True):
        with pytest.raises(WorkerError, match="finite, positive"):
            MemoryWorker(clock=clock, idle_delay=bad)
    await worker.start()
    with pytest.raises(WorkerError, match="before start"):
        worker.register(Recorder("b", []))
    await worker.stop()
    await worker.stop()
    assert worker.state is WorkerState.STOPPED
    with pytest.raises(WorkerError, match="cannot be started again"):
        await worker.start()


async def test_stop_during_start_and_stop_cancels_in_flight_batch() -> None:
    clock = FakeClock()
    log: list[str] = []
    slow = Recorder("n", log)
    slow.gate = asyncio.Event()
    worker = make(clock, slow)
    starting = asyncio.create_task(worker.start())
    await asyncio.sleep(0)  # start() is now pending on the task's readiness
    assert worker.status()["state"] == "starting"
    await worker.stop()
    await starting
    assert worker.state is WorkerState.STOPPED

    worker2 = make(clock, slow)
    await worker2.start()
    await tick(clock, 300)
    await settle()
    assert worker2.status()["busy"]
    await worker2.stop()
    assert slow.cancelled == 1 and slow.committed == 0


async def test_run_once_drains_every_processor_and_honours_max_batches() -> None:
    clock = FakeClock()
    log: list[str] = []
    worker = make(clock, Recorder("e", log, backlog=2), Recorder("n", log, backlog=5))
    report = await worker.run_once(max_batches=4)
    assert log == ["e", "e", "n", "n"]
    assert [r.batches for r in report.reports] == [2, 2]
    report = await worker.run_once()
    assert log[4:] == ["e", "n", "n", "n"]
    assert report.to_dict()["processors"][1]["applied"] == 3


async def test_foreground_hooks_work_from_another_thread() -> None:
    clock = FakeClock()
    log: list[str] = []
    slow = Recorder("n", log)
    slow.gate = asyncio.Event()
    worker = make(clock, slow)
    await worker.start()
    await tick(clock, 300)
    await settle()
    await asyncio.to_thread(worker.foreground_started)
    report = await worker.wait_rounds(1)
    assert report is not None and report.cancelled and slow.cancelled == 1
    assert worker.status()["foreground"] is True
    await asyncio.to_thread(worker.foreground_ended)
    await settle()
    assert worker.status()["foreground"] is False
    await worker.stop()


async def test_logs_are_codes_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    clock = FakeClock()
    bad = Recorder("n", [])
    bad.fail_with = RuntimeError("SENTINEL-secret-body")
    worker = make(clock, bad)
    await worker.run_once()
    assert caplog.records
    assert all("SENTINEL" not in r.getMessage() for r in caplog.records)
