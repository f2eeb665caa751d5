"""From ANCS attributes to `NotificationEvent`: decoding, dates, categories, content ids.

ANCS UIDs are valid within one subscription only, so the notification `key` is
derived from content, and `AncsContentIndex` (which outlives sessions) maps the
content of every notification already published to its key: a notification the
phone re-sends after a reconnect (PreExisting) is recognised and not published
twice.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from companion_memory.ble.ancs.codec import (
    AncsCodecError,
    AttributeSpec,
    CategoryID,
    NotificationAttributeID,
    decode_text,
)
from companion_memory.ble.ancs.reassembler import AttributeResponse
from companion_memory.ble.events import (
    BODY_LIMIT_BYTES,
    EARLIEST_EVENT_TIME,
    LATEST_EVENT_TIME,
    TEXT_FIELD_LIMIT_BYTES,
)
from companion_memory.core.errors import InvalidInputError

A = NotificationAttributeID


def notification_attribute_specs(
    message_limit: int = BODY_LIMIT_BYTES,
) -> tuple[AttributeSpec, ...]:
    """The attributes a session asks for: app, title, subtitle, message, size, date."""
    return (
        AttributeSpec(A.APP_IDENTIFIER),
        AttributeSpec(A.TITLE, TEXT_FIELD_LIMIT_BYTES),
        AttributeSpec(A.SUBTITLE, TEXT_FIELD_LIMIT_BYTES),
        AttributeSpec(A.MESSAGE, message_limit),
        AttributeSpec(A.MESSAGE_SIZE),
        AttributeSpec(A.DATE),
    )


def category_name(category: CategoryID | int) -> str:
    """`social`, `incoming_call`, ...; an unknown id stays visible as its number."""
    if isinstance(category, CategoryID):
        return category.name.lower()
    return str(int(category))


def load_zone(zone: str) -> ZoneInfo:
    """The phone's IANA zone; an unknown name raises `AncsCodecError` (`ancs_bad_zone`)."""
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise AncsCodecError(
            "ancs_bad_zone", "the configured zone is not an IANA zone name (e.g. Europe/Berlin)"
        ) from None


def parse_ancs_date(raw: bytes, zone: ZoneInfo) -> datetime | None:
    """`yyyyMMdd'T'HHmmSS` in the phone's local time -> UTC; None when empty.

    A malformed date, or one outside the instants an event may carry (year 1 or 9999
    cannot be moved between zones without overflowing), raises `AncsCodecError`
    (`ancs_bad_date`). In a DST fold the earlier instant is taken.
    """
    if not raw:
        return None
    text = raw.decode("ascii", errors="replace")
    try:
        if len(text) != 15 or text[8] != "T" or not (text[:8] + text[9:]).isdigit():
            raise ValueError
        local = datetime(
            int(text[0:4]), int(text[4:6]), int(text[6:8]),
            int(text[9:11]), int(text[11:13]), int(text[13:15]), tzinfo=zone,
        )
    except ValueError:
        raise AncsCodecError(
            "ancs_bad_date", "the Date attribute is not yyyyMMdd'T'HHmmSS"
        ) from None
    try:
        instant = local.astimezone(UTC)
    except OverflowError:
        instant = None
    if instant is None or not EARLIEST_EVENT_TIME <= instant < LATEST_EVENT_TIME:
        raise AncsCodecError(
            "ancs_bad_date",
            "the Date attribute lies outside the years an event may carry (1900 to 8999)",
        )
    return instant


@dataclass(frozen=True, slots=True)
class NotificationAttributes:
    """Decoded text attributes of one notification."""

    app_id: str
    title: str
    subtitle: str
    message: str
    truncated: bool
    date_raw: bytes

    def content_digest(self) -> str:
        """Identity across sessions: app id + title + subtitle + message + date."""
        h = hashlib.blake2b(digest_size=12)
        for part in (self.app_id, self.title, self.subtitle, self.message):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        h.update(self.date_raw)
        return h.hexdigest()


def decode_notification_attributes(
    response: AttributeResponse, message_limit: int = BODY_LIMIT_BYTES
) -> NotificationAttributes:
    """Decode the response to `notification_attribute_specs()`; bad UTF-8 raises.

    The Message is cut to `message_limit` bytes (at a UTF-8 character boundary) even
    when the phone sent more than the request's maximum length allowed."""
    message_raw = response.get(A.MESSAGE)
    size_raw = response.get(A.MESSAGE_SIZE)
    over = len(message_raw) > message_limit
    if over:
        message_raw = message_raw[:message_limit]
    if size_raw:
        if not size_raw.isdigit() or len(size_raw) > 9:
            raise AncsCodecError("ancs_bad_message_size", "MessageSize is not a decimal number")
        truncated = over or int(size_raw) > len(message_raw)
    else:
        truncated = len(message_raw) >= message_limit
    app_id = decode_text(response.get(A.APP_IDENTIFIER), attribute_id=A.APP_IDENTIFIER)
    if not app_id.strip():
        raise AncsCodecError("ancs_missing_app_id", "the notification has no AppIdentifier")
    return NotificationAttributes(
        app_id=app_id,
        title=decode_text(
            response.get(A.TITLE), attribute_id=A.TITLE, truncated_at=TEXT_FIELD_LIMIT_BYTES
        ),
        subtitle=decode_text(
            response.get(A.SUBTITLE), attribute_id=A.SUBTITLE, truncated_at=TEXT_FIELD_LIMIT_BYTES
        ),
        message=decode_text(message_raw, attribute_id=A.MESSAGE, truncated_at=message_limit),
        truncated=truncated,
        date_raw=response.get(A.DATE),
    )


class AncsContentIndex:
    """Content digest -> notification key for everything already published.

    Lives across sessions (give the same index to every `AncsSession` of one
    phone). Bounded: the oldest digests are forgotten past `capacity`.
    """

    def __init__(self, capacity: int = 4096) -> None:
        if capacity < 1:
            raise InvalidInputError("the content index needs a capacity of at least 1")
        self._capacity = capacity
        self._keys: OrderedDict[str, str] = OrderedDict()

    def __len__(self) -> int:
        return len(self._keys)

    def lookup(self, digest: str) -> str | None:
        key = self._keys.get(digest)
        if key is not None:
            self._keys.move_to_end(digest)
        return key

    def remember(self, digest: str, key: str) -> None:
        self._keys[digest] = key
        self._keys.move_to_end(digest)
        while len(self._keys) > self._capacity:
            self._keys.popitem(last=False)

    def forget(self, digest: str) -> None:
        self._keys.pop(digest, None)

    @staticmethod
    def new_key(digest: str) -> str:
        return f"ancs:{digest}"
