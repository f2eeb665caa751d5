"""notifications scenario."""

from companion_memory.agent.notifications.extractor import (
    ModelNotificationExtractor,
    NotificationBatch,
    NotificationExtraction,
    NotificationExtractor,
    NotificationItem,
    RulesNotificationExtractor,
)
from companion_memory.agent.notifications.fallback import notification_fallback
from companion_memory.agent.notifications.filters import NoiseFilter
from companion_memory.agent.notifications.processor import NotificationProcessor
from companion_memory.agent.notifications.proposals import PROPOSAL_SCHEMA, validate_proposals
from companion_memory.agent.notifications.ring_writer import FlushTotals, RingWriter

__all__ = [
    "PROPOSAL_SCHEMA",
    "FlushTotals",
    "ModelNotificationExtractor",
    "NoiseFilter",
    "NotificationBatch",
    "NotificationExtraction",
    "NotificationExtractor",
    "NotificationItem",
    "NotificationProcessor",
    "RingWriter",
    "RulesNotificationExtractor",
    "notification_fallback",
    "validate_proposals",
]
