"""Retention: deleting shards whose every record is processed.

Before any shard is removed, the state file gets the source-cursor hint and the
highest deleted context id, so the cursors and the id floor survive deleting
every shard. A partly processed shard is never deleted; a deleted shard's
fingerprints go with it (memory and sidecar).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import date

from companion_memory.agent.notification_log.cursors import Cursors
from companion_memory.agent.notification_log.fingerprints import FingerprintIndex
from companion_memory.agent.notification_log.recovery import Recovery
from companion_memory.agent.notification_log.state import ContextState
from companion_memory.agent.notification_log.types import CleanupResult
from companion_memory.storage.fs import FileSystem, StorageIOError
from companion_memory.storage.jsonl_log import JsonlLog


class Retention:
    """Deletes processed shards; synchronous (run it on a worker thread)."""

    def __init__(
        self, *, log: JsonlLog, state: ContextState, cursors: Cursors, recovery: Recovery,
        prints: FingerprintIndex, fs: FileSystem,
    ) -> None:
        self._log = log
        self._state = state
        self._cursors = cursors
        self._recovery = recovery
        self._prints = prints
        self._fs = fs

    def cleanup_sync(self, wanted: Callable[[date], bool]) -> CleanupResult:
        """Delete the shards whose day is `wanted` and whose records are all processed."""
        self._recovery.ready()
        processed = self._cursors.memory_cursor
        victims = [s for s in self._log.shards() if wanted(s.day) and s.last_id <= processed]
        if not victims:
            return CleanupResult(0, 0)
        gone = max(s.last_id for s in victims)
        deleted_through = max(int(self._state.get("deleted_through", 0)), gone)
        hint = {**self._cursors.source.to_dict(), "context_id": self._cursors.last_context_id}
        self._state.update(source_hint=hint, deleted_through=deleted_through)
        freed = 0
        for shard in victims:
            freed += self._log.delete_shard(shard.day)
        names = [os.path.basename(s.path) for s in victims]
        for sidecar in self._prints.forget(gone, names):
            if self._fs.entry_kind(sidecar) == "file":
                with contextlib.suppress(StorageIOError):  # a leftover goes at a checkpoint
                    self._fs.unlink(sidecar)
        return CleanupResult(len(victims), freed)
