"""`MemoryWorker`: one owned asyncio task that runs processors in idle windows.

The worker knows no scenario. It keeps an idle countdown of the agent's idleness:
a window opens once `idle_delay` seconds have passed since the later of the last
foreground activity (`foreground_ended()`, or the worker's start) and the end of
the previous window. New work (a ring publish, a recorded episode) does not move
the countdown: persisting notifications is the `RingWriter`'s job and happens on
arrival, so a busy day of notifications must not postpone memory work forever.
Inside a window it calls `run_batch()` on every registered processor, serially
and in registration order, repeating a processor while it reports a
backlog. While idle with nothing to do it sleeps on the injected clock: one
wake-up per idle delay at most, never a busy loop.

Cancellation: `foreground_started()` cancels the in-flight batch task at once
(the processor's await on the model call raises `CancelledError`; processors keep
their durable state consistent at every await, so nothing is committed for that
batch) and the worker waits for the foreground to end and a new idle delay to
pass. A processor that raises, or returns a report with `error`, is backed off
by the idle delay; the others still run. `stop()` cancels the in-flight batch
the same way, ends the task, and is safe to call twice or during `start()`.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion_memory.agent.processor import BatchOutcome, Processor, ProcessorReport
from companion_memory.agent.report import RoundReport
from companion_memory.core.clock import Clock
from companion_memory.core.errors import CompanionMemoryError, StateError
from companion_memory.core.settings import setting, validate_settings

DEFAULT_IDLE_DELAY_S = 300.0
"""Five minutes without foreground activity before memory work runs (docs/configuration.md)."""

MAX_RETRY_BUDGET = 100
"""Most attempts a processor makes at one batch before recording it as a gap."""


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """The worker's idle delay and the per-batch limits every processor shares (`[worker]`).

    `retry_budget` and `related_limit` are checked here once and handed to the
    processors; each processor checks a loose value against these same fields."""

    idle_delay_s: float = setting(DEFAULT_IDLE_DELAY_S, above=0.0, high=86_400.0,
                                  doc="idle window delay")
    retry_budget: int = setting(3, low=1, high=MAX_RETRY_BUDGET,
                                doc="attempts before a batch is a gap")
    related_limit: int = setting(3, low=0, high=20, doc="related memories per notification")

    def __post_init__(self) -> None:
        validate_settings(self)

DEFAULT_MAX_BATCHES = 10_000
"""Upper bound of batches in one window, so a window always ends."""
RECENT_REPORTS = 64
"""How many of the latest round reports the worker keeps for `reports_since`."""


class WorkerError(StateError):
    """The worker was used out of order (register after start, bad processor)."""

    code = "worker_error"


class WorkerState(StrEnum):
    NEW = "new"
    STARTING = "starting"
    RUNNING = "running"
    STOPPING = "stopping"
    STOPPED = "stopped"


def error_code(exc: BaseException) -> str:
    """A bounded, content-free code for a failure of background work (a processor, the
    ring writer)."""
    if isinstance(exc, CompanionMemoryError):
        return exc.code
    return f"unexpected_{type(exc).__name__}"[:64]


class MemoryWorker:
    """Runs registered processors serially in idle windows; see the module docstring."""

    def __init__(
        self,
        *,
        clock: Clock,
        idle_delay: float = DEFAULT_IDLE_DELAY_S,
        logger: logging.Logger | None = None,
        max_batches_per_window: int = DEFAULT_MAX_BATCHES,
        settings: WorkerSettings | None = None,
    ) -> None:
        if settings is not None:
            idle_delay = settings.idle_delay_s
        if (not isinstance(idle_delay, int | float) or isinstance(idle_delay, bool)
                or not math.isfinite(idle_delay) or idle_delay <= 0):
            # NaN compares false with everything: a NaN delay would make every window due
            # at once and the loop would never wait.
            raise WorkerError(
                "idle_delay must be a finite, positive number of seconds (default 300)"
            )
        if max_batches_per_window < 1:
            raise WorkerError("max_batches_per_window must be at least 1")
        self._clock = clock
        self._idle_delay = float(idle_delay)
        self._log = logger or logging.getLogger("companion_memory.worker")
        self._max_batches = max_batches_per_window
        self._processors: list[Processor] = []
        self._state = WorkerState.NEW
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._ready: asyncio.Event = asyncio.Event()
        self._signal: asyncio.Event = asyncio.Event()
        self._window_lock = asyncio.Lock()
        self._batch_task: asyncio.Task[BatchOutcome] | None = None
        self._stopping = False
        self._foreground_depth = 0
        self._foreground_epoch = 0
        self._last_activity = clock.monotonic()
        self._last_window_end = float("-inf")
        self._backoff_until: dict[str, float] = {}
        self._rounds = 0
        self._round_event = asyncio.Event()
        self._cancellations = 0
        self._work_notices = 0
        self.last_report: RoundReport | None = None
        # (round number, report) of the latest windows, so an observer that was busy
        # while two rounds ended still reads both (`reports_since`)
        self._recent: deque[tuple[int, RoundReport]] = deque(maxlen=RECENT_REPORTS)

    # -- registration and lifecycle -------------------------------------------------

    def register(self, processor: Processor) -> None:
        """Add a processor; windows run processors in registration order. Before start only."""
        if self._state is not WorkerState.NEW:
            raise WorkerError("register processors before start(); the order is fixed once running")
        if not isinstance(processor, Processor):
            raise WorkerError("a processor needs a `name` and an async `run_batch()`")
        name = getattr(processor, "name", None)
        if not isinstance(name, str) or not name:
            raise WorkerError("a processor's name must be a non-empty string")
        if any(p.name == name for p in self._processors):
            raise WorkerError(f"a processor named {name!r} is already registered")
        self._processors.append(processor)

    @property
    def processors(self) -> tuple[str, ...]:
        return tuple(p.name for p in self._processors)

    @property
    def state(self) -> WorkerState:
        return self._state

    @property
    def rounds(self) -> int:
        """How many windows have completed (or been cut short) so far."""
        return self._rounds

    async def start(self) -> None:
        """Start the owned task and return once it runs. A no-op when already started."""
        if self._state is not WorkerState.NEW:
            if self._state in (WorkerState.STOPPING, WorkerState.STOPPED):
                raise WorkerError("a stopped worker cannot be started again; create a new one")
            return
        self._bind_loop()
        self._state = WorkerState.STARTING
        self._last_activity = self._clock.monotonic()
        self._task = asyncio.create_task(self._run(), name="memory-worker")
        await self._ready.wait()
        self._log.info("worker started processors=%s idle_delay_s=%s",
                       ",".join(self.processors), self._idle_delay)

    async def stop(self) -> None:
        """Cancel the in-flight batch (nothing of it is committed) and end the task.

        Idempotent; safe during a pending `start()` (which then returns stopped).
        """
        if self._state is WorkerState.NEW:
            self._state = WorkerState.STOPPED
            return
        if self._state is WorkerState.STOPPED:
            return
        self._state = WorkerState.STOPPING
        self._stopping = True
        self._signal.set()
        self._cancel_batch()
        task = self._task
        if task is not None and task is not asyncio.current_task():
            await asyncio.wait({task})
            if not task.cancelled() and task.exception() is not None:
                self._log.error("worker task ended with %s", error_code(task.exception()))  # type: ignore[arg-type]
        self._state = WorkerState.STOPPED
        self._log.info("worker stopped rounds=%d", self._rounds)

    # -- host hooks (synchronous, safe from callbacks and other threads) ------------

    def wake(self) -> None:
        """New work arrived (a publish, an episode). Cheap; never wakes the task and
        never moves the countdown: the next window still opens `idle_delay` after the
        agent's last foreground activity, and finds the work then."""
        self._work_notices += 1

    def foreground_started(self) -> None:
        """The agent is busy: cancel the in-flight batch now; no window opens until it ends."""
        self._call_on_loop(self._on_foreground_started)

    def foreground_ended(self) -> None:
        """The agent is idle again: restart the idle countdown."""
        self._call_on_loop(self._on_foreground_ended)

    def _call_on_loop(self, fn: Callable[[], None]) -> None:
        loop = self._loop
        if loop is None or loop.is_closed() or threading.get_ident() == self._loop_thread:
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    def _on_foreground_started(self) -> None:
        self._foreground_depth += 1
        self._foreground_epoch += 1
        if self._cancel_batch():
            self._cancellations += 1
            self._log.info("foreground started: in-flight batch cancelled")
        self._signal.set()

    def _on_foreground_ended(self) -> None:
        self._foreground_depth = max(0, self._foreground_depth - 1)
        self._last_activity = max(self._last_activity, self._clock.monotonic())
        self._signal.set()

    def _cancel_batch(self) -> bool:
        task = self._batch_task
        if task is not None and not task.done():
            task.cancel()
            return True
        return False

    def _bind_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    @property
    def in_foreground(self) -> bool:
        return self._foreground_depth > 0

    # -- windows ----------------------------------------------------------------------

    async def run_once(self, *, max_batches: int = DEFAULT_MAX_BATCHES) -> RoundReport:
        """Run one idle window now: every processor until it has no backlog (or fails).

        Ignores back-offs and the idle countdown (used by `companion-memory once`).
        """
        if max_batches < 1:
            raise WorkerError("max_batches must be at least 1")
        if self._loop is None:
            self._bind_loop()
        return await self._window(max_batches=max_batches, honor_backoff=False)

    def reports_since(self, count: int) -> list[tuple[int, RoundReport]]:
        """The (round number, report) of every window after the `count`-th, oldest first;
        only the latest `RECENT_REPORTS` are kept."""
        return [(n, r) for n, r in self._recent if n > count]

    async def wait_rounds(self, count: int) -> RoundReport | None:
        """Wait until at least `count` windows have ended; return the latest report."""
        while self._rounds < count and self._state is not WorkerState.STOPPED:
            event = self._round_event
            waiter = asyncio.ensure_future(event.wait())
            ended = asyncio.ensure_future(self._wait_task_end())
            try:
                await asyncio.wait({waiter, ended}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for fut in (waiter, ended):
                    fut.cancel()
                await asyncio.gather(waiter, ended, return_exceptions=True)
            if self._task is not None and self._task.done():
                break
        return self.last_report

    async def _wait_task_end(self) -> None:
        if self._task is not None:
            await asyncio.wait({self._task})
        else:
            await asyncio.Event().wait()

    def _next_due(self) -> float:
        return max(self._last_activity, self._last_window_end) + self._idle_delay

    async def _run(self) -> None:
        try:
            if not self._stopping:
                self._state = WorkerState.RUNNING
            while not self._stopping:
                self._signal.clear()
                if self.in_foreground:
                    self._ready.set()
                    await self._signal.wait()
                    continue
                remaining = self._next_due() - self._clock.monotonic()
                if remaining > 0:
                    await self._sleep_or_signal(remaining)
                    continue
                await self._window(max_batches=self._max_batches, honor_backoff=True)
        finally:
            self._ready.set()
            self._cancel_batch()

    async def _sleep_or_signal(self, seconds: float) -> None:
        sleeper = asyncio.ensure_future(self._clock.sleep(seconds))
        waiter = asyncio.ensure_future(self._signal.wait())
        try:
            # let the sleeper park on the clock before start() returns (matters for fake clocks)
            await asyncio.sleep(0)
            self._ready.set()
            await asyncio.wait({sleeper, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for fut in (sleeper, waiter):
                fut.cancel()
            await asyncio.gather(sleeper, waiter, return_exceptions=True)

    async def _window(self, *, max_batches: int, honor_backoff: bool) -> RoundReport:
        async with self._window_lock:
            started_mono = self._clock.monotonic()
            report = RoundReport(started_at=self._clock.now())
            epoch = self._foreground_epoch
            batches = 0
            for processor in self._processors:
                if self._interrupted(epoch):
                    report.cancelled = True
                    break
                if honor_backoff and self._backoff_until.get(processor.name, float("-inf")) > \
                        self._clock.monotonic():
                    continue
                merged = ProcessorReport(processor.name)
                report.reports.append(merged)
                while batches < max_batches:
                    outcome = await self._run_batch(processor, merged)
                    batches += 1
                    if outcome is None:
                        if self._interrupted(epoch):
                            report.cancelled = True
                        break
                    merged.merge(outcome.report)
                    if outcome.report.error:
                        self._back_off(processor.name, outcome.report.error)
                        break
                    if self._interrupted(epoch):
                        report.cancelled = True
                        break
                    if not outcome.backlog:
                        break
                if report.cancelled:
                    break
            report.elapsed_s = self._clock.monotonic() - started_mono
            self._last_window_end = self._clock.monotonic()
            self._finish_round(report)
            return report

    def _interrupted(self, epoch: int) -> bool:
        return self._stopping or self.in_foreground or self._foreground_epoch != epoch

    async def _run_batch(
        self, processor: Processor, merged: ProcessorReport
    ) -> BatchOutcome | None:
        """Run one batch in its own task so a foreground start can cancel just it."""
        task: asyncio.Task[BatchOutcome] = asyncio.create_task(
            processor.run_batch(), name=f"memory-worker:{processor.name}"
        )
        self._batch_task = task
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            task.cancel()
            await asyncio.wait({task})
            raise
        finally:
            self._batch_task = None
        if task.cancelled():
            self._log.info("processor=%s batch cancelled", processor.name)
            return None
        exc = task.exception()
        if exc is not None:
            code = error_code(exc)
            merged.error = code
            merged.batches += 1
            self._back_off(processor.name, code)
            return None
        return task.result()

    def _back_off(self, name: str, code: str) -> None:
        self._backoff_until[name] = self._clock.monotonic() + self._idle_delay
        self._log.warning("processor=%s failed code=%s backoff_s=%s", name, code, self._idle_delay)

    def _finish_round(self, report: RoundReport) -> None:
        self.last_report = report
        self._rounds += 1
        self._recent.append((self._rounds, report))
        event, self._round_event = self._round_event, asyncio.Event()
        event.set()
        self._log.info(
            "round=%d cancelled=%s model_calls=%d processors=%s elapsed_s=%.3f",
            self._rounds, report.cancelled, report.model_calls,
            ",".join(f"{r.processor}:{r.batches}" for r in report.reports), report.elapsed_s,
        )

    def status(self) -> dict[str, Any]:
        """State, counters and timers; no content."""
        now = self._clock.monotonic()
        return {
            "state": self._state.value,
            "processors": list(self.processors),
            "idle_delay_s": self._idle_delay,
            "foreground": self.in_foreground,
            "busy": self._batch_task is not None,
            "next_window_in_s": None if self.in_foreground else max(0.0, self._next_due() - now),
            "rounds": self._rounds,
            "cancellations": self._cancellations,
            "work_notices": self._work_notices,
            "backoff_s": {
                name: round(until - now, 3)
                for name, until in self._backoff_until.items()
                if until > now
            },
            "last_report": self.last_report.to_dict() if self.last_report else None,
        }
