"""notifications scenario."""

from companion_memory.agent.notifications.context import ContextClosedError, NotificationContext
from companion_memory.agent.notifications.context_state import (
    MemoryCursor,
    StateFileCursor,
    StoreMemoryCursor,
)
from companion_memory.agent.notifications.context_types import (
    BatchNotContiguousError,
    CleanupResult,
    ConsumeResult,
    Gap,
    IntentsNeedStoreError,
    NotificationRecord,
    SourceCursor,
)
from companion_memory.agent.notifications.fallback import notification_fallback
from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.agent.notifications.proposals import PROPOSAL_SCHEMA, validate_proposals
from companion_memory.agent.notifications.ring_writer import FlushTotals, RingWriter
from companion_memory.storage.fs import StorageIOError
from companion_memory.storage.jsonl_log import CorruptLogError

__all__ = [
    "PROPOSAL_SCHEMA",
    "BatchNotContiguousError",
    "CleanupResult",
    "ConsumeResult",
    "ContextClosedError",
    "CorruptLogError",
    "FlushTotals",
    "Gap",
    "IntentsNeedStoreError",
    "MemoryCursor",
    "NoiseFilter",
    "NotificationContext",
    "NotificationProcessor",
    "NotificationRecord",
    "RingWriter",
    "SourceCursor",
    "StateFileCursor",
    "StorageIOError",
    "StoreMemoryCursor",
    "notification_fallback",
    "validate_proposals",
]
