"""The UTC-date-sharded JSON Lines log with a crc per line and torn-tail repair.

Layout: `<directory>/YYYY-MM-DD.jsonl`, one JSON object per line. Every line
carries an integer `context_id` (strictly increasing across the whole log) and,
as its last key, `crc`: the crc32 of the line's canonical JSON without `crc`
(orjson, sorted keys, compact), which is exactly the line's bytes up to
`,"crc":` followed by `}`. Lines are plain JSON, so `jq`, `grep` and `cat` read
them directly.

Durability: `append_batch` serializes the batch to one buffer, appends it with
one write, fsyncs the shard once, and fsyncs the directory when the shard is
new; only then does it return. A failed append marks the log as needing
recovery: the next `recover()` cuts the shard back to its last synced size
(an fsync error is never retried; the pages may already be gone).

Recovery (`recover()`): the newest shard's tail is cut back to the last line
that is complete, parses and passes its crc, or that is complete and shaped like
a record (a whole line ending in `,"crc":<digits>}`: a torn append never leaves
one, so such a line is an acknowledged record damaged later). Only that torn
tail may be cut. Any other invalid line is corruption: it stays on disk
untouched, is listed in the report with the context ids it must have held, and
reads skip it; `recover(strict=True)` raises `CorruptLogError` instead. A record
whose context id does not increase (a day file restored from a backup) is left
in place, reported as misordered and skipped by reads. Empty shard files (a
crash right after creation) are removed. A shard name that is a symbolic link,
a directory or another special file is never opened: it is reported in
`RecoveryReport.unsafe` and left alone. `recover(repair=False)` scans and
reports the same way but changes nothing on disk (for read-only commands).

All methods are synchronous and do blocking I/O: callers run them on a worker
thread. The class is not thread-safe; callers serialize access.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from companion_memory.core.errors import InvalidInputError, StateError, StorageFailureError
from companion_memory.storage.atomic import ensure_dir
from companion_memory.storage.fs import FileSystem, NotRegularFileError
from companion_memory.storage.journal import decode_crc_line, encode_crc_line, looks_complete

SHARD_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})\.jsonl$")
INDEX_EVERY = 32
"""One sparse index entry (context_id, offset) per this many lines."""
READ_CHUNK = 64 * 1024

_CONTEXT_ID = re.compile(rb'"context_id":(\d{1,18})[,}]')


class CorruptLogError(StorageFailureError):
    """A log line in the middle of the log is not a complete record passing its crc.

    Such a line is never dropped silently: it stays on disk, recovery lists it and
    reads skip it only once it has been reported. `path` and `offset` locate it.
    """

    code = "corrupt_log"

    def __init__(self, path: str, offset: int, reason: str) -> None:
        self.path = path
        self.offset = offset
        super().__init__(
            f"{path} at byte {offset}: {reason}; corruption is reported, never cut "
            "(only the newest shard's incomplete tail may be repaired)"
        )


class LogOrderError(InvalidInputError):
    """An append did not continue the log's context ids (increasing; +1 within a batch)."""

    code = "log_order"


class LogNeedsRecoveryError(StateError):
    """An earlier append failed; call `recover()` before appending or reading."""

    code = "log_needs_recovery"


@dataclass(frozen=True, slots=True)
class ShardInfo:
    day: date
    path: str
    first_id: int
    last_id: int
    size_bytes: int
    records: int = 0


@dataclass(frozen=True, slots=True)
class TornTail:
    """Bytes cut from the end of the newest shard at recovery (never acknowledged).

    `first_id`/`last_id` bound the context ids the cut bytes held: the id after the
    last valid record, and the highest of that id plus the cut lines less one and
    every context id still legible in the cut bytes. A caller that reserved ids
    before appending knows the exact end and may widen it.
    """

    day: date
    path: str
    offset: int
    bytes_cut: int
    lines_cut: int
    first_id: int = 0
    last_id: int = 0


@dataclass(frozen=True, slots=True)
class UnsafeEntry:
    """A name in the log directory that looks like a shard but is not a regular file."""

    path: str
    kind: str


@dataclass(frozen=True, slots=True)
class CorruptRun:
    """Consecutive invalid lines followed by a valid record; left on disk.

    `first_id`/`last_id` are the context ids the run must have held (between the
    valid neighbours), None when there is no valid record before or after it.
    """

    day: date
    path: str
    offset: int
    lines: int
    bytes: int
    first_id: int | None
    last_id: int | None


@dataclass(frozen=True, slots=True)
class RecoveryReport:
    shards: list[ShardInfo]
    records: int
    last_id: int | None
    torn: list[TornTail]
    corrupt: list[CorruptRun]
    removed_empty: list[str]
    repaired_after_failure: bool = False
    misordered: list[CorruptRun] = field(default_factory=list)
    """Valid records whose context id does not increase; left on disk, skipped by reads."""
    unsafe: list[UnsafeEntry] = field(default_factory=list)
    repaired: bool = True
    """False for `recover(repair=False)`: torn tails and empty files were only reported."""
    bytes_read: int = 0
    """Shard bytes this recovery read (a checkpoint spares the unchanged ones)."""
    from_checkpoint: dict[str, int] = field(default_factory=dict)
    """Shard name -> leading records taken from the checkpoint (not passed to `on_record`)."""


@dataclass(slots=True)
class _Shard:
    day: date
    path: str
    size: int
    first_id: int
    last_id: int
    records: int
    index_ids: list[int] = field(default_factory=list)
    index_offsets: list[int] = field(default_factory=list)
    corrupt_offsets: set[int] = field(default_factory=set)
    identity: str = ""
    """`FileSystem.identity` of the file ("" until a checkpoint asks for it)."""
    clean_end: bool = False
    """The last line is a valid record continuing the ids (a checkpoint may end here)."""
    last_offset: int = 0
    """Offset of the last line when `clean_end`."""
    unindexed: bool = False
    """Taken from a checkpoint: the sparse index is built on the shard's first read."""

    def info(self) -> ShardInfo:
        return ShardInfo(self.day, self.path, self.first_id, self.last_id, self.size, self.records)


def shard_name(day: date) -> str:
    return f"{day.isoformat()}.jsonl"


def encode_line(obj: dict[str, Any]) -> bytes:
    """One log line (with its trailing newline) for `obj`, `crc` added as last key."""
    if "crc" in obj:
        raise InvalidInputError("a log line must not carry its own 'crc' key")
    if not isinstance(obj.get("context_id"), int):
        raise InvalidInputError("a log line needs an integer 'context_id'")
    return encode_crc_line(obj)


def decode_line(raw: bytes) -> dict[str, Any] | None:
    """The record of one line (without its newline), or None if it is not valid."""
    obj = decode_crc_line(raw)
    if obj is None:
        return None
    cid = obj.get("context_id")
    if not isinstance(cid, int) or isinstance(cid, bool):
        return None
    return obj


def _legible_ids(data: bytes) -> list[int]:
    """Context ids still readable in damaged bytes (an estimate, never trusted alone)."""
    return [int(m[1]) for m in _CONTEXT_ID.finditer(data)]


def _split_lines(data: bytes) -> list[tuple[int, int, dict[str, Any] | None]]:
    """(offset, end, record-or-None) per line; a final line without newline is invalid."""
    out: list[tuple[int, int, dict[str, Any] | None]] = []
    pos = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl < 0:
            out.append((pos, size, None))
            break
        out.append((pos, nl + 1, decode_line(data[pos:nl])))
        pos = nl + 1
    return out


CHECKPOINT_KEYS = ("name", "identity", "size", "first_id", "last_id", "records", "last_offset",
                   "bad")


def _entry_shard(entry: dict[str, Any], directory: str) -> _Shard | None:
    """The shard a checkpoint entry describes, or None when the entry is malformed."""
    try:
        if set(entry) != set(CHECKPOINT_KEYS):
            return None
        name = entry["name"]
        match = SHARD_RE.match(name) if isinstance(name, str) else None
        if match is None:
            return None
        day = date(int(match[1]), int(match[2]), int(match[3]))
        counts = [entry[k] for k in ("size", "first_id", "last_id", "records", "last_offset")]
        bad = entry["bad"]
        if not isinstance(entry["identity"], str) or not all(
            type(v) is int and v >= 0 for v in counts
        ) or not isinstance(bad, list) or not all(type(i) is int for i in bad):
            return None
        size, first, last, records, last_offset = counts
        if records < 1 or last_offset >= size or first > last:
            return None
    except (TypeError, ValueError):
        return None
    return _Shard(day, os.path.join(directory, name), size, first, last, records, [], [],
                  set(bad), entry["identity"], True, last_offset, unindexed=True)


def _entry_of(shard: _Shard) -> dict[str, Any]:
    return {
        "name": os.path.basename(shard.path), "identity": shard.identity, "size": shard.size,
        "first_id": shard.first_id, "last_id": shard.last_id, "records": shard.records,
        "last_offset": shard.last_offset, "bad": sorted(shard.corrupt_offsets),
    }


class JsonlLog:
    """The sharded, crc-checked, append-only record log in `directory`."""

    def __init__(self, fs: FileSystem, directory: str) -> None:
        self._fs = fs
        self._dir = os.fspath(directory)
        self._shards: list[_Shard] = []
        self._last: dict[str, Any] | None = None
        self._last_id: int | None = None
        self._recovered = False
        self._read_only = False
        self._failed: tuple[str, int, bool] | None = None
        """(path, synced size, shard was new) of an append that failed."""

    @property
    def directory(self) -> str:
        return self._dir

    @property
    def needs_recovery(self) -> bool:
        return not self._recovered or self._failed is not None

    @property
    def last_id(self) -> int | None:
        """The highest context id ever held since recovery (survives shard deletion)."""
        return self._last_id

    # -- recovery ------------------------------------------------------------------

    def recover(
        self,
        *,
        strict: bool = False,
        before_repair: Callable[[RecoveryReport], None] | None = None,
        repair: bool = True,
        on_record: Callable[[dict[str, Any]], None] | None = None,
        checkpoint: list[dict[str, Any]] | None = None,
    ) -> RecoveryReport:
        """Repair the newest shard's torn tail and index every shard.

        `before_repair(report)` runs after the scan and before any byte is cut, so a
        caller can record the cut durably first (a crash in between then finds and
        reports the same tail again rather than losing the report).

        `on_record(record)` is called for every record reads will return, oldest
        first, while the scan has it in hand (no second read of the log) - except
        the records a checkpoint vouched for (`RecoveryReport.from_checkpoint`).

        `checkpoint` is what `checkpoint()` returned after an earlier recovery or
        append (the caller stores it). Shards are matched to it oldest first: one
        whose identity, size and last line are as recorded is taken as it is,
        without reading it; one that only grew is scanned from its recorded end;
        from the first shard that differs otherwise (replaced, shrunk, restored,
        new) every shard is scanned whole, exactly as without a checkpoint.
        Entries for shards deleted at the front (retention) are skipped. A
        malformed checkpoint is ignored.

        With `repair=False` nothing on disk changes (no cut, no removal, no directory
        created): the report says what a repairing recovery would do, reads see the
        log as it would be after it, and appending is refused.

        Cancellation: not applicable (synchronous); a crash part-way leaves a state
        the next `recover()` repairs the same way (it is idempotent).
        """
        self._recovered = False
        self._read_only = not repair
        self._shards = []
        self._last = None
        repaired = False
        if self._failed is not None and repair:
            path, synced, new = self._failed
            if self._fs.entry_kind(path) == "file":
                if new and synced == 0:
                    self._fs.unlink(path)
                    self._fs.fsync_dir(self._dir)
                elif self._fs.size(path) != synced:
                    self._fs.truncate(path, synced)
                    self._fs.fsync(path)
            self._failed = None
            repaired = True
        if repair:
            ensure_dir(self._fs, self._dir)
        days: list[tuple[date, str]] = []
        unsafe: list[UnsafeEntry] = []
        for name in self._fs.listdir(self._dir):
            match = SHARD_RE.match(name)
            if match is None:
                continue
            try:
                day = date(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                continue
            path = os.path.join(self._dir, name)
            kind = self._fs.entry_kind(path)
            if kind != "file":
                if kind is not None:
                    unsafe.append(UnsafeEntry(path, kind))
                continue
            days.append((day, path))
        days.sort()
        known = self._matchable(checkpoint, days)
        removed: list[str] = []
        # (day, path, identity, bytes read from `base` on, base, checkpointed shard)
        contents: list[tuple[date, str, str, bytes, int, _Shard | None]] = []
        from_checkpoint: dict[str, int] = {}
        bytes_read = 0
        for position, (day, path) in enumerate(days):
            entry = known[position] if position < len(known) else None
            identity = self._fs.identity(path)
            if entry is not None and identity == entry.identity:
                size = self._fs.size(path)
                last = self._line_at(entry) if size >= entry.size else None
                if last is not None:
                    from_checkpoint[os.path.basename(path)] = entry.records
                    data = b""
                    if size > entry.size:
                        data = self._fs.read_at(path, entry.size, size - entry.size)
                        bytes_read += len(data)
                    contents.append((day, path, identity, data, entry.size, entry))
                    self._last = last  # until a record scanned after it
                    if size == entry.size:
                        continue
                    known = known[: position + 1]  # it grew: scan every later shard whole
                    continue
            known = known[:position]  # from here on, nothing is taken from the checkpoint
            data = self._fs.read_bytes(path)
            bytes_read += len(data)
            if data:
                contents.append((day, path, identity, data, 0, None))
            else:
                removed.append(path)
        if removed and repair:
            for path in removed:
                self._fs.unlink(path)
            self._fs.fsync_dir(self._dir)

        torn: list[TornTail] = []
        corrupt: list[CorruptRun] = []
        misordered: list[CorruptRun] = []
        bad_offsets: dict[str, set[int]] = {}
        shards: list[_Shard] = []
        prev_id: int | None = None
        high_id: int | None = None
        run: dict[str, Any] | None = None
        order_run: dict[str, Any] | None = None
        for position, (day, path, identity, data, base, entry) in enumerate(contents):
            newest = position == len(contents) - 1
            if entry is not None:
                shard = dataclasses.replace(
                    entry, index_ids=list(entry.index_ids),
                    index_offsets=list(entry.index_offsets),
                    corrupt_offsets=set(entry.corrupt_offsets),
                )
                bad_offsets[path] = shard.corrupt_offsets
                prev_id = high_id = shard.last_id
                if not data:  # unchanged since the checkpoint: nothing to scan
                    shards.append(shard)
                    continue
            else:
                shard = _Shard(day, path, 0, 0, 0, 0, identity=identity)
            lines = _split_lines(data)
            last_kept = max(
                (i for i, (start, end, obj) in enumerate(lines)
                 if obj is not None or (end > start and data[end - 1 : end] == b"\n"
                                        and looks_complete(data[start : end - 1]))),
                default=-1,
            )
            keep_end = lines[last_kept][1] if last_kept >= 0 else 0
            if newest and keep_end < len(data):
                cut_lines = len(lines) - last_kept - 1
                kept = lines[: last_kept + 1]
                last_valid = max((i for i, ln in enumerate(kept) if ln[2] is not None),
                                 default=-1)
                valid_ids = [ln[2]["context_id"] for ln in kept if ln[2] is not None]
                after = max([high_id or 0, *valid_ids]) + len(kept) - last_valid - 1
                legible = _legible_ids(data[keep_end:])
                first = after + 1
                last = max([after + cut_lines, *(i for i in legible if i > after)])
                torn.append(TornTail(day, path, base + keep_end, len(data) - keep_end,
                                     cut_lines, first, last))
                lines = lines[: last_kept + 1]
                data = data[:keep_end]
            shard.size = base + len(data)
            for rel_offset, rel_end, obj in lines:
                offset, end = base + rel_offset, base + rel_end
                if obj is not None and prev_id is not None and obj["context_id"] <= prev_id:
                    if order_run is None:
                        order_run = {"day": day, "path": path, "offset": offset, "lines": 0,
                                     "bytes": 0, "first": obj["context_id"]}
                    order_run["lines"] += 1
                    order_run["bytes"] += end - offset
                    order_run["last"] = obj["context_id"]
                    bad_offsets.setdefault(path, set()).add(offset)
                    shard.clean_end = False
                    continue
                if order_run is not None:
                    misordered.append(self._close_order_run(order_run))
                    order_run = None
                if obj is None:
                    if run is None:
                        run = {"day": day, "path": path, "offset": offset, "lines": 0,
                               "bytes": 0, "after": high_id}
                    run["lines"] += 1
                    run["bytes"] += end - offset
                    bad_offsets.setdefault(path, set()).add(offset)
                    shard.clean_end = False
                    continue
                cid = obj["context_id"]
                if run is not None:
                    corrupt.append(self._close_run(run, cid))
                    run = None
                if shard.records == 0:
                    shard.first_id = cid
                if shard.records % INDEX_EVERY == 0:
                    shard.index_ids.append(cid)
                    shard.index_offsets.append(offset)
                shard.records += 1
                shard.last_id = cid
                shard.clean_end = True
                shard.last_offset = offset
                prev_id = high_id = cid
                self._last = obj
                if on_record is not None:
                    on_record(obj)
            if order_run is not None:
                misordered.append(self._close_order_run(order_run))
                order_run = None
            shard.corrupt_offsets = bad_offsets.get(path, set())
            if shard.records == 0:
                shard.first_id = shard.last_id = prev_id or 0
            shards.append(shard)
        if run is not None:
            # Damaged records at the very end, kept: each line held one id after the
            # last valid one, and new records must never be given those ids.
            closed = self._close_run(run, None)
            start = closed.first_id if closed.first_id is not None else 1
            closed = dataclasses.replace(closed, first_id=start,
                                         last_id=start + closed.lines - 1)
            corrupt.append(closed)
            high_id = closed.last_id
        if strict and corrupt:
            first_run = corrupt[0]
            raise CorruptLogError(
                first_run.path, first_run.offset, f"{first_run.lines} invalid line(s)"
            )
        report = RecoveryReport(
            shards=[s.info() for s in shards if s.records],
            records=sum(s.records for s in shards),
            last_id=high_id,
            torn=torn,
            corrupt=corrupt,
            removed_empty=removed,
            repaired_after_failure=repaired,
            misordered=misordered,
            unsafe=unsafe,
            repaired=repair,
            bytes_read=bytes_read,
            from_checkpoint=from_checkpoint,
        )
        if before_repair is not None:
            before_repair(report)
        if repair:
            for cut in torn:
                self._fs.truncate(cut.path, cut.offset)
                self._fs.fsync(cut.path)
        if torn and torn[-1].offset == 0:
            # The newest shard held nothing valid: drop the empty file.
            if repair:
                self._fs.unlink(torn[-1].path)
                self._fs.fsync_dir(self._dir)
            removed.append(torn[-1].path)
            shards = [s for s in shards if s.path != torn[-1].path]
        self._shards = [s for s in shards if s.records or s.corrupt_offsets]
        if not any(s.records for s in self._shards):
            self._last = None
        self._last_id = high_id
        self._recovered = True
        return report

    def _matchable(
        self, checkpoint: list[dict[str, Any]] | None, days: list[tuple[date, str]]
    ) -> list[_Shard]:
        """The checkpointed shards that line up, oldest first, with the shards on disk."""
        if not checkpoint or not days:
            return []
        entries = [_entry_shard(e, self._dir) if isinstance(e, dict) else None
                   for e in checkpoint]
        valid = [e for e in entries if e is not None]
        if len(valid) != len(entries) or any(
            a.path >= b.path or a.last_id >= b.first_id for a, b in itertools.pairwise(valid)
        ):
            return []  # malformed: scan everything
        first = days[0][1]
        skipped = [e for e in valid if e.path < first]
        valid = valid[len(skipped):]
        if skipped and valid and valid[0].corrupt_offsets:
            # Reported lines were judged against a shard that is gone: judge them again.
            return []
        out: list[_Shard] = []
        for entry, (_day, path) in zip(valid, days, strict=False):
            if entry.path != path:
                break
            out.append(entry)
        return out

    def _line_at(self, entry: _Shard) -> dict[str, Any] | None:
        """The checkpointed shard's last record, read back and checked, or None."""
        raw = self._fs.read_at(entry.path, entry.last_offset, entry.size - entry.last_offset)
        if len(raw) != entry.size - entry.last_offset or not raw.endswith(b"\n"):
            return None
        obj = decode_line(raw[:-1])
        if obj is None or obj["context_id"] != entry.last_id:
            return None
        return obj

    def checkpoint(self) -> list[dict[str, Any]]:
        """What a later `recover(checkpoint=...)` needs to take shards without reading
        them: per shard, oldest first, its identity, length, id range, sparse index and
        reported lines - for the longest run of shards from the oldest on whose last
        line is a valid record. Empty when the log needs recovery. JSON-serializable.
        """
        if self.needs_recovery:
            return []
        out: list[dict[str, Any]] = []
        for shard in self._shards:
            if not shard.clean_end or not shard.records:
                break
            if not shard.identity:
                shard.identity = self._fs.identity(shard.path)
            out.append(_entry_of(shard))
        return out

    @staticmethod
    def _close_order_run(run: dict[str, Any]) -> CorruptRun:
        return CorruptRun(run["day"], run["path"], run["offset"], run["lines"], run["bytes"],
                          run["first"], run["last"])

    @staticmethod
    def _close_run(run: dict[str, Any], after: int | None) -> CorruptRun:
        first = run["after"] + 1 if run["after"] is not None else None
        last = after - 1 if after is not None else None
        return CorruptRun(
            run["day"], run["path"], run["offset"], run["lines"], run["bytes"], first, last
        )

    # -- writing -------------------------------------------------------------------

    def append_batch(self, lines: list[dict[str, Any]], day: date) -> ShardInfo:
        """Append `lines` durably: one write, one fsync, a directory fsync for a new shard.

        `day` is the UTC date of receipt; a day older than the newest shard (the
        clock went back) appends to the newest shard so ids stay ordered by shard.
        Raises StorageIOError (the log then needs `recover()`), LogOrderError.
        """
        self._check_writable()
        if not lines:
            raise InvalidInputError("append_batch needs at least one line")
        first = lines[0].get("context_id")
        if not isinstance(first, int):
            raise LogOrderError("every line needs an integer context_id")
        if self._last_id is not None and first <= self._last_id:
            raise LogOrderError(
                f"batch starts at context id {first}; the log already holds {self._last_id}"
            )
        for i, line in enumerate(lines):
            if line.get("context_id") != first + i:
                raise LogOrderError("context ids in a batch must increase by exactly one")
        newest = self._shards[-1] if self._shards else None
        if newest is not None and day < newest.day:
            day = newest.day
        path = os.path.join(self._dir, shard_name(day))
        shard = newest if newest is not None and newest.day == day else None
        if shard is None:
            kind = self._fs.entry_kind(path)
            if kind not in (None, "file"):
                if newest is None:
                    raise NotRegularFileError("append", path, kind)
                # The day's name is taken by something that is not ours to write
                # through: keep appending to the newest shard (ids stay ordered by
                # shard; that shard's records then reach into this day).
                shard, day, path = newest, newest.day, newest.path
        encoded = [encode_line(line) for line in lines]
        data = b"".join(encoded)
        synced = shard.size if shard is not None else 0
        self._failed = (path, synced, shard is None)
        self._fs.append(path, data)
        self._fs.fsync(path)
        if shard is None:
            self._fs.fsync_dir(self._dir)
        self._failed = None
        if shard is None:
            shard = _Shard(day, path, 0, first, first, 0)
            self._shards.append(shard)
        offset = shard.size
        for i, raw in enumerate(encoded):
            if shard.records % INDEX_EVERY == 0:
                shard.index_ids.append(first + i)
                shard.index_offsets.append(offset)
            shard.records += 1
            shard.last_offset = offset
            offset += len(raw)
        shard.size = offset
        shard.clean_end = True
        shard.last_id = first + len(lines) - 1
        self._last_id = shard.last_id
        self._last = decode_line(encoded[-1][:-1])
        return shard.info()

    def delete_shard(self, day: date) -> int:
        """Remove the shard of `day` durably (unlink + directory fsync); bytes freed."""
        self._check_writable()
        for shard in self._shards:
            if shard.day == day:
                self._fs.unlink(shard.path)
                self._fs.fsync_dir(self._dir)
                self._shards.remove(shard)
                if not any(s.records for s in self._shards):
                    self._last = None
                return shard.size
        return 0

    # -- reading -------------------------------------------------------------------

    def shards(self) -> list[ShardInfo]:
        return [s.info() for s in self._shards if s.records]

    def last_line(self) -> dict[str, Any] | None:
        """The newest record still in the log, or None when the log is empty."""
        return self._last

    def read_after(self, context_id: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` records with context id > `context_id`, oldest first.

        Reported corrupt lines are skipped; a newly found invalid line raises
        CorruptLogError.
        """
        self._check_ready()
        if limit < 1:
            raise InvalidInputError("limit must be at least 1")
        out: list[dict[str, Any]] = []
        for shard in self._shards:
            if not shard.records or shard.last_id <= context_id:
                continue
            if shard.unindexed:
                self._index(shard)
            pos = bisect.bisect_right(shard.index_ids, context_id + 1) - 1
            start = shard.index_offsets[pos] if pos >= 0 else 0
            for obj in self._scan(shard, start):
                if obj["context_id"] > context_id:
                    out.append(obj)
                    if len(out) >= limit:
                        return out
        return out

    def read_shard(self, day: date) -> list[dict[str, Any]]:
        """Every readable record of the shard of `day` (empty if there is none)."""
        self._check_ready()
        for shard in self._shards:
            if shard.day == day:
                return list(self._scan(shard, 0))
        return []

    def _index(self, shard: _Shard) -> None:
        """Build the sparse index of a shard taken from a checkpoint (one read of it)."""
        ids: list[int] = []
        offsets: list[int] = []
        for records, obj in enumerate(self._scan(shard, 0, offsets=True)):
            if records % INDEX_EVERY == 0:
                ids.append(obj["context_id"])
                offsets.append(obj["\0offset"])
        shard.index_ids, shard.index_offsets, shard.unindexed = ids, offsets, False

    def _scan(self, shard: _Shard, start: int, *, offsets: bool = False
              ) -> Iterator[dict[str, Any]]:
        pos = start
        buf = b""
        while pos < shard.size:
            chunk = self._fs.read_at(shard.path, pos, min(READ_CHUNK, shard.size - pos))
            if not chunk:
                raise CorruptLogError(shard.path, pos, "shard is shorter than recorded")
            base = pos - len(buf)
            buf += chunk
            pos += len(chunk)
            line_start = 0
            while True:
                nl = buf.find(b"\n", line_start)
                if nl < 0:
                    break
                offset = base + line_start
                if offset not in shard.corrupt_offsets:  # reported: damaged or misordered
                    obj = decode_line(buf[line_start:nl])
                    if obj is None:
                        raise CorruptLogError(shard.path, offset, "line fails its crc")
                    if offsets:
                        obj["\0offset"] = offset
                    yield obj
                line_start = nl + 1
            buf = buf[line_start:]
        if buf:
            raise CorruptLogError(shard.path, shard.size - len(buf), "incomplete last line")

    def _check_writable(self) -> None:
        self._check_ready()
        if self._read_only:
            raise LogNeedsRecoveryError(
                "the log was opened read-only (recover(repair=False)); it cannot be changed"
            )

    def _check_ready(self) -> None:
        if not self._recovered:
            raise LogNeedsRecoveryError("call recover() before using the log")
        if self._failed is not None:
            raise LogNeedsRecoveryError(
                "an earlier append failed; recover() cuts its partial bytes before the next use"
            )
