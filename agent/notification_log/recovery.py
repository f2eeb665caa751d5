"""Recovery at open (and after a failed write) and the gap book.

`GapBook` makes and records gaps: written to the state's gap record before the
action they describe, so a crash can repeat a gap (de-duplicated) but never lose
one; read-only, kept in memory (what a repairing open would record).

`Recovery` recovers the log, turns what the scan found (torn tails, corrupt and
misordered lines, unsafe entries, ids reserved for a batch that never became
readable, a state hint ahead of the log) into gaps, and derives the source
cursor and the highest context id from the log and the state file. The log
reads only what changed since the last checkpoint (`checkpoint.py`); the
fingerprints of the records it scans are added to the index, those of the
shards it took from the checkpoint stay in their sidecars until first use.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, TypeVar

from companion_memory.agent.notification_log.checkpoint import Checkpointer
from companion_memory.agent.notification_log.cursors import Cursors
from companion_memory.agent.notification_log.fingerprints import FingerprintIndex
from companion_memory.agent.notification_log.state import ContextState
from companion_memory.agent.notification_log.types import Gap, SourceCursor, line_fingerprint
from companion_memory.core.clock import Clock
from companion_memory.storage.jsonl_log import CorruptLogError, JsonlLog, RecoveryReport

T = TypeVar("T")

log = logging.getLogger("companion_memory.agent.notification_log.log")

HOLE_KINDS = ("corrupt_record", "cursor_ahead", "torn_tail", "unused_ids")
"""Gaps whose context ids hold no readable record."""


class GapBook:
    """Makes gaps (stamped by the clock) and records them in the state file."""

    def __init__(self, state: ContextState, clock: Clock, *, read_only: bool) -> None:
        self._state = state
        self._clock = clock
        self._read_only = read_only
        self.unrecorded: list[Gap] = []
        """Read-only: the gaps a repairing open would have recorded."""

    def make(
        self, kind: str, first: int | None, last: int | None, count: int, reason: str,
        ref: str | None = None,
    ) -> Gap:
        return Gap(kind, first, last, count, reason, self._clock.now(), ref)

    def store(self, gap: Gap, **changes: Any) -> Gap:
        """Record `gap` (and `changes`) durably; read-only: keep it in memory."""
        if self._read_only:
            if all(g.identity() != gap.identity() for g in self.unrecorded):
                self.unrecorded.append(gap)
            return gap
        return self._state.add_gap(gap, **changes)

    def listed(self) -> list[Gap]:
        """The recorded gaps; read-only, also those a repairing open would record."""
        stored = self._state.gaps()
        if not self.unrecorded:
            return stored
        seen = {g.identity() for g in stored}
        return stored + [g for g in self.unrecorded if g.identity() not in seen]

    def cached(self) -> list[Gap] | None:
        """The gaps without I/O, or None when they must be read (see `ContextState`)."""
        gaps = self._state.cached_gaps()
        if gaps is None or not self.unrecorded:
            return gaps
        seen = {g.identity() for g in gaps}
        return gaps + [g for g in self.unrecorded if g.identity() not in seen]


class Recovery:
    """Recovers the log and derives the cursors; synchronous (run it on a worker thread)."""

    def __init__(
        self,
        *,
        log: JsonlLog,
        state: ContextState,
        gaps: GapBook,
        cursors: Cursors,
        read_only: bool,
        on_reset: Callable[[], None],
        prints: FingerprintIndex,
        checkpoints: Checkpointer,
    ) -> None:
        self._log = log
        self._state = state
        self._gaps = gaps
        self._cursors = cursors
        self._read_only = read_only
        self._on_reset = on_reset
        self._prints = prints
        self._checkpoints = checkpoints
        self.last_report: RecoveryReport | None = None

    def ready(self) -> None:
        """Recover first when an earlier write failed (the log needs it)."""
        if self._log.needs_recovery and not self._read_only:
            self.recover("cut_after_io_error")

    def read(self, fn: Callable[[], T]) -> T:
        """Run the log read `fn`; when it meets a line the open did not scan and that
        fails its crc (damage inside a shard the checkpoint vouched for), scan the
        whole log again - the damage is then reported as a gap like any other and
        reads skip it - and run `fn` once more."""
        self.ready()
        try:
            return fn()
        except CorruptLogError:
            self.recover("rescan_after_corrupt_read", full=True)
            return fn()

    def recover(self, reason: str, *, full: bool = False) -> None:
        """Recover the log (`full`: scan every shard, trusting no checkpoint)."""
        data = self._state.load()  # validated first: a bad state file changes nothing
        high_water = int(data.get("id_high_water", 0))
        torn_lasts: list[int] = []
        make, store = self._gaps.make, self._gaps.store

        def record(report: RecoveryReport) -> None:
            for entry in report.unsafe:
                log.warning("%s is a %s, not a log shard: never opened; move it out of "
                            "the data root", entry.path, entry.kind)
                store(make(
                    "unsafe_entry", None, None, 0, f"not_a_regular_file:{entry.kind}",
                    ref=os.path.basename(entry.path),
                ))
            for torn in report.torn:
                name = os.path.basename(torn.path)
                last = max(torn.last_id, high_water) if torn is report.torn[-1] else torn.last_id
                torn_lasts.append(last)
                store(make(
                    "torn_tail", torn.first_id, last, last - torn.first_id + 1, reason,
                    ref=f"{name}@{torn.offset}+{torn.bytes_cut}",
                ))
            for run in report.corrupt:
                known = run.first_id is not None and run.last_id is not None
                count = run.last_id - run.first_id + 1 if known else run.lines  # type: ignore[operator]
                store(make(
                    "corrupt_record", run.first_id, run.last_id, count, "crc_mismatch",
                    ref=f"{os.path.basename(run.path)}@{run.offset}",
                ))
            for run in report.misordered:
                store(make(
                    "misordered_record", run.first_id, run.last_id, run.lines,
                    "context_ids_go_backwards", ref=f"{os.path.basename(run.path)}@{run.offset}",
                ))

        prints = self._prints
        prints.reset()

        def keep(line: dict[str, Any]) -> None:
            prints.add(line["context_id"], line_fingerprint(line))

        self._on_reset()  # a recovery may cut what read_pending returned or consume appended
        self.last_report = report = self._log.recover(
            before_repair=record, repair=not self._read_only, on_record=keep,
            checkpoint=None if full else self._checkpoints.shards(),
        )
        prints.cover(self._checkpoints.recovered(report))
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
                store(make(
                    "cursor_ahead", log_last + 1, hint_id, hint_id - log_last,
                    "state_hint_ahead_of_log", ref=f"hint@{hint_id}",
                ))
            last_id = max(last_id, hint_id)
        floor = max(last_id, self._cursors.last_context_id, *torn_lasts)
        known_holes = [g for g in self._gaps.listed()
                       if g.kind in HOLE_KINDS and g.last is not None]
        if high_water > floor and all(g.last < high_water for g in known_holes):  # type: ignore[operator]
            # Ids reserved for a batch that never became readable: a crash before any
            # byte landed, or an append that failed and was cut back. Never reuse them.
            failed = report.repaired_after_failure
            store(make(
                "unused_ids" if failed else "torn_tail", floor + 1, high_water,
                high_water - floor, "append_failed" if failed else f"{reason}:not_written",
                ref=f"ids@{high_water}",
            ))
        self._cursors.source = source
        self._cursors.last_context_id = max(floor, high_water)

    def memory_cursor_loaded(self, memory_cursor: int) -> None:
        """At open: a memory cursor ahead of the log is a gap; ids up to it are never reused."""
        cursors = self._cursors
        cursors.memory_cursor = memory_cursor
        if memory_cursor > cursors.last_context_id:
            gap = self._gaps.make(
                "cursor_ahead", cursors.last_context_id + 1, memory_cursor,
                memory_cursor - cursors.last_context_id, "memory_cursor_ahead_of_log",
                ref=f"memory@{memory_cursor}",
            )
            self._gaps.store(gap)
            cursors.last_context_id = memory_cursor

