"""`NotificationContext`: ring -> durable JSONL log -> pending records -> memory cursor.

Two cursors. The source cursor (ring generation + sequence of the last ring item
made durable) is derived from the log at open and advances only after a batch is
written and fsynced. The memory cursor (last processed `context_id`) lives in a
`MemoryCursor` - the memory store's transaction in production, the state file
otherwise - and advances only through `commit_processed`/`skip_batch` with a
batch that continues it exactly.

`context_id`s are local, start at 1, increase by one per record, are never
reused and do not depend on the ring's generation. Before a batch is appended
its last id is written to `state.json` (`id_high_water`), so ids cut from a torn
tail, or held by a batch whose append failed, are known exactly after any crash:
they become a gap and are never given to new records. A ring whose generation
differs from the stored one is read from its beginning.

Open cost: a checkpoint (`checkpoint.py`, written at open when the log
changed, every `CHECKPOINT_EVERY` appended records and at close) lets open read
only what changed since: shards that are as recorded are not read, a shard that
grew is scanned from its recorded end. Damage a read later meets inside a
shard open did not read makes the whole log be scanned again (reported as a gap
and skipped, as at an open without a checkpoint).

Replays: the log is the truth. The content fingerprint of every record in the
retained log is kept (`fingerprints.py`: per-shard sidecars the checkpoint
vouches for, read on the first `consume`, plus what open scanned); `consume`
drops ring events whose fingerprint is already there, however many a feed or a
phone re-sends. The ring's replay window stays a cheap first filter and is
seeded from the newest fingerprints.

Read-only (`open(..., read_only=True)`): the log is scanned without repair and
nothing is written; what a repair would record is returned by `gaps()` beside
the stored gaps. Every changing call then raises `ContextReadOnlyError`.

Gaps - ring overflow, torn tails cut at recovery, corrupt lines, skipped poison
batches, a state ahead of the log - are appended (one fsynced line each) to
`gaps.jsonl` before the action they describe, so a crash can repeat a gap
(de-duplicated) but never lose one.

`read_pending` serves the records `consume` itself just made durable from a small
in-memory window (`RECENT_MAX`) when they continue the memory cursor exactly; any
recovery empties the window, and a miss reads the log.

Blocking I/O runs in worker threads (`asyncio.to_thread`). Cancellation: a
cancelled call waits for its in-flight file operation to finish (a thread
cannot be stopped), keeps its effect (cursors then match the disk) and re-raises
`CancelledError`. After a failed write (`StorageIOError`: disk full, EIO, fsync
error) nothing in memory moved; the next call recovers the log from disk first.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar

from companion_memory.agent.notification_log.checkpoint import (
    CHECKPOINT_FILE,
    Checkpointer,
)
from companion_memory.agent.notification_log.cursors import Cursors
from companion_memory.agent.notification_log.fingerprints import (
    PRINTS_DIR,
    FingerprintIndex,
)
from companion_memory.agent.notification_log.history import HistoryReader
from companion_memory.agent.notification_log.intake import IntakeWriter
from companion_memory.agent.notification_log.pending import (
    RECENT_MAX,
    PendingQueue,
    RecentWindow,
)
from companion_memory.agent.notification_log.recovery import GapBook, Recovery
from companion_memory.agent.notification_log.retention import Retention
from companion_memory.agent.notification_log.state import (
    ContextState,
    MemoryCursor,
    StateFileCursor,
)
from companion_memory.agent.notification_log.types import (
    BatchNotContiguousError,
    CleanupResult,
    ConsumeResult,
    Gap,
    NotificationRecord,
    SourceCursor,
)
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import InvalidInputError, StateError
from companion_memory.memory.records import MemoryIntent
from companion_memory.storage.fs import (
    FileSystem,
    NotRegularFileError,
    RealFileSystem,
    StorageIOError,
)
from companion_memory.storage.jsonl_log import JsonlLog, RecoveryReport

__all__ = ["RECENT_MAX", "ContextClosedError", "ContextReadOnlyError", "NotificationContext"]

T = TypeVar("T")


class ContextClosedError(StateError):
    code = "context_closed"


class ContextReadOnlyError(StateError):
    """A changing call on a context opened read-only."""

    code = "context_read_only"


class NotificationContext:
    """The durable notification intake of one root. Use `await NotificationContext.open(...)`.

    The jobs live in their own objects, composed here: `IntakeWriter` (consume),
    `PendingQueue` (read_pending, commit, skip), `Recovery` and `GapBook` (open,
    repair after a failed write, gaps), `Retention` (cleanup) and `HistoryReader`
    (read_processed_between). This class owns the locks, the closed and read-only
    checks and the worker-thread hops.
    """

    def __init__(
        self,
        *,
        ring: EventRing,
        log: JsonlLog,
        state: ContextState,
        cursor: MemoryCursor,
        clock: Clock,
        read_only: bool = False,
    ) -> None:
        self._log = log
        self._state = state
        self._read_only = read_only
        self._lock = asyncio.Lock()
        self._commit_lock = asyncio.Lock()
        self._closed = False
        self._cursors = Cursors(SourceCursor(None, 0))
        base = os.path.dirname(state.path)
        fs = state.fs
        prints = FingerprintIndex(fs, os.path.join(base, PRINTS_DIR), log)
        self._checkpoints = Checkpointer(fs, os.path.join(base, CHECKPOINT_FILE), log, prints,
                                         read_only=read_only)
        recent = RecentWindow()
        self._gaps = GapBook(state, clock, read_only=read_only)
        self._recovery = Recovery(
            log=log, state=state, gaps=self._gaps, cursors=self._cursors, read_only=read_only,
            on_reset=lambda: self._pending.reset(), prints=prints,
            checkpoints=self._checkpoints,
        )
        self._pending = PendingQueue(log=log, cursor=cursor, cursors=self._cursors,
                                     recovery=self._recovery, recent=recent)
        self._intake = IntakeWriter(ring=ring, log=log, state=state, gaps=self._gaps,
                                    cursors=self._cursors, clock=clock, recent=recent,
                                    prints=prints, checkpoints=self._checkpoints)
        self._retention = Retention(log=log, state=state, cursors=self._cursors,
                                    recovery=self._recovery, prints=prints, fs=fs)
        self._history = HistoryReader(log=log, recovery=self._recovery)
        self._memory = cursor

    @classmethod
    async def open(
        cls,
        root: str | Path,
        ring: EventRing,
        *,
        cursor: MemoryCursor | None = None,
        fs: FileSystem | None = None,
        clock: Clock | None = None,
        read_only: bool = False,
    ) -> NotificationContext:
        """Recover the log under `<root>/notifications/`, derive the cursors, report gaps.

        Raises `NotRegularFileError` when `notifications/` or its `events/` is a
        symbolic link or not a directory (nothing is read or written through it)."""
        fs = fs if fs is not None else RealFileSystem()
        base = os.path.join(os.fspath(root), "notifications")
        events = os.path.join(base, "events")
        for directory in (base, events):
            kind = await asyncio.to_thread(fs.entry_kind, directory)
            if kind not in (None, "dir"):
                raise NotRegularFileError("open", directory, kind)
        log = JsonlLog(fs, events)
        state = ContextState(fs, os.path.join(base, "state.json"), read_only=read_only)
        if cursor is None:
            cursor = StateFileCursor()
        if isinstance(cursor, StateFileCursor):
            cursor.attach(state)
        ctx = cls(ring=ring, log=log, state=state, cursor=cursor, clock=clock or SystemClock(),
                  read_only=read_only)
        def recover() -> None:
            ctx._recovery.recover("cut_at_open")
            ctx._intake.seed_replay_window()

        await ctx._blocking(recover)
        memory_cursor = await cursor.load()

        def settle() -> None:
            ctx._recovery.memory_cursor_loaded(memory_cursor)
            if ctx._checkpoints.stale:
                ctx._checkpoints.write_sync()

        await ctx._blocking(settle)
        return ctx

    async def close(self) -> None:
        """Idempotent; later calls other than close raise ContextClosedError.

        Writes a checkpoint when the log changed since the last one (so the next
        open reads nothing); failing to is logged, never raised."""
        if self._closed:
            return
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._checkpoints.wanted:
                await self._blocking(self._checkpoints.write_sync)

    @property
    def last_recovery(self) -> RecoveryReport | None:
        """What the last recovery of the log found (None before the first)."""
        return self._recovery.last_report

    # -- plumbing --------------------------------------------------------------------

    async def _blocking(self, fn: Callable[[], T]) -> T:
        """Run `fn` in a thread; on cancellation wait for it, keep its effect, re-raise."""
        task = asyncio.ensure_future(asyncio.to_thread(fn))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            while not task.done():
                try:
                    await asyncio.wait({task})
                except asyncio.CancelledError:
                    continue
            if not task.cancelled():
                task.exception()
            raise

    def _check_open(self) -> None:
        if self._closed:
            raise ContextClosedError("the notification context is closed")

    def _check_writable(self) -> None:
        self._check_open()
        if self._read_only:
            raise ContextReadOnlyError(
                "the notification context was opened read-only; nothing can be changed"
            )

    # -- intake ----------------------------------------------------------------------

    async def consume(self, limit: int = 100) -> ConsumeResult:
        """Persist up to `limit` ring events durably, then advance the source cursor.

        Ring overflow since the last read is recorded as a "ring_overflow" gap
        first. With intake disabled nothing is read (paused=True).
        Raises StorageIOError (nothing advanced; the next call recovers first).
        """
        if limit < 1:
            raise InvalidInputError("limit must be at least 1")
        async with self._lock:
            self._check_open()
            if self._read_only:
                raise ContextReadOnlyError("the notification context was opened read-only")
            intake = self._intake
            if intake.dirty:
                # A full disk is why intake pauses; the flag is informational.
                with contextlib.suppress(StorageIOError):
                    await self._blocking(intake.persist_flag_sync)
            if not intake.enabled:
                return ConsumeResult(0, 0, True)
            if self._log.needs_recovery:
                await self._blocking(self._recovery.ready)
            if not intake.ready:
                await self._blocking(intake.load_sync)
            batch = intake.prepare(limit)
            if batch is None:
                return ConsumeResult(0, 0, False)
            await self._blocking(lambda: intake.write_sync(batch))
            intake.written(batch)
            if self._checkpoints.due:
                await self._blocking(self._checkpoints.write_sync)
            return batch.result()

    def set_intake_enabled(self, enabled: bool) -> None:
        """Storage levels: when off, consume() persists nothing and the source cursor
        stays; events overwritten in the ring meanwhile become a gap on resume."""
        self._intake.set_enabled(enabled)

    @property
    def intake_enabled(self) -> bool:
        return self._intake.enabled

    # -- processing ------------------------------------------------------------------

    async def read_pending(self, limit: int = 10) -> list[NotificationRecord]:
        """Up to `limit` records after the memory cursor, oldest first."""
        if limit < 1:
            raise InvalidInputError("limit must be at least 1")
        async with self._lock:
            self._check_open()
            pending = self._pending
            records = pending.from_window(limit)
            if records is not None:
                return records
            after = self._cursors.memory_cursor
            lines = await self._blocking(lambda: pending.read_sync(after, limit))
            pending.note_read(after, lines)
        return [NotificationRecord.from_line(line) for line in lines]

    async def _check_batch(self, batch: Sequence[NotificationRecord], expected: int) -> None:
        if not batch:
            raise BatchNotContiguousError("the batch is empty; commit at least one record")
        pending = self._pending
        if pending.matches_last_read(batch, expected):
            self._check_open()
            return
        async with self._lock:
            self._check_open()
            lines = await self._blocking(lambda: pending.read_sync(expected, len(batch)))
        pending.check_against(batch, expected, lines)

    async def commit_processed(
        self,
        batch: Sequence[NotificationRecord],
        intents: Sequence[MemoryIntent] = (),
        receipt: str | None = None,
    ) -> None:
        """Advance the memory cursor past `batch`, atomically with `intents`.

        Raises BatchNotContiguousError (nothing changes) or the cursor's errors
        (then the cursor is re-read from where it lives).
        """
        self._check_writable()
        async with self._commit_lock:
            expected = self._cursors.memory_cursor
            await self._check_batch(batch, expected)
            await self._pending.advance(expected, batch[-1].context_id, intents, receipt)

    async def skip_batch(self, batch: Sequence[NotificationRecord], reason: str) -> Gap:
        """Record `batch` as a "poison_batch" gap, then advance the cursor past it."""
        _check_reason(reason)
        self._check_writable()
        async with self._commit_lock:
            expected = self._cursors.memory_cursor
            await self._check_batch(batch, expected)
            gap = self._gaps.make("poison_batch", batch[0].context_id, batch[-1].context_id,
                                  len(batch), reason)
            stored = await self._blocking(lambda: self._state.add_gap(gap))
            await self._pending.advance(expected, batch[-1].context_id, (), None)
            return stored

    # -- gaps ------------------------------------------------------------------------

    async def record_gap(
        self, kind: str, first: int | None, last: int | None, count: int, reason: str
    ) -> Gap:
        """Persist a gap found elsewhere (e.g. by a processor)."""
        if not kind or len(kind) > 40:
            raise InvalidInputError("gap kind must be a short code")
        _check_reason(reason)
        gap = self._gaps.make(kind, first, last, count, reason)
        self._check_writable()
        return await self._blocking(lambda: self._state.add_gap(gap))

    async def gaps(self) -> list[Gap]:
        """The recorded gaps; read-only, also those a repairing open would record."""
        return await self._blocking(self._gaps.listed)

    # -- history ---------------------------------------------------------------------

    async def read_processed_between(
        self, start: datetime, end: datetime, limit: int
    ) -> list[NotificationRecord]:
        """Processed records received in [start, end), oldest first, at most `limit`."""
        if start.tzinfo is None or end.tzinfo is None:
            raise InvalidInputError("start and end must be timezone-aware")
        if limit < 1:
            raise InvalidInputError("limit must be at least 1")
        async with self._lock:
            self._check_open()
            processed = self._cursors.memory_cursor
            return await self._blocking(
                lambda: self._history.processed_between(start, end, limit, processed)
            )

    # -- retention -------------------------------------------------------------------

    async def cleanup_processed_before(self, day: date) -> CleanupResult:
        """Delete shards older than `day` whose every record is processed."""
        return await self._cleanup(lambda d: d < day)

    async def cleanup_all_processed(self) -> CleanupResult:
        """Delete every shard whose every record is processed (never a partly processed one)."""
        return await self._cleanup(lambda d: True)

    async def _cleanup(self, wanted: Callable[[date], bool]) -> CleanupResult:
        async with self._lock:
            self._check_writable()
            return await self._blocking(lambda: self._retention.cleanup_sync(wanted))

    # -- inspection ------------------------------------------------------------------

    @property
    def memory_cursor(self) -> int:
        return self._cursors.memory_cursor

    @property
    def source_cursor(self) -> SourceCursor:
        return self._cursors.source

    @property
    def last_context_id(self) -> int:
        return self._cursors.last_context_id

    async def pending_count(self) -> int:
        """Readable records after the memory cursor (known holes excluded)."""
        gaps = self._gaps.cached()  # no thread hop when the state is in memory
        if gaps is None:
            gaps = await self.gaps()
        return self._pending.count(gaps)

    async def status(self) -> dict[str, Any]:
        """Counts and cursors only (never content)."""
        gaps = await self.gaps()
        shards = self._log.shards()
        return {
            "last_context_id": self._cursors.last_context_id,
            "memory_cursor": self._cursors.memory_cursor,
            "source_cursor": self._cursors.source.to_dict(),
            "pending": await self.pending_count(),
            "shards": len(shards),
            "log_bytes": sum(s.size_bytes for s in shards),
            "gaps": len(gaps),
            "intake_enabled": self._intake.enabled,
            "needs_recovery": self._log.needs_recovery,
        }


def _check_reason(reason: str) -> None:
    if not isinstance(reason, str) or not reason or len(reason) > 120:
        raise InvalidInputError("a gap reason is a short code (1-120 characters), never content")
