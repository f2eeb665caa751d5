"""Retention: deleting shards whose every record is processed.

Before any shard is removed, the state file gets the source-cursor hint and the
highest deleted context id, so the cursors and the id floor survive deleting
every shard. A partly processed shard is never deleted.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from companion_memory.agent.notifications.context_cursors import Cursors
from companion_memory.agent.notifications.context_recovery import Recovery
from companion_memory.agent.notifications.context_state import ContextState
from companion_memory.agent.notifications.context_types import CleanupResult
from companion_memory.storage.jsonl_log import JsonlLog


class Retention:
    """Deletes processed shards; synchronous (run it on a worker thread)."""

    def __init__(
        self, *, log: JsonlLog, state: ContextState, cursors: Cursors, recovery: Recovery,
        fingerprints: dict[bytes, int],
    ) -> None:
        self._log = log
        self._state = state
        self._cursors = cursors
        self._recovery = recovery
        self._fingerprints = fingerprints

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
        fingerprints = self._fingerprints
        for fp in [fp for fp, cid in fingerprints.items() if cid <= gone]:
            del fingerprints[fp]
        return CleanupResult(len(victims), freed)
