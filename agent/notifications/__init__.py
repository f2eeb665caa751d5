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
from agent.notifications.fallback import notification_fallback
from agent.notifications.filters import NoiseFilter, contains_secret, find_secret
from agent.notifications.processor import NotificationProcessor
from agent.notifications.proposals import PROPOSAL_SCHEMA, validate_proposals
from storage.fs import StorageIOError
from storage.jsonl_log import CorruptLogError

__all__ = [
    "PROPOSAL_SCHEMA",
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
    "NotificationProcessor",
    "NotificationRecord",
    "SourceCursor",
    "StateFileCursor",
    "StorageIOError",
    "StoreMemoryCursor",
    "contains_secret",
    "find_secret",
    "notification_fallback",
    "validate_proposals",
]
