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

Replays: the log is the truth. At open the context keeps the content
fingerprint of every record in the retained log (taken during the recovery scan,
which reads every line anyway); `consume` drops ring events whose fingerprint is
already there, however many a feed or a phone re-sends. The ring's replay window
stays a cheap first filter and is seeded from the same fingerprints.

Read-only (`open(..., read_only=True)`): the log is scanned without repair and
nothing is written; what a repair would record is returned by `gaps()` beside
the stored gaps. Every changing call then raises `ContextReadOnlyError`.

Gaps - ring overflow, torn tails cut at recovery, corrupt lines, skipped poison
batches, a state ahead of the log - are written to `state.json` before the
action they describe, so a crash can repeat a gap (de-duplicated) but never lose
one.

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
import dataclasses
import logging
import os
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

from companion_memory.agent.notifications.context_state import (
    ContextState,
    MemoryCursor,
    StateFileCursor,
)
from companion_memory.agent.notifications.context_types import (
    BatchNotContiguousError,
    CleanupResult,
    ConsumeResult,
    Gap,
    NotificationRecord,
    SourceCursor,
    line_fingerprint,
)
from companion_memory.ble.events import NotificationEvent, format_rfc3339, parse_rfc3339
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock, SystemClock
from companion_memory.core.errors import StateError
from companion_memory.memory.records import MemoryIntent
from companion_memory.storage.fs import (
    FileSystem,
    NotRegularFileError,
    RealFileSystem,
    StorageIOError,
)
from companion_memory.storage.jsonl_log import JsonlLog, RecoveryReport

T = TypeVar("T")

log = logging.getLogger("companion_memory.agent.notifications.context")

RECENT_MAX = 1000
"""Records kept after `consume` so `read_pending` needs no log read (oldest dropped)."""
_HOLE_KINDS = ("corrupt_record", "cursor_ahead", "torn_tail", "unused_ids")


class ContextClosedError(StateError):
    code = "context_closed"


class ContextReadOnlyError(StateError):
    """A changing call on a context opened read-only."""

    code = "context_read_only"


class NotificationContext:
    """The durable notification intake of one root. Use `await NotificationContext.open(...)`."""

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
        self._ring = ring
        self._read_only = read_only
        self._unrecorded: list[Gap] = []
        """Read-only: the gaps a repairing open would have recorded."""
        self._fingerprints: dict[bytes, int] = {}
        """Content fingerprint -> context id of every record in the retained log."""
        self._log = log
        self._state = state
        self._cursor = cursor
        self._clock = clock
        self._lock = asyncio.Lock()
        self._commit_lock = asyncio.Lock()
        self._source = SourceCursor(None, 0)
        self._last_context_id = 0
        self._memory_cursor = 0
        self._intake_enabled = True
        self._intake_dirty = False
        self._closed = False
        self.last_recovery: RecoveryReport | None = None
        self._pending_seen: tuple[int, tuple[tuple[int, str, int], ...]] | None = None
        """(memory cursor, record keys) of the last read_pending: commit verifies against it."""
        self._recent: dict[int, tuple[str, int, datetime, NotificationEvent]] = {}
        """The last records consume appended (contiguous ids); emptied by any recovery."""

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
        state = ContextState(fs, os.path.join(base, "state.json"))
        if cursor is None:
            cursor = StateFileCursor()
        if isinstance(cursor, StateFileCursor):
            cursor.attach(state)
        ctx = cls(ring=ring, log=log, state=state, cursor=cursor, clock=clock or SystemClock(),
                  read_only=read_only)
        await ctx._blocking(lambda: ctx._recover_sync("cut_at_open"))
        await ctx._seed_replay_window()
        ctx._memory_cursor = await cursor.load()
        if ctx._memory_cursor > ctx._last_context_id:
            ahead = ctx._memory_cursor
            gap = ctx._gap(
                "cursor_ahead",
                ctx._last_context_id + 1,
                ahead,
                ahead - ctx._last_context_id,
                "memory_cursor_ahead_of_log",
                ref=f"memory@{ahead}",
            )
            await ctx._blocking(lambda: ctx._store_gap(gap))
            ctx._last_context_id = ahead
        return ctx

    async def _seed_replay_window(self) -> None:
        """A new process has a new ring with an empty replay window: seed it with the
        fingerprints of the newest records of the log (already in memory), so most
        re-sent events are dropped before they take ring space; `consume` refuses
        the rest against every retained record."""
        window = self._ring.replay_window
        if window == 0 or not self._fingerprints:
            return
        newest = list(self._fingerprints)[-window:]
        self._ring.remember(newest)

    def _store_gap(self, gap: Gap, **changes: Any) -> Gap:
        """Record `gap` (and `changes`) in the state file; read-only: keep it in memory."""
        if self._read_only:
            if all(g.identity() != gap.identity() for g in self._unrecorded):
                self._unrecorded.append(gap)
            return gap
        return self._state.add_gap(gap, **changes)

    def _check_writable(self) -> None:
        self._check_open()
        if self._read_only:
            raise ContextReadOnlyError(
                "the notification context was opened read-only; nothing can be changed"
            )

    async def close(self) -> None:
        """Idempotent; later calls other than close raise ContextClosedError."""
        if self._closed:
            return
        async with self._lock:
            self._closed = True

    # -- recovery ------------------------------------------------------------------

    def _gap(
        self, kind: str, first: int | None, last: int | None, count: int, reason: str,
        ref: str | None = None,
    ) -> Gap:
        return Gap(kind, first, last, count, reason, self._clock.now(), ref)

    def _recover_sync(self, reason: str) -> None:
        data = self._state.load()  # validated first: a bad state file changes nothing
        high_water = int(data.get("id_high_water", 0))
        torn_lasts: list[int] = []

        def record(report: RecoveryReport) -> None:
            for entry in report.unsafe:
                log.warning("%s is a %s, not a log shard: never opened; move it out of "
                            "the data root", entry.path, entry.kind)
                self._store_gap(self._gap(
                    "unsafe_entry", None, None, 0, f"not_a_regular_file:{entry.kind}",
                    ref=os.path.basename(entry.path),
                ))
            for torn in report.torn:
                name = os.path.basename(torn.path)
                last = max(torn.last_id, high_water) if torn is report.torn[-1] else torn.last_id
                torn_lasts.append(last)
                self._store_gap(self._gap(
                    "torn_tail", torn.first_id, last, last - torn.first_id + 1, reason,
                    ref=f"{name}@{torn.offset}+{torn.bytes_cut}",
                ))
            for run in report.corrupt:
                known = run.first_id is not None and run.last_id is not None
                count = run.last_id - run.first_id + 1 if known else run.lines  # type: ignore[operator]
                self._store_gap(self._gap(
                    "corrupt_record", run.first_id, run.last_id, count, "crc_mismatch",
                    ref=f"{os.path.basename(run.path)}@{run.offset}",
                ))
            for run in report.misordered:
                self._store_gap(self._gap(
                    "misordered_record", run.first_id, run.last_id, run.lines,
                    "context_ids_go_backwards", ref=f"{os.path.basename(run.path)}@{run.offset}",
                ))

        fingerprints: dict[bytes, int] = {}

        def keep(line: dict[str, Any]) -> None:
            fingerprints[line_fingerprint(line)] = line["context_id"]

        self._pending_seen = None  # a recovery may cut what read_pending returned
        self._recent = {}  # ... and what consume appended
        self.last_recovery = self._log.recover(
            before_repair=record, repair=not self._read_only, on_record=keep
        )
        self._fingerprints = fingerprints
        if not self._read_only and not self._state.exists():
            self._state.update(version=1)
        last = self._log.last_line()
        log_last = self._log.last_id or 0
        source = (
            SourceCursor(str(last["ring_generation"]), int(last["ring_seq"]))
            if last is not None
            else SourceCursor(None, 0)
        )
        deleted_through = int(data.get("deleted_through", 0))
        last_id = max(log_last, deleted_through)
        hint = data.get("source_hint")
        if isinstance(hint, dict) and int(hint.get("context_id", 0)) > log_last:
            hint_id = int(hint["context_id"])
            if last is None and hint_id <= deleted_through:
                source = SourceCursor(hint.get("ring_generation"), int(hint.get("ring_seq", 0)))
            else:
                self._store_gap(self._gap(
                    "cursor_ahead", log_last + 1, hint_id, hint_id - log_last,
                    "state_hint_ahead_of_log", ref=f"hint@{hint_id}",
                ))
            last_id = max(last_id, hint_id)
        floor = max(last_id, self._last_context_id, *torn_lasts)
        known_holes = [g for g in [*self._state.gaps(), *self._unrecorded]
                       if g.kind in _HOLE_KINDS and g.last is not None]
        if high_water > floor and all(g.last < high_water for g in known_holes):  # type: ignore[operator]
            # Ids reserved for a batch that never became readable: a crash before any
            # byte landed, or an append that failed and was cut back. Never reuse them.
            failed = self.last_recovery.repaired_after_failure
            self._store_gap(self._gap(
                "unused_ids" if failed else "torn_tail", floor + 1, high_water,
                high_water - floor, "append_failed" if failed else f"{reason}:not_written",
                ref=f"ids@{high_water}",
            ))
        self._source = source
        self._last_context_id = max(floor, high_water)

    def _ready_sync(self) -> None:
        if self._log.needs_recovery and not self._read_only:
            self._recover_sync("cut_after_io_error")

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

    # -- intake ----------------------------------------------------------------------

    async def consume(self, limit: int = 100) -> ConsumeResult:
        """Persist up to `limit` ring events durably, then advance the source cursor.

        Ring overflow since the last read is recorded as a "ring_overflow" gap
        first. With intake disabled nothing is read (paused=True).
        Raises StorageIOError (nothing advanced; the next call recovers first).
        """
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._lock:
            self._check_open()
            if self._read_only:
                raise ContextReadOnlyError("the notification context was opened read-only")
            if self._intake_dirty:
                await self._persist_intake_flag()
            if not self._intake_enabled:
                return ConsumeResult(0, 0, True)
            if self._log.needs_recovery:
                await self._blocking(self._ready_sync)
            generation = self._ring.generation
            after = self._source.ring_seq if self._source.ring_generation == generation else 0
            read = self._ring.events_since(after, limit)
            if not read.entries and not read.lost:
                return ConsumeResult(0, 0, False)
            lost_gap = (
                self._gap("ring_overflow", after + 1, after + read.lost, read.lost,
                          "ring_overwrote_unread", ref=f"ring:{generation}")
                if read.lost
                else None
            )
            now = self._clock.now().astimezone(UTC)
            received = format_rfc3339(now)
            received_at = parse_rfc3339(received, "received_at")  # as read back from the log
            first_id = self._last_context_id + 1
            known = self._fingerprints
            fresh: list[Any] = []
            fresh_prints: list[bytes] = []
            batch_prints: set[bytes] = set()
            for entry in read.entries:
                fp = entry.event.fingerprint()
                if fp in known or fp in batch_prints:
                    continue  # already in the log: the log is the truth, not the window
                batch_prints.add(fp)
                fresh.append(entry)
                fresh_prints.append(fp)
            duplicates = len(read.entries) - len(fresh)
            lines: list[dict[str, Any]] = [
                {
                    "context_id": first_id + i,
                    "ring_generation": generation,
                    "ring_seq": entry.seq,
                    "received_at": received,
                    **entry.event.to_dict(),
                }
                for i, entry in enumerate(fresh)
            ]
            last_id = first_id + len(lines) - 1

            def work() -> None:
                if lines:
                    # Reserve the batch's ids durably before any of its bytes exist.
                    if lost_gap is not None:
                        self._state.add_gap(lost_gap, id_high_water=last_id)
                    else:
                        self._state.update(id_high_water=last_id)
                    self._log.append_batch(lines, now.date())
                    self._last_context_id = last_id
                elif lost_gap is not None:
                    self._state.add_gap(lost_gap)
                self._source = SourceCursor(generation, read.next_after)

            await self._blocking(work)
            if lines:
                for i, fp in enumerate(fresh_prints):
                    known[fp] = first_id + i
                self._remember(first_id, generation, received_at, fresh)
            return ConsumeResult(len(lines), read.lost, False, duplicates)

    def _remember(
        self, first_id: int, generation: str, received_at: datetime, entries: Sequence[Any]
    ) -> None:
        """Keep the ring entries just appended for `read_pending`; the records are built
        (exactly as `NotificationRecord.from_line` would read them back) only when read."""
        recent = self._recent
        if recent and next(reversed(recent)) != first_id - 1:
            recent.clear()  # keep the window contiguous
        for i, entry in enumerate(entries):
            recent[first_id + i] = (generation, entry.seq, received_at, entry.event)
        while len(recent) > RECENT_MAX:
            del recent[next(iter(recent))]

    @staticmethod
    def _record(context_id: int, kept: tuple[str, int, datetime, NotificationEvent]
                ) -> NotificationRecord:
        generation, seq, received_at, event = kept
        if event.posted_at.tzinfo is not UTC:
            event = dataclasses.replace(event, posted_at=event.posted_at.astimezone(UTC))
        return NotificationRecord(context_id, generation, seq, received_at, event)

    def _recent_after(self, after: int, limit: int) -> list[NotificationRecord] | None:
        """Up to `limit` records after `after` from the window, or None (read the log)."""
        recent = self._recent
        while recent:
            oldest = next(iter(recent))
            if oldest > after:
                break
            del recent[oldest]  # processed: never served again
        if after + 1 not in recent or self._log.needs_recovery:
            return None
        end = min(after + limit, self._last_context_id)
        if end not in recent:
            return None  # the window ends before what the log holds: read the log
        return [self._record(cid, recent[cid]) for cid in range(after + 1, end + 1)]

    def set_intake_enabled(self, enabled: bool) -> None:
        """Storage levels: when off, consume() persists nothing and the source cursor
        stays; events overwritten in the ring meanwhile become a gap on resume."""
        if enabled != self._intake_enabled:
            self._intake_enabled = enabled
            self._intake_dirty = True

    @property
    def intake_enabled(self) -> bool:
        return self._intake_enabled

    async def _persist_intake_flag(self) -> None:
        enabled = self._intake_enabled
        try:
            await self._blocking(lambda: self._state.update(intake_enabled=enabled))
        except StorageIOError:
            return  # a full disk is why intake pauses; the flag is informational
        self._intake_dirty = False

    # -- processing ------------------------------------------------------------------

    async def read_pending(self, limit: int = 10) -> list[NotificationRecord]:
        """Up to `limit` records after the memory cursor, oldest first."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        async with self._lock:
            self._check_open()
            after = self._memory_cursor
            records = self._recent_after(after, limit)
            if records is not None:
                self._pending_seen = (
                    after, tuple((r.context_id, r.ring_generation, r.ring_seq) for r in records)
                )
                return records

            def work() -> list[dict[str, Any]]:
                self._ready_sync()
                return self._log.read_after(after, limit)

            lines = await self._blocking(work)
            self._pending_seen = (after, tuple(_line_key(line) for line in lines))
        return [NotificationRecord.from_line(line) for line in lines]

    async def _check_batch(self, batch: Sequence[NotificationRecord], expected: int) -> None:
        if not batch:
            raise BatchNotContiguousError("the batch is empty; commit at least one record")
        got = [(r.context_id, r.ring_generation, r.ring_seq) for r in batch]
        seen = self._pending_seen
        if (
            seen is not None and seen[0] == expected and len(got) <= len(seen[1])
            and not self._log.needs_recovery and tuple(got) == seen[1][:len(got)]
        ):
            # The batch is a prefix of what read_pending returned after this same cursor.
            # The log is append-only after the cursor (cleanup removes processed shards
            # only; a recovery clears `_pending_seen`), so re-reading would return the
            # same keys: skip the re-read.
            self._check_open()
            return
        async with self._lock:
            self._check_open()

            def work() -> list[dict[str, Any]]:
                self._ready_sync()
                return self._log.read_after(expected, len(batch))

            lines = await self._blocking(work)
        want = [_line_key(ln) for ln in lines]
        if got != want:
            nxt = want[0][0] if want else None
            raise BatchNotContiguousError(
                f"batch holds context ids {batch[0].context_id}..{batch[-1].context_id}; "
                f"the memory cursor is {expected} and the next pending record is {nxt}: "
                "commit the consecutive records read_pending returned, starting there"
            )

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
            expected = self._memory_cursor
            await self._check_batch(batch, expected)
            await self._advance(expected, batch[-1].context_id, intents, receipt)

    async def _advance(
        self, expected: int, new: int, intents: Sequence[MemoryIntent], receipt: str | None
    ) -> None:
        try:
            await self._cursor.advance(expected, new, intents, receipt)
        except BaseException:
            with contextlib.suppress(Exception):  # keep the original error
                self._memory_cursor = await self._cursor.load()
            raise
        self._memory_cursor = new

    async def skip_batch(self, batch: Sequence[NotificationRecord], reason: str) -> Gap:
        """Record `batch` as a "poison_batch" gap, then advance the cursor past it."""
        _check_reason(reason)
        self._check_writable()
        async with self._commit_lock:
            expected = self._memory_cursor
            await self._check_batch(batch, expected)
            gap = self._gap("poison_batch", batch[0].context_id, batch[-1].context_id,
                            len(batch), reason)
            stored = await self._blocking(lambda: self._state.add_gap(gap))
            await self._advance(expected, batch[-1].context_id, (), None)
            return stored

    async def record_gap(
        self, kind: str, first: int | None, last: int | None, count: int, reason: str
    ) -> Gap:
        """Persist a gap found elsewhere (e.g. by a processor)."""
        if not kind or len(kind) > 40:
            raise ValueError("gap kind must be a short code")
        _check_reason(reason)
        gap = self._gap(kind, first, last, count, reason)
        self._check_writable()
        return await self._blocking(lambda: self._state.add_gap(gap))

    async def gaps(self) -> list[Gap]:
        """The recorded gaps; read-only, also those a repairing open would record."""
        stored = await self._blocking(self._state.gaps)
        if not self._unrecorded:
            return stored
        seen = {g.identity() for g in stored}
        return stored + [g for g in self._unrecorded if g.identity() not in seen]

    async def read_processed_between(
        self, start: datetime, end: datetime, limit: int
    ) -> list[NotificationRecord]:
        """Processed records received in [start, end), oldest first, at most `limit`."""
        if start.tzinfo is None or end.tzinfo is None:
            raise ValueError("start and end must be timezone-aware")
        if limit < 1:
            raise ValueError("limit must be at least 1")
        start_day = start.astimezone(UTC).date()
        async with self._lock:
            self._check_open()
            processed = self._memory_cursor

            def work() -> list[NotificationRecord]:
                self._ready_sync()
                out: list[NotificationRecord] = []
                shards = self._log.shards()
                for i, shard in enumerate(shards):
                    # A shard's records were all received before the next shard's day
                    # (the newest shard takes records until a later day's begins).
                    if i + 1 < len(shards) and shards[i + 1].day <= start_day:
                        continue
                    if shard.first_id > processed:
                        break
                    for line in self._log.read_shard(shard.day):
                        if line["context_id"] > processed:
                            return out
                        record = NotificationRecord.from_line(line)
                        if start <= record.received_at < end:
                            out.append(record)
                            if len(out) >= limit:
                                return out
                return out

            return await self._blocking(work)

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
            processed = self._memory_cursor

            def work() -> CleanupResult:
                self._ready_sync()
                victims = [
                    s for s in self._log.shards() if wanted(s.day) and s.last_id <= processed
                ]
                if not victims:
                    return CleanupResult(0, 0)
                deleted_through = max(
                    int(self._state.get("deleted_through", 0)), max(s.last_id for s in victims)
                )
                hint = {**self._source.to_dict(), "context_id": self._last_context_id}
                self._state.update(source_hint=hint, deleted_through=deleted_through)
                freed = 0
                for shard in victims:
                    freed += self._log.delete_shard(shard.day)
                gone = max(s.last_id for s in victims)
                self._fingerprints = {
                    fp: cid for fp, cid in self._fingerprints.items() if cid > gone
                }
                return CleanupResult(len(victims), freed)

            return await self._blocking(work)

    # -- inspection ------------------------------------------------------------------

    @property
    def memory_cursor(self) -> int:
        return self._memory_cursor

    @property
    def source_cursor(self) -> SourceCursor:
        return self._source

    @property
    def last_context_id(self) -> int:
        return self._last_context_id

    async def pending_count(self) -> int:
        """Readable records after the memory cursor (known holes excluded)."""
        gaps = self._state.cached_gaps()  # no thread hop when the state is in memory
        if gaps is None:
            gaps = await self.gaps()
        low, high = self._memory_cursor, self._last_context_id
        holes = 0
        for gap in gaps:
            if gap.kind in _HOLE_KINDS and gap.first is not None and gap.last is not None:
                holes += max(0, min(gap.last, high) - max(gap.first, low + 1) + 1)
        return max(0, high - low - holes)

    async def status(self) -> dict[str, Any]:
        """Counts and cursors only (never content)."""
        gaps = await self.gaps()
        shards = self._log.shards()
        return {
            "last_context_id": self._last_context_id,
            "memory_cursor": self._memory_cursor,
            "source_cursor": self._source.to_dict(),
            "pending": await self.pending_count(),
            "shards": len(shards),
            "log_bytes": sum(s.size_bytes for s in shards),
            "gaps": len(gaps),
            "intake_enabled": self._intake_enabled,
            "needs_recovery": self._log.needs_recovery,
        }


def _line_key(line: dict[str, Any]) -> tuple[int, str, int]:
    return (int(line["context_id"]), str(line["ring_generation"]), int(line["ring_seq"]))


def _check_reason(reason: str) -> None:
    if not isinstance(reason, str) or not reason or len(reason) > 120:
        raise ValueError("a gap reason is a short code (1-120 characters), never content")
