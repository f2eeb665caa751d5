"""Apple Notification Center Service (ANCS): UUIDs, ids, and the pure packet codec.

Byte layouts follow Apple's ANCS specification (all integers little-endian):

- Notification Source (8 bytes): EventID u8, EventFlags u8, CategoryID u8,
  CategoryCount u8, NotificationUID u32.
- Get Notification Attributes: 0x00, UID u32, then per attribute its id u8 and,
  for Title/Subtitle/Message, a u16 maximum length.
- Get App Attributes: 0x01, AppIdentifier NUL-terminated, attribute ids u8.
- Perform Notification Action: 0x02, UID u32, ActionID u8.
- Errors arrive as the ATT error of the Control Point write (0xA0-0xA3).

Unknown event, category and attribute ids are kept as plain ints. Nothing here
does I/O; every malformed input raises `AncsCodecError` (a `CodecError`).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import TypeVar

from companion_memory.ble.errors import CodecError, PhoneLinkError
from companion_memory.core.errors import InvalidInputError

ANCS_SERVICE_UUID = "7905f431-b5ce-4e99-a40f-4b1e122d00d0"
NOTIFICATION_SOURCE_UUID = "9fbf120d-6301-42d9-8c58-25e699a21dbd"
CONTROL_POINT_UUID = "69d1d8f3-45e1-49a8-9821-9bbdfdaad9d9"
DATA_SOURCE_UUID = "22eac6e9-24d6-4bb5-be44-b36ace7c7bfb"

NOTIFICATION_SOURCE_SIZE = 8
_NS = struct.Struct("<BBBBI")
_UID = struct.Struct("<I")
_U16 = struct.Struct("<H")


class EventID(IntEnum):
    ADDED = 0
    MODIFIED = 1
    REMOVED = 2


class EventFlags(IntFlag):
    SILENT = 1
    IMPORTANT = 2
    PRE_EXISTING = 4
    POSITIVE_ACTION = 8
    NEGATIVE_ACTION = 16


class CategoryID(IntEnum):
    OTHER = 0
    INCOMING_CALL = 1
    MISSED_CALL = 2
    VOICEMAIL = 3
    SOCIAL = 4
    SCHEDULE = 5
    EMAIL = 6
    NEWS = 7
    HEALTH_AND_FITNESS = 8
    BUSINESS_AND_FINANCE = 9
    LOCATION = 10
    ENTERTAINMENT = 11


class CommandID(IntEnum):
    GET_NOTIFICATION_ATTRIBUTES = 0
    GET_APP_ATTRIBUTES = 1
    PERFORM_NOTIFICATION_ACTION = 2


class NotificationAttributeID(IntEnum):
    APP_IDENTIFIER = 0
    TITLE = 1
    SUBTITLE = 2
    MESSAGE = 3
    MESSAGE_SIZE = 4
    DATE = 5
    POSITIVE_ACTION_LABEL = 6
    NEGATIVE_ACTION_LABEL = 7


class AppAttributeID(IntEnum):
    DISPLAY_NAME = 0


class ActionID(IntEnum):
    POSITIVE = 0
    NEGATIVE = 1


LENGTH_PREFIXED_ATTRIBUTES = frozenset(
    {
        NotificationAttributeID.TITLE,
        NotificationAttributeID.SUBTITLE,
        NotificationAttributeID.MESSAGE,
    }
)
"""Attributes whose request carries a u16 maximum length."""


_E = TypeVar("_E", bound=IntEnum)


def _enum_or_int(enum: type[_E], value: int) -> _E | int:
    try:
        return enum(value)
    except ValueError:
        return value


class AncsCodecError(CodecError):
    """An ANCS packet or response is malformed; `code` names the kind."""

    code = "ancs_codec_error"

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason, code=code)


ANCS_ERROR_NAMES = {
    0xA0: "unknown_command",
    0xA1: "invalid_command",
    0xA2: "invalid_parameter",
    0xA3: "action_failed",
}


class AncsCommandError(PhoneLinkError):
    """The phone refused a Control Point command with an ANCS error (0xA0-0xA3) or
    another ATT error; `att_code` holds the byte, `code` its name."""

    def __init__(self, att_code: int) -> None:
        self.att_code = att_code
        name = ANCS_ERROR_NAMES.get(att_code, "att_error")
        super().__init__(
            f"the phone refused the ANCS command: 0x{att_code:02X} ({name}); "
            "0xA0 unknown command, 0xA1 invalid command, 0xA2 invalid parameter, "
            "0xA3 action failed",
            code=f"ancs_{name}",
        )


@dataclass(frozen=True, slots=True)
class NotificationSourcePacket:
    """One Notification Source notification."""

    event_id: EventID | int
    flags: EventFlags
    category_id: CategoryID | int
    category_count: int
    uid: int

    @property
    def pre_existing(self) -> bool:
        return bool(self.flags & EventFlags.PRE_EXISTING)

    @property
    def silent(self) -> bool:
        return bool(self.flags & EventFlags.SILENT)

    def encode(self) -> bytes:
        return _NS.pack(
            int(self.event_id), int(self.flags) & 0xFF, int(self.category_id),
            self.category_count, self.uid,
        )


def parse_notification_source(data: bytes | bytearray | memoryview) -> NotificationSourcePacket:
    """Decode an 8-byte Notification Source packet; other lengths are refused."""
    if len(data) != NOTIFICATION_SOURCE_SIZE:
        raise AncsCodecError(
            "ancs_bad_notification_source",
            f"a Notification Source packet is {NOTIFICATION_SOURCE_SIZE} bytes, got {len(data)}",
        )
    event_id, flags, category, count, uid = _NS.unpack(bytes(data))
    return NotificationSourcePacket(
        event_id=_enum_or_int(EventID, event_id),
        flags=EventFlags(flags & 0x1F),
        category_id=_enum_or_int(CategoryID, category),
        category_count=count,
        uid=uid,
    )


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    """One requested attribute: its id and, for Title/Subtitle/Message, the max length."""

    attribute_id: int
    max_length: int | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.attribute_id <= 0xFF:
            raise InvalidInputError("attribute ids are one byte (0..255)")
        if self.max_length is not None and not 1 <= self.max_length <= 0xFFFF:
            raise InvalidInputError("a maximum attribute length is 1..65535 bytes")


def _check_uid(uid: int) -> None:
    if not 0 <= uid <= 0xFFFFFFFF:
        raise InvalidInputError("a NotificationUID is a u32 (0..4294967295)")


def encode_get_notification_attributes(uid: int, attributes: Sequence[AttributeSpec]) -> bytes:
    """The Control Point command that asks for a notification's attributes."""
    _check_uid(uid)
    if not attributes:
        raise InvalidInputError("ask for at least one attribute")
    out = bytearray((CommandID.GET_NOTIFICATION_ATTRIBUTES,))
    out += _UID.pack(uid)
    for spec in attributes:
        out.append(spec.attribute_id)
        if spec.attribute_id in LENGTH_PREFIXED_ATTRIBUTES:
            if spec.max_length is None:
                raise InvalidInputError("Title, Subtitle and Message need a maximum length")
            out += _U16.pack(spec.max_length)
    return bytes(out)


def encode_get_app_attributes(app_id: str, attribute_ids: Sequence[int]) -> bytes:
    """The Control Point command that asks for an app's attributes (e.g. DisplayName)."""
    raw = app_id.encode("utf-8")
    if not raw or b"\x00" in raw:
        raise InvalidInputError("an app identifier is non-empty and has no NUL byte")
    if not attribute_ids:
        raise InvalidInputError("ask for at least one attribute")
    return bytes((CommandID.GET_APP_ATTRIBUTES,)) + raw + b"\x00" + bytes(attribute_ids)


def encode_perform_notification_action(uid: int, action: ActionID | int) -> bytes:
    """The Control Point command that performs the positive or negative action."""
    _check_uid(uid)
    if int(action) not in (0, 1):
        raise InvalidInputError("the action is 0 (positive) or 1 (negative)")
    return bytes((CommandID.PERFORM_NOTIFICATION_ACTION,)) + _UID.pack(uid) + bytes((action,))


def decode_text(raw: bytes, *, attribute_id: int, truncated_at: int | None = None) -> str:
    """Decode an attribute as UTF-8.

    When `truncated_at` is the requested maximum length and the value reached it, the
    phone may have cut a multi-byte character: an incomplete sequence at the very end
    is dropped. Any other invalid UTF-8 raises `AncsCodecError`.
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at_end = exc.reason == "unexpected end of data" and exc.end == len(raw)
        if at_end and truncated_at is not None and len(raw) >= truncated_at:
            return raw[: exc.start].decode("utf-8")
        raise AncsCodecError(
            "ancs_invalid_utf8",
            f"attribute {attribute_id} is not valid UTF-8 (byte {exc.start} of {len(raw)})",
        ) from None
