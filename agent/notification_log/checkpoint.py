"""The recovery checkpoint: what open needs to skip reading unchanged shards.

`notifications/checkpoint.json` (replaced atomically) holds, per shard from the
oldest on, what `JsonlLog.checkpoint()` returns (identity, verified length, id
range, sparse index, reported lines, the offset of its last record) and, under
"prints", how many entries of the shard's fingerprint sidecar it vouches for
and their crc32 (`fingerprints.py`). At open the log takes a shard whose
identity, size and last record are as recorded without reading it, scans one
that grew from its recorded end, and scans every other shard whole.

Written at the end of a repairing open (only when it would differ from the
file: a second open writes nothing), after every `CHECKPOINT_EVERY` records
`consume` appends, and at close. Order: the sidecars are written and fsynced
first, then the checkpoint replaces the old one, so a crash at any point leaves
a checkpoint whose every claim is on disk (an older one, at worst: the open
after it reads a little more). The checkpoint is an optimisation only: failing
to write it (disk full, EIO) is logged and changes nothing else; an unreadable
or malformed one is ignored (every shard is scanned).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from companion_memory.agent.notification_log.fingerprints import Covered, FingerprintIndex
from companion_memory.core.errors import CompanionMemoryError
from companion_memory.storage.atomic import read_json, write_json_atomic
from companion_memory.storage.fs import FileSystem, StorageIOError
from companion_memory.storage.jsonl_log import CorruptLogError, JsonlLog, RecoveryReport

log = logging.getLogger("companion_memory.agent.notification_log.log")

CHECKPOINT_FILE = "checkpoint.json"
CHECKPOINT_VERSION = 1
CHECKPOINT_EVERY = 1000
"""Records `consume` appends before it writes a checkpoint (bounds the rescan after a kill)."""


class Checkpointer:
    """Reads and writes the checkpoint; synchronous (run it on a worker thread)."""

    def __init__(
        self, fs: FileSystem, path: str, log: JsonlLog, prints: FingerprintIndex,
        *, read_only: bool,
    ) -> None:
        self._fs = fs
        self.path = path
        self._log = log
        self._prints = prints
        self._read_only = read_only
        self._on_disk: dict[str, Any] | None = None
        self._loaded = False
        self.appended = 0
        """Records appended since the last checkpoint was written."""
        self.stale = True
        """The last recovery found the log other than the checkpoint says."""

    def shards(self) -> list[dict[str, Any]] | None:
        """The checkpointed shards for `JsonlLog.recover` (None: no usable checkpoint)."""
        if not self._loaded:
            self._on_disk = self._read()
            self._loaded = True
        if self._on_disk is None:
            return None
        shards = self._on_disk.get("shards")
        return shards if isinstance(shards, list) else None

    def _read(self) -> dict[str, Any] | None:
        try:
            data = read_json(self._fs, self.path)
        except CompanionMemoryError as err:
            log.warning("checkpoint %s is unusable (%s): every shard is scanned",
                        self.path, getattr(err, "code", "error"))
            return None
        if not isinstance(data, dict) or data.get("version") != CHECKPOINT_VERSION:
            return None
        checkpoint: dict[str, Any] = data
        return checkpoint

    def recovered(self, report: RecoveryReport) -> Covered:
        """After a recovery: note whether the checkpoint still describes the log, and
        return what it vouches for (see `covered`)."""
        listed = self.shards() or []
        covered = self.covered(report)
        self.stale = (report.bytes_read > 0 or bool(report.removed_empty)
                      or len(report.from_checkpoint) != len(listed)
                      or any(crc is None for _, crc in covered.values()))
        return covered

    @property
    def wanted(self) -> bool:
        """Whether writing a checkpoint now would spare the next open some reading."""
        return bool(self.appended) or self.stale or self._prints.rebuilt

    def covered(self, report: RecoveryReport) -> Covered:
        """Per shard taken from the checkpoint: its sidecar entries the checkpoint vouches
        for (crc None when it does not: they are rebuilt from the log)."""
        prints = (self._on_disk or {}).get("prints")
        prints = prints if isinstance(prints, dict) else {}
        out: Covered = {}
        for name, records in report.from_checkpoint.items():
            claim = prints.get(name)
            ok = (isinstance(claim, list) and len(claim) == 2
                  and all(isinstance(v, int) and not isinstance(v, bool) for v in claim)
                  and claim[0] == records)
            out[name] = (records, claim[1] if ok else None)  # type: ignore[index]
        return out

    def write_sync(self) -> bool:
        """Write the sidecars and the checkpoint if they would change; False when it
        could not be written (logged; the next open then reads more)."""
        if self._read_only or self._log.needs_recovery:
            return False
        try:
            shards = self._log.checkpoint()
            if not shards and self._on_disk is None:
                self.appended = 0
                self.stale = False
                return True  # nothing to vouch for, nothing to replace
            prints, commit = self._prints.persist(shards)
            new = {"version": CHECKPOINT_VERSION, "shards": shards, "prints": prints}
            if new != self._on_disk:
                write_json_atomic(self._fs, self.path, new)
                self._on_disk = new
                self._loaded = True
                commit()
                live = {os.path.basename(s.path) for s in self._log.shards()}
                self._prints.remove_orphans(live)
            else:
                commit()
            self.stale = False
        except (StorageIOError, CorruptLogError) as err:
            log.warning("checkpoint %s not written (%s); the next open scans more",
                        self.path, getattr(err, "code", "error"))
            return False
        self.appended = 0
        return True

    @property
    def due(self) -> bool:
        return self.appended >= CHECKPOINT_EVERY
