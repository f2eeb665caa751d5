"""notifications scenario."""

from agent.notifications.context import ContextClosedError, NotificationContext
from agent.notifications.context_state import MemoryCursor, StateFileCursor, StoreMemoryCursor
from agent.notifications.context_types import (
    BatchNotContiguousError,
    CleanupResult,
    ConsumeResult,
    Gap,
    IntentsNeedStoreError,
    NotificationRecord,
    SourceCursor,
)
from agent.notifications.filters import NoiseFilter, contains_secret, find_secret
from storage.fs import StorageIOError
from storage.jsonl_log import CorruptLogError

__all__ = [
    "BatchNotContiguousError",
    "CleanupResult",
    "ConsumeResult",
    "ContextClosedError",
    "CorruptLogError",
    "Gap",
    "IntentsNeedStoreError",
    "MemoryCursor",
    "NoiseFilter",
    "NotificationContext",
    "NotificationRecord",
    "SourceCursor",
    "StateFileCursor",
    "StorageIOError",
    "StoreMemoryCursor",
    "contains_secret",
    "find_secret",
]
