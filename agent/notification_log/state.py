"""`notifications/state.json` and the memory cursors.

The state file holds what the log itself cannot: a source-cursor hint
(written at cleanup and close, so the cursor survives deleting every shard),
the highest context id ever deleted, the storage-level pause, and - with the
`StateFileCursor` - the memory cursor. The gaps are in their own append-only
record beside it (`gaps.jsonl`, see `ContextState`). It is replaced atomically
(`storage.atomic.write_json_atomic`). After a failed write the in-memory copy is
re-read from disk before the next change, so memory and disk never disagree.

`ContextState` methods are synchronous and blocking (run them in a thread); a
`threading.Lock` serializes them because consume and commit run on different
worker threads.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from companion_memory.agent.notification_log.types import Gap, IntentsNeedStoreError
from companion_memory.ble.events import InvalidEventError, parse_rfc3339
from companion_memory.core.errors import StateError
from companion_memory.memory.intents import CursorAdvance
from companion_memory.memory.records import CursorConflictError, MemoryIntent
from companion_memory.memory.store import MemoryStore
from companion_memory.storage.atomic import CorruptStateError, read_json, write_json_atomic
from companion_memory.storage.fs import FileSystem
from companion_memory.storage.journal import Journal

STATE_VERSION = 1
MAX_GAPS = 10_000
"""Older gaps beyond this are folded into `gaps_dropped` (a count, still reported)."""
GAPS_FILE = "gaps.jsonl"
"""The gap record, beside the state file."""


class ContextState:
    """The parsed state file plus its atomic writer, and the gap record beside it.

    Gaps live in `gaps.jsonl` (a `storage.journal.Journal`: one fsynced line per
    gap, a torn last line cut), so recording one costs O(1). A state file written
    before that holds its gaps under "gaps" (and a "gaps_dropped" count): the first
    repairing load moves them to the journal (journal first, atomically; then the
    state file without them), so a crash in between finds them in both places and
    moves the union again. With `read_only` nothing is written; the union is only
    kept in memory.
    """

    def __init__(self, fs: FileSystem, path: str, *, read_only: bool = False) -> None:
        self._fs = fs
        self.fs = fs
        self.path = path
        self._read_only = read_only
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {}
        self._journal = Journal(fs, os.path.join(os.path.dirname(path), GAPS_FILE))
        self._gaps: deque[dict[str, Any]] = deque()
        self._identities: dict[tuple[Any, ...], dict[str, Any]] = {}
        """Identity -> entry of every kept gap (de-duplication in O(1))."""
        self._dropped = 0
        self._journal_lines = 0
        self._stale = True

    @property
    def gaps_path(self) -> str:
        return self._journal.path

    def exists(self) -> bool:
        return self._fs.exists(self.path)

    def load(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._current())

    def _current(self) -> dict[str, Any]:
        if self._stale:
            raw = read_json(self._fs, self.path)
            if raw is None:
                raw = {"version": STATE_VERSION}
            _validate(self.path, raw)
            records = self._journal.load(repair=not self._read_only)
            own, from_state, gaps = _validate_journal(self._journal.path, records)
            lines = len(records)
            legacy = raw.pop("gaps", None)
            if legacy is not None or "gaps_dropped" in raw:
                # Written before gaps had their own record: move them over. A crash
                # after the journal was replaced finds them in both: the union again,
                # and the state's folded count replaces (never adds to) the one the
                # journal took from it.
                from_state = int(raw.pop("gaps_dropped", 0))
                seen = {_identity(g) for g in gaps}
                gaps += [g for g in legacy or [] if _identity(g) not in seen]
                if not self._read_only:
                    self._journal.rewrite([{"dropped": own, "from_state": from_state}, *gaps])
                    write_json_atomic(self._fs, self.path, raw)
                    lines = len(gaps) + 1
            dropped = own + from_state
            self._data = raw
            self._set_gaps(gaps, dropped)
            self._journal_lines = lines
            self._stale = False
        return self._data

    def _set_gaps(self, gaps: list[dict[str, Any]], dropped: int) -> None:
        if len(gaps) > MAX_GAPS:
            dropped += len(gaps) - MAX_GAPS
            gaps = gaps[-MAX_GAPS:]
        self._gaps = deque(gaps)
        self._dropped = dropped
        self._identities = {_identity(g): g for g in gaps}

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return self._current().get(key, default)

    def update(self, **changes: Any) -> None:
        """Write the state with `changes` applied; durable on return."""
        with self._lock:
            self._write({**self._current(), **changes})

    def _write(self, new: dict[str, Any]) -> None:
        try:
            write_json_atomic(self._fs, self.path, new)
        except BaseException:
            self._stale = True
            raise
        self._data = new

    def gaps(self) -> list[Gap]:
        with self._lock:
            self._current()
            return [Gap.from_dict(g) for g in self._gaps]

    @property
    def gaps_dropped(self) -> int:
        """Older gaps folded into a count (beyond `MAX_GAPS`)."""
        with self._lock:
            self._current()
            return self._dropped

    def cached_gaps(self) -> list[Gap] | None:
        """The gaps without any I/O (safe on the event loop), or None when the file
        must be (re)read or another thread holds the lock right now."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            if self._stale:
                return None
            return [Gap.from_dict(g) for g in self._gaps]
        finally:
            self._lock.release()

    def add_gap(self, gap: Gap, **changes: Any) -> Gap:
        """Record `gap` unless the same gap (kind, first, last, ref) is already there,
        then write `changes` to the state file. Appends one line: O(1)."""
        with self._lock:
            current = self._current()
            existing = self._identities.get(gap.identity())
            if existing is not None:
                if changes:
                    self._write({**current, **changes})
                return Gap.from_dict(existing)
            entry = gap.to_dict()
            try:
                self._journal.append(entry)
            except BaseException:
                self._stale = True
                raise
            self._journal_lines += 1
            self._gaps.append(entry)
            self._identities[gap.identity()] = entry
            while len(self._gaps) > MAX_GAPS:  # fold the oldest: O(1) per gap
                self._identities.pop(_identity(self._gaps.popleft()), None)
                self._dropped += 1
            if self._journal_lines > 2 * MAX_GAPS:
                self._compact()
            if changes:
                self._write({**current, **changes})
            return gap

    def _compact(self) -> None:
        """Rewrite the journal with the kept gaps only (every `MAX_GAPS` appends: O(1)
        amortized); a crash leaves the old or the new file, both complete."""
        try:
            self._journal.rewrite([{"dropped": self._dropped}, *self._gaps])
        except BaseException:
            self._stale = True
            raise
        self._journal_lines = len(self._gaps) + 1

    def advance_memory_cursor(self, expected: int, new: int) -> None:
        with self._lock:
            current = self._current()
            stored = int(current.get("memory_cursor", 0))
            if stored != expected:
                raise CursorConflictError(
                    f"memory cursor is at {stored}, the advance expected {expected}"
                )
            self._write({**current, "memory_cursor": new})


def _identity(gap: dict[str, Any]) -> tuple[Any, ...]:
    return (gap["kind"], gap.get("first"), gap.get("last"), gap.get("ref"))


def _validate_journal(path: str, records: list[dict[str, Any]]
                      ) -> tuple[int, int, list[dict[str, Any]]]:
    """(gaps folded by the journal, gaps folded in a migrated state file, gaps) of the
    journal's records, each gap checked like the state file's."""
    own = from_state = 0
    gaps: list[dict[str, Any]] = []
    for i, record in enumerate(records):
        if "kind" not in record and "dropped" in record:
            for key in ("dropped", "from_state"):
                if not _is_count(record.get(key, 0)):
                    raise _bad(path, f"record {i + 1}.{key}", "a non-negative integer",
                               record[key])
            own += record["dropped"]
            from_state += record.get("from_state", 0)
            continue
        _validate_gap(path, f"record {i + 1}", record)
        gaps.append(record)
    return own, from_state, gaps


_COUNTERS = ("version", "gaps_dropped", "memory_cursor", "deleted_through", "id_high_water")


def _bad(path: str, key: str, want: str, value: Any) -> CorruptStateError:
    found = "null" if value is None else type(value).__name__
    return CorruptStateError(
        f"state file {path}: key '{key}' must be {want} (found {found}); "
        "fix that value or move the file aside to start over"
    )


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _validate(path: str, data: dict[str, Any]) -> None:
    """Refuse a state file whose known keys hold the wrong types, naming the key.

    Checked once per read, before anything is derived from it, so a bad value is a
    clear error at open instead of a failure deep in recovery."""
    for key in _COUNTERS:
        if key in data and not _is_count(data[key]):
            raise _bad(path, key, "a non-negative integer", data[key])
    if "intake_enabled" in data and not isinstance(data["intake_enabled"], bool):
        raise _bad(path, "intake_enabled", "true or false", data["intake_enabled"])
    hint = data.get("source_hint")
    if "source_hint" in data and hint is not None:
        if not isinstance(hint, dict):
            raise _bad(path, "source_hint", "an object", hint)
        for key in ("context_id", "ring_seq"):
            if key in hint and not _is_count(hint[key]):
                raise _bad(path, f"source_hint.{key}", "a non-negative integer", hint[key])
        generation = hint.get("ring_generation")
        if generation is not None and not isinstance(generation, str):
            raise _bad(path, "source_hint.ring_generation", "a string or null", generation)
    gaps = data.get("gaps", [])
    if not isinstance(gaps, list):
        raise _bad(path, "gaps", "a list", gaps)
    for i, gap in enumerate(gaps):
        _validate_gap(path, f"gaps[{i}]", gap)


def _validate_gap(path: str, where: str, gap: Any) -> None:
    if not isinstance(gap, dict):
        raise _bad(path, where, "an object", gap)
    for key in ("kind", "reason"):
        if not isinstance(gap.get(key), str):
            raise _bad(path, f"{where}.{key}", "a string", gap.get(key))
    for key in ("first", "last"):
        if gap.get(key) is not None and not _is_count(gap[key]):
            raise _bad(path, f"{where}.{key}", "a non-negative integer or null", gap[key])
    if not _is_count(gap.get("count", 0)):
        raise _bad(path, f"{where}.count", "a non-negative integer", gap.get("count"))
    if gap.get("ref") is not None and not isinstance(gap["ref"], str):
        raise _bad(path, f"{where}.ref", "a string or null", gap["ref"])
    try:
        parse_rfc3339(gap.get("at"), "at")  # type: ignore[arg-type]
    except (InvalidEventError, TypeError, ValueError):
        raise _bad(path, f"{where}.at", "an RFC 3339 time", gap.get("at")) from None


@runtime_checkable
class MemoryCursor(Protocol):
    """Where the memory cursor (last processed context id, 0 = none) lives."""

    async def load(self) -> int: ...

    async def advance(
        self,
        expected: int,
        new: int,
        intents: Sequence[MemoryIntent],
        receipt: str | None,
    ) -> None:
        """Move the cursor from `expected` to `new` atomically with `intents`."""
        ...


class StateFileCursor:
    """The memory cursor in `notifications/state.json`; refuses memory intents.

    Use it where no memory store exists (intake-only tools, tests). The
    `NotificationContext` attaches it to its state file on open.
    """

    def __init__(self) -> None:
        self._state: ContextState | None = None

    def attach(self, state: ContextState) -> None:
        self._state = state

    def _require(self) -> ContextState:
        if self._state is None:
            raise StateError("StateFileCursor is used through NotificationContext.open")
        return self._state

    async def load(self) -> int:
        state = self._require()
        return int(await asyncio.to_thread(state.get, "memory_cursor", 0))

    async def advance(
        self,
        expected: int,
        new: int,
        intents: Sequence[MemoryIntent],
        receipt: str | None,
    ) -> None:
        if intents:
            raise IntentsNeedStoreError(
                "the state-file memory cursor cannot write memory intents; "
                "use StoreMemoryCursor(store) so intents and cursor commit together"
            )
        state = self._require()
        await asyncio.to_thread(state.advance_memory_cursor, expected, new)


class StoreMemoryCursor:
    """The memory cursor in the memory store, advanced in the intents' transaction."""

    def __init__(self, store: MemoryStore, name: str = "notifications") -> None:
        self._store = store
        self.name = name

    async def load(self) -> int:
        return await self._store.get_cursor(self.name)

    async def advance(
        self,
        expected: int,
        new: int,
        intents: Sequence[MemoryIntent],
        receipt: str | None,
    ) -> None:
        await self._store.apply(
            intents, cursor=CursorAdvance(self.name, expected, new), receipt=receipt,
            origin="notifications",
        )
