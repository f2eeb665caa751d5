"""The pending queue: records after the memory cursor, and advancing that cursor.

`read_pending` serves the records `consume` itself just made durable from a
small in-memory window (`RecentWindow`, at most `RECENT_MAX` records) when they
continue the memory cursor exactly; any recovery empties the window, and a miss
reads the log. `commit`/`skip` verify a batch against what `read_pending`
returned after the same cursor (no log re-read) and otherwise against the log.
The memory cursor lives in a `MemoryCursor` and moves only through a batch that
continues it exactly.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from companion_memory.agent.notification_log.cursors import Cursors
from companion_memory.agent.notification_log.recovery import HOLE_KINDS, Recovery
from companion_memory.agent.notification_log.state import MemoryCursor
from companion_memory.agent.notification_log.types import (
    BatchNotContiguousError,
    Gap,
    NotificationRecord,
)
from companion_memory.ble.events import NotificationEvent
from companion_memory.memory.records import MemoryIntent
from companion_memory.storage.jsonl_log import JsonlLog

RECENT_MAX = 1000
"""Records kept after `consume` so `read_pending` needs no log read (oldest dropped)."""

Key = tuple[int, str, int]
"""(context id, ring generation, ring sequence) of a record."""


def line_key(line: dict[str, Any]) -> Key:
    return (int(line["context_id"]), str(line["ring_generation"]), int(line["ring_seq"]))


class RecentWindow:
    """The last records consume appended (contiguous ids), kept as ring entries; the
    records are built (exactly as `NotificationRecord.from_line` reads them back) only
    when read."""

    def __init__(self) -> None:
        self._kept: dict[int, tuple[str, int, datetime, NotificationEvent]] = {}

    def clear(self) -> None:
        self._kept = {}

    def remember(
        self, first_id: int, generation: str, received_at: datetime, entries: Sequence[Any]
    ) -> None:
        kept = self._kept
        if kept and next(reversed(kept)) != first_id - 1:
            kept.clear()  # keep the window contiguous
        for i, entry in enumerate(entries):
            kept[first_id + i] = (generation, entry.seq, received_at, entry.event)
        while len(kept) > RECENT_MAX:
            del kept[next(iter(kept))]

    def after(self, after: int, limit: int, last_id: int) -> list[NotificationRecord] | None:
        """Up to `limit` records after `after` from the window, or None (read the log)."""
        kept = self._kept
        while kept:
            oldest = next(iter(kept))
            if oldest > after:
                break
            del kept[oldest]  # processed: never served again
        if after + 1 not in kept:
            return None
        end = min(after + limit, last_id)
        if end not in kept:
            return None  # the window ends before what the log holds: read the log
        return [_record(cid, kept[cid]) for cid in range(after + 1, end + 1)]


def _record(context_id: int, kept: tuple[str, int, datetime, NotificationEvent]
            ) -> NotificationRecord:
    generation, seq, received_at, event = kept
    if event.posted_at.tzinfo is not UTC:
        event = dataclasses.replace(event, posted_at=event.posted_at.astimezone(UTC))
    return NotificationRecord(context_id, generation, seq, received_at, event)


class PendingQueue:
    """Reads pending records and advances the memory cursor past committed batches."""

    def __init__(
        self, *, log: JsonlLog, cursor: MemoryCursor, cursors: Cursors, recovery: Recovery,
        recent: RecentWindow,
    ) -> None:
        self._log = log
        self._cursor = cursor
        self._cursors = cursors
        self._recovery = recovery
        self.recent = recent
        self.seen: tuple[int, tuple[Key, ...]] | None = None
        """(memory cursor, record keys) of the last read_pending: commit verifies against it."""

    def reset(self) -> None:
        """Forget what read_pending returned and consume appended (a recovery may cut it)."""
        self.seen = None
        self.recent.clear()

    def from_window(self, limit: int) -> list[NotificationRecord] | None:
        """The pending records from the window (no I/O), or None: call `read_sync`."""
        after = self._cursors.memory_cursor
        if self._log.needs_recovery:
            return None
        records = self.recent.after(after, limit, self._cursors.last_context_id)
        if records is not None:
            self.seen = (after, tuple((r.context_id, r.ring_generation, r.ring_seq)
                                      for r in records))
        return records

    def read_sync(self, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` log lines after `after` (recovering first if a write failed)."""
        return self._recovery.read(lambda: self._log.read_after(after, limit))

    def note_read(self, after: int, lines: list[dict[str, Any]]) -> None:
        self.seen = (after, tuple(line_key(line) for line in lines))

    def matches_last_read(self, batch: Sequence[NotificationRecord], expected: int) -> bool:
        """True when `batch` is a prefix of what read_pending returned after `expected`.

        The log is append-only after the cursor (cleanup removes processed shards
        only; a recovery clears what was seen), so re-reading would return the same
        keys: no re-read is needed."""
        seen = self.seen
        got = tuple((r.context_id, r.ring_generation, r.ring_seq) for r in batch)
        return (
            seen is not None and seen[0] == expected and len(got) <= len(seen[1])
            and not self._log.needs_recovery and got == seen[1][:len(got)]
        )

    @staticmethod
    def check_against(batch: Sequence[NotificationRecord], expected: int,
                      lines: list[dict[str, Any]]) -> None:
        got = [(r.context_id, r.ring_generation, r.ring_seq) for r in batch]
        want = [line_key(ln) for ln in lines]
        if got != want:
            nxt = want[0][0] if want else None
            raise BatchNotContiguousError(
                f"batch holds context ids {batch[0].context_id}..{batch[-1].context_id}; "
                f"the memory cursor is {expected} and the next pending record is {nxt}: "
                "commit the consecutive records read_pending returned, starting there"
            )

    async def advance(
        self, expected: int, new: int, intents: Sequence[MemoryIntent], receipt: str | None
    ) -> None:
        """Move the memory cursor; on any failure re-read it from where it lives."""
        try:
            await self._cursor.advance(expected, new, intents, receipt)
        except BaseException:
            with contextlib.suppress(Exception):  # keep the original error
                self._cursors.memory_cursor = await self._cursor.load()
            raise
        self._cursors.memory_cursor = new

    def count(self, gaps: list[Gap]) -> int:
        """Readable records after the memory cursor (known holes excluded)."""
        low, high = self._cursors.memory_cursor, self._cursors.last_context_id
        holes = 0
        for gap in gaps:
            if gap.kind in HOLE_KINDS and gap.first is not None and gap.last is not None:
                holes += max(0, min(gap.last, high) - max(gap.first, low + 1) + 1)
        return max(0, high - low - holes)
