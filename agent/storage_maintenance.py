"""Storage levels in the worker's rounds: the owners' cleaners and the maintenance step.

`StorageMonitor` (storage/) knows levels and runs cleaners; this module supplies the
cleaners that belong to the agent's data owners and a processor that runs one
monitor check per round, first, so a level change pauses or resumes notification
intake before the notification processor consumes the ring.

- `NotificationShardCleaner` cleans processed notification shards older than
  14 / 7 / 1 days at NORMAL / WARNING / CRITICAL and every processed shard at
  EMERGENCY, only through the context's own cleanup methods (never a file behind
  its back, so it cannot race append or commit). No level deletes an unprocessed
  record: the context keeps every shard that holds one.
- `TemporaryMemoryCleaner` removes expired and deleted records at every level.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from companion_memory.agent.processor import BatchOutcome, ProcessorReport
from companion_memory.core.clock import Clock
from companion_memory.core.errors import InvalidInputError
from companion_memory.memory.errors import StoreCorruptError
from companion_memory.storage.monitor import CleanResult, StorageLevel, StorageMonitor

if TYPE_CHECKING:
    from companion_memory.agent.notification_log.log import NotificationContext
    from companion_memory.memory.store import MemoryStore

DEFAULT_RETENTION_DAYS: Mapping[StorageLevel, int] = {
    StorageLevel.NORMAL: 14,
    StorageLevel.WARNING: 7,
    StorageLevel.CRITICAL: 1,
}


class NotificationShardCleaner:
    name = "notification_shards"

    def __init__(
        self,
        context: NotificationContext,
        clock: Clock,
        retention_days: Mapping[StorageLevel, int] | None = None,
    ) -> None:
        days = dict(retention_days or DEFAULT_RETENTION_DAYS)
        for level in (StorageLevel.NORMAL, StorageLevel.WARNING, StorageLevel.CRITICAL):
            if level not in days or days[level] < 0:
                raise InvalidInputError(f"retention for level {level.label} must be >= 0 days")
        self._context = context
        self._clock = clock
        self._days = days

    async def clean(self, level: StorageLevel) -> CleanResult:
        if level is StorageLevel.EMERGENCY:
            result = await self._context.cleanup_all_processed()
        else:
            cutoff = (self._clock.now() - timedelta(days=self._days[level])).date()
            result = await self._context.cleanup_processed_before(cutoff)
        return CleanResult(removed=result.shards, freed_bytes=result.bytes_freed)


class TemporaryMemoryCleaner:
    name = "temporary_memory"

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    async def clean(self, level: StorageLevel) -> CleanResult:
        stats = await self._store.cleanup_expired()
        return CleanResult(removed=stats.removed, freed_bytes=stats.bytes_freed)


def pause_intake_with_level(monitor: StorageMonitor, context: NotificationContext) -> None:
    """Turn the context's write capability off at CRITICAL/EMERGENCY or on probe failure,
    and back on when the level recovers."""
    monitor.subscribe(lambda _level, allowed: context.set_intake_enabled(allowed))


VECTORS_PER_ROUND = 256
"""Memories without a vector (an older store, another writer, a crash between a write and
its embedding) embedded per round: about 2.5 s of one core for the bundled model."""


class StorageMaintenanceProcessor:
    """Runs one monitor check per round; never has backlog, never calls a model.

    With a `store`, a round after a call found the memory database malformed
    (`MemoryStore.corruption_seen`) first re-derives the search index from the memories
    (`MemoryStore.repair_index`: the index holds nothing they do not, so nothing is
    lost). When SQLite's own integrity check fails, the index is not the damage: the
    round reports `store_corrupt` and repairs nothing; the processors that write stay
    backed off with their work pending, and `doctor` says what is wrong."""

    name = "storage"

    def __init__(self, monitor: StorageMonitor, store: MemoryStore | None = None) -> None:
        self._monitor = monitor
        self._store = store
        self.store_problem: str | None = None
        """Why the memory database cannot be used (content-free), or None."""

    async def _mend_store(self, extra: dict[str, Any]) -> str | None:
        store = self._store
        if store is None or not store.corruption_seen:
            return None
        try:
            result = await store.repair_index()
        except StoreCorruptError as err:
            self.store_problem = "the memory database fails SQLite's integrity check"
            return err.code
        extra["index_repaired"] = result.indexed
        if not result.after.ok:
            self.store_problem = "the search index is still damaged after a rebuild: " + \
                ", ".join(result.after.problems)
            return "store_corrupt"
        self.store_problem = None
        return None

    async def run_batch(self) -> BatchOutcome:
        started = time.perf_counter()
        extra: dict[str, Any] = {}
        store_error = await self._mend_store(extra)
        if self._store is not None and store_error is None and self.store_problem is None:
            extra["vectors_indexed"] = await self._store.index_vectors(max_rows=VECTORS_PER_ROUND)
        check = await self._monitor.check()
        extra.update({
            "level": check.level.label,
            "level_changed": check.changed,
            "previous_level": check.previous.label,
            "degraded": check.degraded,
            "intake_allowed": check.intake_allowed,
            "cleaners": check.cleaners,
        })
        report = ProcessorReport(
            processor=self.name,
            elapsed_s=time.perf_counter() - started,
            batches=1,
            extra=extra,
            error=store_error or ("storage_probe_failed" if check.degraded else None),
        )
        return BatchOutcome(report=report, backlog=False)
