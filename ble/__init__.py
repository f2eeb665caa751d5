"""Phone -> wearable link: normalized events, the bounded event ring, ANCS and the
Android companion protocol over the `PhoneLink` seam.

Nothing here imports bleak, bumble or dbus-fast: the bleak link
(`ble.bleak_link`), advertising (`ble.advertising`) and the bumble emulators
(`ble.emulator.bumble_*`) import them when they are imported themselves.
"""

from companion_memory.ble.ancs.codec import (
    ANCS_SERVICE_UUID,
    AncsCodecError,
    AncsCommandError,
    NotificationSourcePacket,
    parse_notification_source,
)
from companion_memory.ble.ancs.normalize import AncsContentIndex
from companion_memory.ble.ancs.reassembler import (
    AttributeRequest,
    AttributeResponse,
    DataSourceReassembler,
)
from companion_memory.ble.ancs.session import AncsSession, AncsSessionStats
from companion_memory.ble.android.protocol import (
    COMPANION_SERVICE_UUID,
    AndroidCodecError,
    FrameAssembler,
)
from companion_memory.ble.android.session import AndroidSession, AndroidSessionStats
from companion_memory.ble.errors import (
    AttWriteError,
    CodecError,
    CommandTimeoutError,
    LinkClosedError,
    PhoneLinkError,
)
from companion_memory.ble.events import (
    BODY_LIMIT_BYTES,
    EventKind,
    InvalidEventError,
    NotificationEvent,
    format_rfc3339,
    parse_rfc3339,
)
from companion_memory.ble.link import NotifyCallback, PhoneLink
from companion_memory.ble.ring import EventRing, RingEntry, RingRead, RingStatistics

__all__ = [
    "ANCS_SERVICE_UUID",
    "BODY_LIMIT_BYTES",
    "COMPANION_SERVICE_UUID",
    "AncsCodecError",
    "AncsCommandError",
    "AncsContentIndex",
    "AncsSession",
    "AncsSessionStats",
    "AndroidCodecError",
    "AndroidSession",
    "AndroidSessionStats",
    "AttWriteError",
    "AttributeRequest",
    "AttributeResponse",
    "CodecError",
    "CommandTimeoutError",
    "DataSourceReassembler",
    "EventKind",
    "EventRing",
    "FrameAssembler",
    "InvalidEventError",
    "LinkClosedError",
    "NotificationEvent",
    "NotificationSourcePacket",
    "NotifyCallback",
    "PhoneLink",
    "PhoneLinkError",
    "RingEntry",
    "RingRead",
    "RingStatistics",
    "format_rfc3339",
    "parse_notification_source",
    "parse_rfc3339",
]
