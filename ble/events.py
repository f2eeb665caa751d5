"""The normalized notification event and its validation.

Every phone link (ANCS, the Android companion protocol, the simulated feed) ends
in a `NotificationEvent`. Text fields are never put into error messages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from companion_memory.core.errors import InvalidInputError

BODY_LIMIT_BYTES = 4096
"""Bodies longer than this (UTF-8 bytes) are truncated and flagged."""

TEXT_FIELD_LIMIT_BYTES = 1024
"""Title, subtitle, key, app id and category longer than this are refused."""


class EventKind(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    REMOVED = "removed"


class InvalidEventError(InvalidInputError):
    """A notification event failed validation; `field` names the offending field."""

    code = "invalid_event"

    def __init__(self, field_name: str, reason: str) -> None:
        self.field = field_name
        super().__init__(f"{field_name}: {reason}")


def _truncate_utf8(text: str, limit: int) -> tuple[str, bool]:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text, False
    return raw[:limit].decode("utf-8", errors="ignore"), True


def cap_body(event: NotificationEvent, limit: int) -> NotificationEvent:
    """`event` with its body cut to at most `limit` UTF-8 bytes at a character boundary
    and flagged `truncated` (the same event when it already fits). Every phone link
    applies the configured cap (`intake.body_limit_bytes`) with this before it publishes."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInputError(f"the body cap is a positive number of bytes (got {limit!r})")
    body, cut = _truncate_utf8(event.body, limit)
    if not cut:
        return event
    return replace(event, body=body, truncated=True)


EARLIEST_EVENT_TIME = datetime(1900, 1, 1, tzinfo=UTC)
LATEST_EVENT_TIME = datetime(9000, 1, 1, tzinfo=UTC)
"""The instants an incoming timestamp may name (earliest inclusive, latest exclusive).

Python's datetime ends at the years 1 and 9999; an instant near either end
overflows when it is moved into a local zone or has days added to it (the
daily sweep, expiry, the prompt's local dates). A millennium of room on each
side keeps every such step safe; no real notification or episode lies outside it."""


def parse_rfc3339(value: str, field_name: str = "posted_at") -> datetime:
    """Parse an RFC 3339 timestamp with an explicit offset; return it in UTC.

    An instant that exists in its own offset but not in UTC (e.g.
    9999-12-31T23:00:00-05:00) is an `InvalidEventError` like any other bad value.
    """
    parsed = _parse_with_offset(value, field_name)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        raise InvalidEventError(
            field_name, "lies outside the years 1 to 9999 once moved to UTC"
        ) from None


def parse_event_time(value: str, field_name: str = "posted_at") -> datetime:
    """`parse_rfc3339` for a timestamp arriving from outside (a phone, a feed, the host).

    Besides the format, the instant must lie in [`EARLIEST_EVENT_TIME`,
    `LATEST_EVENT_TIME`), so that later local-time and date arithmetic on it
    cannot overflow. Lines already in the log are read back with the plain
    `parse_rfc3339`, so nothing that was once accepted becomes unreadable.
    """
    parsed = _parse_with_offset(value, field_name)
    try:
        instant = parsed.astimezone(UTC)
    except OverflowError:
        instant = None
    if instant is None or not EARLIEST_EVENT_TIME <= instant < LATEST_EVENT_TIME:
        raise InvalidEventError(
            field_name,
            f"must lie from {format_rfc3339(EARLIEST_EVENT_TIME)} up to (not including) "
            f"{format_rfc3339(LATEST_EVENT_TIME)}",
        )
    return instant


def _parse_with_offset(value: str, field_name: str) -> datetime:
    """The timestamp as written, in its own offset (not yet moved to UTC)."""
    if not isinstance(value, str) or not value:
        raise InvalidEventError(field_name, "must be an RFC 3339 timestamp string")
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidEventError(
            field_name, "is not an RFC 3339 timestamp (e.g. 2026-11-30T08:15:00Z)"
        ) from None
    if parsed.tzinfo is None:
        raise InvalidEventError(field_name, "needs a UTC offset or Z (e.g. 2026-11-30T08:15:00Z)")
    return parsed


def format_rfc3339(value: datetime) -> str:
    """UTC, second or microsecond precision, with a Z suffix."""
    text = value.astimezone(UTC).isoformat()
    return text.replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class NotificationEvent:
    """One normalized add/modify/remove event from the phone.

    `key` identifies the notification across its events; `posted_at` is UTC.
    `truncated` is true when the body was cut to `BODY_LIMIT_BYTES`.
    `source` names the link it came from (ancs, android, feed).
    """

    kind: EventKind
    key: str
    app_id: str
    title: str = ""
    subtitle: str = ""
    body: str = ""
    category: str = ""
    posted_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    truncated: bool = False
    source: str = "feed"
    _fingerprint: bytes | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def create(
        cls,
        *,
        kind: EventKind | str,
        key: str,
        app_id: str,
        posted_at: datetime,
        title: str = "",
        subtitle: str = "",
        body: str = "",
        category: str = "",
        source: str = "feed",
    ) -> NotificationEvent:
        """Validate, cap the body, normalize the time to UTC."""
        try:
            kind = EventKind(kind)
        except ValueError:
            raise InvalidEventError(
                "kind", "must be one of added, modified, removed"
            ) from None
        for name, value in (("key", key), ("app_id", app_id)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidEventError(name, "must be a non-empty string")
        for name, value in (
            ("key", key),
            ("app_id", app_id),
            ("title", title),
            ("subtitle", subtitle),
            ("category", category),
        ):
            if not isinstance(value, str):
                raise InvalidEventError(name, "must be a string")
            if len(value.encode("utf-8")) > TEXT_FIELD_LIMIT_BYTES:
                raise InvalidEventError(name, f"is longer than {TEXT_FIELD_LIMIT_BYTES} bytes")
        if not isinstance(body, str):
            raise InvalidEventError("body", "must be a string")
        if not isinstance(posted_at, datetime) or posted_at.tzinfo is None:
            raise InvalidEventError("posted_at", "must be a timezone-aware datetime")
        capped, truncated = _truncate_utf8(body, BODY_LIMIT_BYTES)
        return cls(
            kind=kind,
            key=key,
            app_id=app_id,
            title=title,
            subtitle=subtitle,
            body=capped,
            category=category,
            posted_at=posted_at.astimezone(UTC),
            truncated=truncated,
            source=source,
        )

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "feed") -> NotificationEvent:
        """Build from a normalized event line (the log's line format; docs/architecture.md)."""
        if not isinstance(data, dict):
            raise InvalidEventError("event", "must be a JSON object")
        allowed = {"kind", "key", "app_id", "title", "subtitle", "body", "category", "posted_at"}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise InvalidEventError(
                unknown[0], f"is not a known field (allowed: {', '.join(sorted(allowed))})"
            )
        for required in ("kind", "key", "app_id", "title", "body", "posted_at"):
            if required not in data:
                raise InvalidEventError(required, "is required")
        return cls.create(
            kind=data["kind"],
            key=data["key"],
            app_id=data["app_id"],
            title=data["title"],
            subtitle=data.get("subtitle", ""),
            body=data["body"],
            category=data.get("category", ""),
            posted_at=parse_event_time(data["posted_at"]),
            source=source,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "key": self.key,
            "app_id": self.app_id,
            "title": self.title,
            "subtitle": self.subtitle,
            "body": self.body,
            "category": self.category,
            "posted_at": format_rfc3339(self.posted_at),
            "truncated": self.truncated,
            "source": self.source,
        }

    def fingerprint(self) -> bytes:
        """Content identity used by the replay window and the log's duplicate check (not
        the link's own ids). Computed once per event: the ring and the log both ask."""
        if self._fingerprint is not None:
            return self._fingerprint
        # One update over the parts each followed by a NUL: the same bytes, and so the
        # same digest, as one update per part, at a fraction of the calls.
        text = "\x00".join((
            self.kind.value, self.key, self.app_id, self.title, self.subtitle, self.body,
            self.category, format_rfc3339(self.posted_at),
        )) + "\x00"
        h = hashlib.blake2b(text.encode("utf-8"), digest_size=16)
        digest = h.digest()
        object.__setattr__(self, "_fingerprint", digest)  # a cache, not part of the value
        return digest
