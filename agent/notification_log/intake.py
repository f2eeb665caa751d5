"""The intake writer: ring events -> durable log lines, and the source cursor.

`prepare` reads the ring after the source cursor (a ring whose generation
differs from the last durable one is read from its beginning), drops events
whose content fingerprint is already in the retained log (the log is the truth,
not the ring's replay window; `fingerprints.py`) and numbers the rest.
`write` then reserves the batch's ids in the state file (`id_high_water`) before
any of its bytes exist,
appends and fsyncs the batch, and only then moves the source cursor; ring
overflow since the last read is recorded as a "ring_overflow" gap first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from companion_memory.agent.notification_log.checkpoint import Checkpointer
from companion_memory.agent.notification_log.cursors import Cursors
from companion_memory.agent.notification_log.fingerprints import FingerprintIndex
from companion_memory.agent.notification_log.pending import RecentWindow
from companion_memory.agent.notification_log.recovery import GapBook
from companion_memory.agent.notification_log.state import ContextState
from companion_memory.agent.notification_log.types import (
    ConsumeResult,
    Gap,
    SourceCursor,
)
from companion_memory.ble.events import format_rfc3339, parse_rfc3339
from companion_memory.ble.ring import EventRing
from companion_memory.core.clock import Clock
from companion_memory.storage.jsonl_log import JsonlLog


@dataclass(slots=True)
class Batch:
    """One prepared consume: what to write and what to report."""

    generation: str
    next_after: int
    lost: int
    lost_gap: Gap | None
    received_at: datetime
    day: date
    first_id: int
    received: str
    entries: list[Any]
    prints: list[bytes]
    duplicates: int

    def result(self) -> ConsumeResult:
        return ConsumeResult(len(self.entries), self.lost, False, self.duplicates)

    def lines(self) -> list[dict[str, Any]]:
        """The log lines (built by `write_sync`, in the worker thread: a commit of a
        thousand events would otherwise hold the event loop for milliseconds)."""
        generation, received, first_id = self.generation, self.received, self.first_id
        return [
            {
                "context_id": first_id + i,
                "ring_generation": generation,
                "ring_seq": entry.seq,
                "received_at": received,
                **entry.event.to_dict(),
            }
            for i, entry in enumerate(self.entries)
        ]


class IntakeWriter:
    """Turns ring events into durable records; owns the storage-level intake flag."""

    def __init__(
        self, *, ring: EventRing, log: JsonlLog, state: ContextState, gaps: GapBook,
        cursors: Cursors, clock: Clock, recent: RecentWindow, prints: FingerprintIndex,
        checkpoints: Checkpointer,
    ) -> None:
        self._ring = ring
        self._log = log
        self._state = state
        self._gaps = gaps
        self._cursors = cursors
        self._clock = clock
        self._recent = recent
        self._prints = prints
        self._checkpoints = checkpoints
        self.enabled = True
        self.dirty = False
        """The intake flag changed since it was last written to the state file."""

    def set_enabled(self, enabled: bool) -> None:
        if enabled != self.enabled:
            self.enabled = enabled
            self.dirty = True

    def persist_flag_sync(self) -> None:
        self._state.update(intake_enabled=self.enabled)
        self.dirty = False

    def seed_replay_window(self) -> None:
        """A new process has a new ring with an empty replay window: seed it with the
        fingerprints of the newest records of the log (reads at most the window's
        worth of sidecar entries), so most re-sent events are dropped before they take
        ring space; `prepare` refuses the rest against every retained record."""
        window = self._ring.replay_window
        if window == 0:
            return
        newest = self._prints.newest(window)
        if newest:
            self._ring.remember(newest)

    @property
    def ready(self) -> bool:
        """Whether `prepare` can run now (every retained fingerprint is in memory)."""
        return self._prints.loaded

    def load_sync(self) -> None:
        """Load the retained fingerprints (the first consume after open)."""
        self._prints.load_all()

    def prepare(self, limit: int) -> Batch | None:
        """Read and number the next batch (no I/O; needs `ready`); None when the ring
        has nothing new."""
        generation = self._ring.generation
        source = self._cursors.source
        after = source.ring_seq if source.ring_generation == generation else 0
        read = self._ring.events_since(after, limit)
        if not read.entries and not read.lost:
            return None
        lost_gap = (
            self._gaps.make("ring_overflow", after + 1, after + read.lost, read.lost,
                            "ring_overwrote_unread", ref=f"ring:{generation}")
            if read.lost
            else None
        )
        now = self._clock.now().astimezone(UTC)
        received = format_rfc3339(now)
        received_at = parse_rfc3339(received, "received_at")  # as read back from the log
        first_id = self._cursors.last_context_id + 1
        known = self._prints
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
        return Batch(generation, read.next_after, read.lost, lost_gap, received_at, now.date(),
                     first_id, received, fresh, fresh_prints, len(read.entries) - len(fresh))

    def write_sync(self, batch: Batch) -> None:
        """Make `batch` durable, then move the cursors (nothing moves if it raises)."""
        if batch.entries:
            last_id = batch.first_id + len(batch.entries) - 1
            # Reserve the batch's ids durably before any of its bytes exist.
            if batch.lost_gap is not None:
                self._state.add_gap(batch.lost_gap, id_high_water=last_id)
            else:
                self._state.update(id_high_water=last_id)
            self._log.append_batch(batch.lines(), batch.day)
            self._cursors.last_context_id = last_id
        elif batch.lost_gap is not None:
            self._state.add_gap(batch.lost_gap)
        self._cursors.source = SourceCursor(batch.generation, batch.next_after)

    def written(self, batch: Batch) -> None:
        """After `write_sync` returned: remember the batch's prints and records."""
        if not batch.entries:
            return
        for i, fp in enumerate(batch.prints):
            self._prints.add(batch.first_id + i, fp)
        self._checkpoints.appended += len(batch.entries)
        self._recent.remember(batch.first_id, batch.generation, batch.received_at,
                              batch.entries)
