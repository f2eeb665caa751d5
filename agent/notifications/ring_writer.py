"""`RingWriter`: the owned task that moves the ring into the durable log as events arrive.

Intake persists on arrival, whatever the agent is doing: the writer is not tied to
the worker's idle windows and ignores the foreground (the foreground only holds
memory work: extraction and model calls). A published event waits in the ring at
most `commit_delay` (half the loss window) before the writer group-commits
everything the ring holds in one `NotificationContext.consume` (one append, one
fsync of the shard, one atomic update of the state file; more consumes only when
more than `MAX_COMMIT_ENTRIES` wait). The other half of the loss window is the
time the commit itself may take, so on a power cut what is lost is at most what
arrived in the last `loss_window_s` (plus the scheduling slack of an overloaded
machine). When the ring fills past its high-water mark (half its capacity) the
writer commits at once, so no phone's rate overflows the ring: a burst costs a
commit per half ring, not a fsync per notification.

File I/O and fsync run in the context's worker thread (`consume` hops off the
event loop); the loop only builds the batch. The source cursor advances only
after the batch is durable (the context's contract), and a storage level that
pauses intake (Critical, Emergency, an unreadable disk) makes `consume` persist
nothing: the writer rechecks every loss window, or at once when `poke()` says the
level recovered, and intake resumes from the source cursor. A failed write
(`StorageIOError`: disk full, EIO) moves nothing; the writer retries with a
back-off from the loss window up to `MAX_BACKOFF_S`, events wait in the ring
meanwhile, and what the ring overwrites is recorded as a "ring_overflow" gap by
the next successful commit. Logs carry counts and codes only.

`flush()` persists everything the ring holds now (the runtime's `feed`, a round
run on demand, shutdown). `stop()` ends the task and flushes once more.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from companion_memory.agent.notification_log.log import ContextClosedError, NotificationContext
from companion_memory.agent.notification_log.types import ConsumeResult
from companion_memory.agent.notifications.settings import IntakeSettings
from companion_memory.agent.worker import error_code
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock
from companion_memory.core.errors import CompanionMemoryError, StateError
from companion_memory.core.settings import check_setting

__all__ = ["MAX_BACKOFF_S", "MAX_COMMIT_ENTRIES", "FlushTotals", "RingWriter", "WriterState"]

MAX_COMMIT_ENTRIES = 4096
"""Most ring entries one consume takes (a batch's lines are built in memory: 4096
entries of at most 4 KiB of body is 16 MiB at worst)."""

MAX_BACKOFF_S = 30.0
"""Longest wait between retries after a failed write."""

HIGH_WATER_FRACTION = 0.5
"""The writer commits at once when this share of the ring is waiting."""


class WriterError(StateError):
    """The writer was used out of order (started twice, after stop)."""

    code = "ring_writer_state"


class WriterState(StrEnum):
    NEW = "new"
    RUNNING = "running"
    STOPPED = "stopped"


@dataclass(slots=True)
class FlushTotals:
    """What one `flush()` (or the writer since start) did."""

    persisted: int = 0
    duplicates: int = 0
    lost: int = 0
    commits: int = 0
    paused: bool = False

    def add(self, result: ConsumeResult) -> None:
        self.persisted += result.persisted
        self.duplicates += result.duplicates
        self.lost += result.lost
        if result.persisted or result.lost:
            self.commits += 1
        self.paused = result.paused

    def to_dict(self) -> dict[str, Any]:
        return {"persisted": self.persisted, "duplicates": self.duplicates, "lost": self.lost,
                "commits": self.commits, "paused": self.paused}


class RingWriter:
    """Persists the ring continuously within the loss window; see the module docstring."""

    def __init__(
        self,
        context: NotificationContext,
        ring: EventRing,
        *,
        clock: Clock,
        loss_window_s: float | None = None,
        settings: IntakeSettings | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        if settings is not None:  # checked when it was built
            loss_window_s = settings.loss_window_s
        elif loss_window_s is None:
            loss_window_s = IntakeSettings().loss_window_s
        loss_window_s = check_setting(IntakeSettings, "loss_window_s", loss_window_s)
        self._context = context
        self._ring = ring
        self._clock = clock
        self._loss_window = float(loss_window_s)
        self._delay = self._loss_window / 2
        self._high_water = max(1, math.ceil(ring.capacity * HIGH_WATER_FRACTION))
        self._limit = min(ring.capacity, MAX_COMMIT_ENTRIES)
        self._log = logger or logging.getLogger("companion_memory.notifications.writer")
        self._state = WriterState.NEW
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._signal = asyncio.Event()
        self._stop = asyncio.Event()
        self._flush_lock = asyncio.Lock()
        self._unsubscribe: Callable[[], None] | None = None
        self._first_unwritten_at: float | None = None
        self._retry_at = float("-inf")
        self._backoff = self._loss_window
        self._commit_now = False
        self.totals = FlushTotals()
        """Everything the writer persisted since it was made (every flush together)."""
        self._failures = 0
        self._last_error: str | None = None

    # -- lifecycle --------------------------------------------------------------------

    @property
    def state(self) -> WriterState:
        return self._state

    @property
    def alive(self) -> bool:
        """Whether the owned task runs (False before start, after stop or if it died)."""
        return self._task is not None and not self._task.done()

    @property
    def loss_window_s(self) -> float:
        return self._loss_window

    async def start(self) -> None:
        """Subscribe to the ring and start the owned task (events already in the ring
        are committed within the loss window too)."""
        if self._state is not WriterState.NEW:
            raise WriterError("a ring writer starts once; create a new one")
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._state = WriterState.RUNNING
        self._unsubscribe = self._ring.subscribe(self._on_publish)
        if self.unwritten:
            self._first_unwritten_at = self._clock.monotonic()
        self._task = asyncio.create_task(self._run(), name="ring-writer")
        self._log.info("ring writer started loss_window_s=%s high_water=%d",
                       self._loss_window, self._high_water)

    async def stop(self, *, flush: bool = True) -> None:
        """End the task, then (with `flush`) persist what the ring still holds.
        Idempotent; a failing last flush is logged by code, never raised."""
        if self._state is WriterState.STOPPED:
            return
        was_running = self._state is WriterState.RUNNING
        self._state = WriterState.STOPPED
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._stop.set()
        task = self._task
        if task is not None:
            await asyncio.wait({task})
            error = None if task.cancelled() else task.exception()
            if error is not None and not isinstance(error, Exception):
                raise error  # the process is going down (SystemExit, a simulated power cut)
            if error is not None:
                self._log.error("ring writer task ended with %s", error_code(error))
        if flush and was_running:
            try:
                await self.flush()
            except ContextClosedError:
                pass
            except CompanionMemoryError as exc:
                self._log.error("last flush failed code=%s in_ring=%d", exc.code, self.unwritten)
        self._log.info("ring writer stopped persisted=%d commits=%d",
                       self.totals.persisted, self.totals.commits)

    # -- what waits -------------------------------------------------------------------

    @property
    def unwritten(self) -> int:
        """Ring entries published after the last durable one (still only in RAM)."""
        return max(0, self._ring.last_seq - self._durable_seq())

    def _on_publish(self) -> None:
        """Ring listener: cheap, never blocks; called after every accepted publish."""
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            if not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._on_publish)
            return
        if self._first_unwritten_at is None:
            self._first_unwritten_at = self._clock.monotonic()
            self._signal.set()
        elif self.unwritten >= self._high_water:
            self._signal.set()

    def poke(self) -> None:
        """Something that blocked intake changed (a storage level recovered): commit
        what waits now, without waiting for a back-off or the commit delay."""
        self._retry_at = float("-inf")
        self._backoff = self._loss_window
        self._commit_now = True
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            if not self._loop.is_closed():
                self._loop.call_soon_threadsafe(self._signal.set)
            return
        self._signal.set()

    # -- committing -------------------------------------------------------------------

    async def flush(self) -> FlushTotals:
        """Persist everything the ring holds now; returns what this call did.

        Raises what `consume` raises (`StorageIOError`: nothing of the failed batch
        moved). With intake paused it persists nothing and says `paused`."""
        async with self._flush_lock:
            done = FlushTotals()
            # What was published by now, and no more: events arriving during the commit
            # wait for the next one (chasing them would cut a steady stream into one
            # small commit per fsync).
            target = self._ring.last_seq
            while True:
                result = await self._context.consume(self._limit)
                done.add(result)
                self.totals.add(result)
                if result.paused:
                    break
                if not (result.persisted or result.lost or result.duplicates):
                    break
                if self._durable_seq() >= target:
                    break
            return done

    def _durable_seq(self) -> int:
        source = self._context.source_cursor
        return source.ring_seq if source.ring_generation == self._ring.generation else 0

    def _due(self) -> float | None:
        """When the next commit is due (monotonic), or None when nothing waits."""
        unwritten = self.unwritten
        if not unwritten:
            self._first_unwritten_at = None  # another consume (a round's catch-up) took it
            return None
        if self._first_unwritten_at is None:
            self._first_unwritten_at = self._clock.monotonic()
        due = self._first_unwritten_at + self._delay
        if unwritten >= self._high_water or self._commit_now:
            due = self._clock.monotonic()
        return max(due, self._retry_at)

    async def _run(self) -> None:
        while not self._stop.is_set():
            self._signal.clear()
            due = self._due()
            if due is None:
                await self._wait(None)
                continue
            remaining = due - self._clock.monotonic()
            if remaining > 0:
                await self._wait(remaining)
                continue
            if not await self._commit():
                return

    async def _commit(self) -> bool:
        """One group commit; False when the context is gone (the task ends)."""
        started = self._clock.monotonic()
        self._commit_now = False
        try:
            result = await self.flush()
        except ContextClosedError:
            return False
        except Exception as exc:
            code = error_code(exc)
            self._failures += 1
            self._last_error = code
            self._retry_at = self._clock.monotonic() + self._backoff
            self._log.warning("commit failed code=%s in_ring=%d retry_in_s=%.3f",
                              code, self.unwritten, self._backoff)
            self._backoff = min(MAX_BACKOFF_S, self._backoff * 2)
            return True
        if result.paused:
            # Intake is paused by the storage level: look again every loss window
            # (or at once on poke()); nothing is read, the source cursor stays.
            self._retry_at = self._clock.monotonic() + self._loss_window
        else:
            self._retry_at = float("-inf")
            self._backoff = self._loss_window
            self._last_error = None
        self._first_unwritten_at = started if self.unwritten else None
        return True

    async def _wait(self, seconds: float | None) -> None:
        """Until a publish signals, the writer stops, or `seconds` of the clock pass."""
        waiters: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._signal.wait()),
                                             asyncio.ensure_future(self._stop.wait())}
        if seconds is not None:
            waiters.add(asyncio.ensure_future(self._clock.sleep(seconds)))
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for fut in waiters:
                fut.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)

    # -- inspection -------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What is durable and what still waits in the ring (counts and codes only)."""
        first = self._first_unwritten_at
        unwritten = self.unwritten
        return {
            "state": self._state.value,
            "loss_window_s": self._loss_window,
            "high_water": self._high_water,
            "in_ring": unwritten,
            "oldest_in_ring_s": (round(max(0.0, self._clock.monotonic() - first), 3)
                                 if first is not None and unwritten else None),
            "durable_ring_seq": self._context.source_cursor.ring_seq,
            "intake_paused": not self._context.intake_enabled,
            **{f"written_{k}": v for k, v in self.totals.to_dict().items() if k != "paused"},
            "failures": self._failures,
            "last_error": self._last_error,
        }
