"""The durable notification log: the ring's notifications written to disk before anything
reads them, numbered, replay-checked, read as pending batches and committed with the
memory cursor (`NotificationContext` in `log.py` and its parts)."""

from companion_memory.agent.notification_log.log import (
    ContextClosedError,
    NotificationContext,
)
from companion_memory.agent.notification_log.state import (
    MemoryCursor,
    StateFileCursor,
    StoreMemoryCursor,
)
from companion_memory.agent.notification_log.types import (
    BatchNotContiguousError,
    CleanupResult,
    ConsumeResult,
    Gap,
    IntentsNeedStoreError,
    NotificationRecord,
    SourceCursor,
)
from companion_memory.storage.fs import StorageIOError
from companion_memory.storage.jsonl_log import CorruptLogError

__all__ = [
    "BatchNotContiguousError",
    "CleanupResult",
    "ConsumeResult",
    "ContextClosedError",
    "CorruptLogError",
    "Gap",
    "IntentsNeedStoreError",
    "MemoryCursor",
    "NotificationContext",
    "NotificationRecord",
    "SourceCursor",
    "StateFileCursor",
    "StorageIOError",
    "StoreMemoryCursor",
]
