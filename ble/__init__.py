"""Phone -> wearable link: normalized events and the bounded event ring."""

from ble.events import (
    BODY_LIMIT_BYTES,
    EventKind,
    InvalidEventError,
    NotificationEvent,
    format_rfc3339,
    parse_rfc3339,
)
from ble.ring import EventRing, RingEntry, RingRead, RingStatistics

__all__ = [
    "BODY_LIMIT_BYTES",
    "EventKind",
    "EventRing",
    "InvalidEventError",
    "NotificationEvent",
    "RingEntry",
    "RingRead",
    "RingStatistics",
    "format_rfc3339",
    "parse_rfc3339",
]
