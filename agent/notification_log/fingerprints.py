"""The content fingerprint of every retained record, persisted beside the log.

`consume` refuses a ring event whose fingerprint is already in the retained log,
however many times a feed or a phone re-sends it. The fingerprints are kept per
shard in `notifications/prints/<day>.fp`: fixed 24-byte entries (the 16-byte
fingerprint, then the context id as 8 bytes big-endian) in log order, one per
record the shard's reads return. A sidecar is trusted only as far as the
checkpoint (`checkpoint.py`) vouches for it: its first `count` entries,
whose crc32 the checkpoint holds. Bytes past that (a crash between writing a
sidecar and the checkpoint) are ignored and cut at the next checkpoint; a
missing or damaged sidecar is rebuilt from the log, so a lost sidecar costs a
read, never a duplicate.

Nothing is read at open beyond what seeds the ring's replay window (the newest
entries); the rest is loaded on first use (`load_all`, before the first
`consume` checks a batch). Fingerprints of records scanned at open or appended
since are "fresh" (in memory only) until a checkpoint writes them out.

Synchronous and blocking where it does I/O; callers run it on a worker thread
and serialize access.
"""

from __future__ import annotations

import bisect
import os
import struct
import zlib
from collections.abc import Callable
from datetime import date

from companion_memory.agent.notification_log.types import line_fingerprint
from companion_memory.core.errors import StateError
from companion_memory.storage.atomic import ensure_dir
from companion_memory.storage.fs import FileSystem
from companion_memory.storage.jsonl_log import SHARD_RE, JsonlLog

PRINTS_DIR = "prints"
"""The sidecars' directory, beside the state file."""
ENTRY = struct.Struct(">16sQ")
"""One sidecar entry: fingerprint, context id."""

Covered = dict[str, tuple[int, int | None]]
"""Shard name -> (entries vouched for, their crc32; None: rebuild from the log)."""


def sidecar_name(shard: str) -> str:
    return shard.removesuffix(".jsonl") + ".fp"


class FingerprintIndex:
    """Fingerprint -> context id of every record in the retained log."""

    def __init__(self, fs: FileSystem, directory: str, log: JsonlLog) -> None:
        self._fs = fs
        self.directory = directory
        self._log = log
        self._map: dict[bytes, int] = {}
        self._fresh: list[tuple[int, bytes]] = []
        """(context id, fingerprint) in no sidecar yet, oldest first."""
        self._covered: Covered = {}
        self._unloaded: set[str] = set()
        """Covered shards whose sidecar entries are not in `_map` yet."""
        self.rebuilt = False
        """A sidecar was missing or damaged and its prints were read from the log."""

    # -- filling -----------------------------------------------------------------------

    def reset(self) -> None:
        """Start over (a recovery): nothing known until the scan adds and covers."""
        self._map = {}
        self._fresh = []
        self._covered = {}
        self._unloaded = set()

    def cover(self, covered: Covered) -> None:
        """After the scan: `covered` shards' first prints are on disk, not in memory."""
        self._covered.update(covered)
        self._unloaded.update(covered)

    def add(self, context_id: int, fingerprint: bytes) -> None:
        """A record just scanned or appended (newer than every one known)."""
        self._map[fingerprint] = context_id
        self._fresh.append((context_id, fingerprint))

    @property
    def loaded(self) -> bool:
        return not self._unloaded

    def load_all(self) -> None:
        """Read every covered sidecar into memory (oldest first; newer ids win)."""
        if not self._unloaded:
            return
        merged: dict[bytes, int] = {}
        for name in sorted(self._unloaded):
            merged.update(self._read(name))
        merged.update(self._map)
        self._map = merged
        self._unloaded = set()

    def __contains__(self, fingerprint: bytes) -> bool:
        if self._unloaded:
            raise StateError("load_all() the fingerprint index before checking against it")
        return fingerprint in self._map

    def newest(self, count: int) -> list[bytes]:
        """Up to `count` fingerprints of the newest records, oldest first, for the
        ring's replay window (a first filter only): the fresh ones, then the tails of
        the newest sidecars not loaded yet (as much as is needed, no more)."""
        if count <= 0:
            return []
        out = [fp for _, fp in self._fresh[-count:]]
        for name in sorted(self._unloaded, reverse=True):
            if len(out) >= count:
                break
            have = self._covered[name][0]
            out = self._tail(name, have, min(have, count - len(out))) + out
        return out

    def _tail(self, name: str, have: int, take: int) -> list[bytes]:
        path = os.path.join(self.directory, sidecar_name(name))
        if self._fs.entry_kind(path) != "file":
            return []
        raw = self._fs.read_at(path, (have - take) * ENTRY.size, take * ENTRY.size)
        if len(raw) != take * ENTRY.size:
            return []
        return [fp for fp, _ in ENTRY.iter_unpack(raw)]

    def _read(self, name: str) -> list[tuple[bytes, int]]:
        """The covered entries of `name`'s sidecar, or, when it is missing or does not
        match its crc, the prints of the shard's first records read from the log."""
        count, crc = self._covered[name]
        path = os.path.join(self.directory, sidecar_name(name))
        if crc is not None and self._fs.entry_kind(path) == "file":
            raw = self._fs.read_at(path, 0, count * ENTRY.size)
            if len(raw) == count * ENTRY.size and zlib.crc32(raw) == crc:
                return list(ENTRY.iter_unpack(raw))
        pairs = self._from_log(name, count)
        self._covered[name] = (0, 0)  # the sidecar is rewritten whole at the next checkpoint
        self.rebuilt = True
        self._fresh = sorted([*((cid, fp) for fp, cid in pairs), *self._fresh])
        return pairs

    def _from_log(self, name: str, count: int) -> list[tuple[bytes, int]]:
        match = SHARD_RE.match(name)
        if match is None:
            return []
        day = date(int(match[1]), int(match[2]), int(match[3]))
        lines = self._log.read_shard(day)[:count]
        return [(line_fingerprint(line), int(line["context_id"])) for line in lines]

    # -- retention -----------------------------------------------------------------------

    def forget(self, through: int, shards: list[str]) -> list[str]:
        """Records up to context id `through` (the deleted `shards`) are gone; returns
        the sidecar paths to remove (a leftover one is removed at a later checkpoint)."""
        self._map = {fp: cid for fp, cid in self._map.items() if cid > through}
        self._fresh = [(cid, fp) for cid, fp in self._fresh if cid > through]
        for name in shards:
            self._covered.pop(name, None)
            self._unloaded.discard(name)
        return [os.path.join(self.directory, sidecar_name(name)) for name in shards]

    # -- persisting ----------------------------------------------------------------------

    def persist(self, shards: list[dict[str, int | str]]
                ) -> tuple[dict[str, list[int]], Callable[[], None]]:
        """Write the sidecars of the checkpointed `shards` (name, first_id, last_id,
        records) so each holds exactly the prints of its records, fsynced.

        Returns what the checkpoint records per shard ([entries, crc32]) and the
        function to call once the checkpoint is durable (until then memory still
        says the old sidecar lengths, which stay true: only bytes past them moved).
        """
        fresh = sorted(self._fresh)
        ids = [cid for cid, _ in fresh]
        out: dict[str, list[int]] = {}
        done: Covered = {}
        created = False
        for shard in shards:
            name, first, last, records = (str(shard["name"]), int(shard["first_id"]),
                                          int(shard["last_id"]), int(shard["records"]))
            have, crc = self._covered.get(name, (0, 0))
            lo, hi = _span(ids, first, last)
            new = fresh[lo:hi]
            if crc is not None and have + len(new) == records and not new:
                out[name] = [have, crc]
                continue
            ensure_dir(self._fs, self.directory)
            path = os.path.join(self.directory, sidecar_name(name))
            exists = self._fs.entry_kind(path) == "file"
            blob = b"".join(ENTRY.pack(fp, cid) for cid, fp in new)
            if crc is None or have + len(new) != records or (
                have and (not exists or self._fs.size(path) < have * ENTRY.size)
            ):
                # Not what the checkpoint expects (or the sidecar is short): rebuild it.
                pairs = self._from_log(name, records)
                blob = b"".join(ENTRY.pack(fp, cid) for fp, cid in pairs)
                have, crc = 0, 0
            if have == 0:
                self._fs.write_file(path, blob)
            else:
                if self._fs.size(path) != have * ENTRY.size:
                    self._fs.truncate(path, have * ENTRY.size)
                self._fs.append(path, blob)
            self._fs.fsync(path)
            created = created or not exists
            count = have + len(blob) // ENTRY.size
            crc = zlib.crc32(blob, crc)
            out[name] = [count, crc]
            done[name] = (count, crc)
        if created:
            self._fs.fsync_dir(self.directory)

        def commit() -> None:
            self._covered.update(done)
            self.rebuilt = False
            spans = sorted((int(sh["first_id"]), int(sh["last_id"]))
                           for sh in shards if sh["name"] in done)
            self._fresh = [pair for pair in self._fresh if not _within(spans, pair[0])]

        return out, commit

    def remove_orphans(self, live: set[str]) -> None:
        """Delete sidecars whose shard is no longer in the log (a crash after deleting
        the shard and before its sidecar)."""
        for entry in self._fs.listdir(self.directory):
            if entry.endswith(".fp") and entry.removesuffix(".fp") + ".jsonl" not in live:
                self._fs.unlink(os.path.join(self.directory, entry))


def _span(ids: list[int], first: int, last: int) -> tuple[int, int]:
    return bisect.bisect_left(ids, first), bisect.bisect_right(ids, last)


def _within(spans: list[tuple[int, int]], context_id: int) -> bool:
    """Whether `context_id` lies in one of the sorted, disjoint `spans`."""
    i = bisect.bisect_right(spans, (context_id, 1 << 62)) - 1
    return i >= 0 and spans[i][0] <= context_id <= spans[i][1]
