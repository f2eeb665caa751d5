"""Value types and errors of the notification context.

A `NotificationRecord` is one durable log line: the ring event plus the local,
monotonic `context_id`. On disk a record is a flat JSON object (the event's
fields next to `context_id`, `ring_generation`, `ring_seq`, `received_at` and
`crc`), so `jq 'select(.app_id == "x")'` works on the shards directly.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from companion_memory.ble.events import EventKind, NotificationEvent, format_rfc3339, parse_rfc3339
from companion_memory.core.errors import InvalidInputError, StateError

GAP_KINDS = (
    "ring_overflow",
    "torn_tail",
    "poison_batch",
    "corrupt_record",
    "cursor_ahead",
    "unused_ids",
    "misordered_record",
    "unsafe_entry",
)

_FINGERPRINT_FIELDS = ("kind", "key", "app_id", "title", "subtitle", "body", "category",
                       "posted_at")


def line_fingerprint(line: dict[str, Any]) -> bytes:
    """The content fingerprint of a log line, equal to its event's `fingerprint()`.

    Built from the line's stored strings (the log keeps `posted_at` exactly as the
    event formats it), so the whole retained log can be fingerprinted at open
    without building an event per line.
    """
    parts = []
    for name in _FINGERPRINT_FIELDS:
        value = line.get(name, "")
        parts.append(value if isinstance(value, str) else "")
    text = "\x00".join(parts) + "\x00"
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


class BatchNotContiguousError(InvalidInputError):
    """A batch given to commit/skip does not start right after the memory cursor
    or is not the consecutive run of records read from the log; nothing changed."""

    code = "batch_not_contiguous"


class IntentsNeedStoreError(StateError):
    """The state-file memory cursor cannot commit memory intents atomically."""

    code = "intents_need_store"


@dataclass(frozen=True, slots=True)
class NotificationRecord:
    context_id: int
    ring_generation: str
    ring_seq: int
    received_at: datetime
    event: NotificationEvent

    def to_line(self) -> dict[str, Any]:
        """The log line without its crc."""
        return {
            "context_id": self.context_id,
            "ring_generation": self.ring_generation,
            "ring_seq": self.ring_seq,
            "received_at": format_rfc3339(self.received_at),
            **self.event.to_dict(),
        }

    @classmethod
    def from_line(cls, line: dict[str, Any]) -> NotificationRecord:
        event = NotificationEvent(
            kind=EventKind(line["kind"]),
            key=line["key"],
            app_id=line["app_id"],
            title=line.get("title", ""),
            subtitle=line.get("subtitle", ""),
            body=line.get("body", ""),
            category=line.get("category", ""),
            posted_at=parse_rfc3339(line["posted_at"]),
            truncated=bool(line.get("truncated", False)),
            source=line.get("source", "feed"),
        )
        return cls(
            context_id=int(line["context_id"]),
            ring_generation=str(line["ring_generation"]),
            ring_seq=int(line["ring_seq"]),
            received_at=parse_rfc3339(line["received_at"], "received_at"),
            event=event,
        )


@dataclass(frozen=True, slots=True)
class Gap:
    """Something the log knows it does not hold, or skipped on purpose.

    `first`/`last` are context ids, except for "ring_overflow" where they are
    ring sequence numbers of the ring generation named in `ref`. `reason` is a
    bounded code, never content. `ref` de-duplicates a gap found twice (e.g. a
    crash between recording a gap and acting on it).
    """

    kind: str
    first: int | None
    last: int | None
    count: int
    reason: str
    at: datetime
    ref: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "first": self.first,
            "last": self.last,
            "count": self.count,
            "reason": self.reason,
            "at": format_rfc3339(self.at),
            "ref": self.ref,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Gap:
        return cls(
            kind=str(data["kind"]),
            first=data.get("first"),
            last=data.get("last"),
            count=int(data.get("count", 0)),
            reason=str(data.get("reason", "")),
            at=parse_rfc3339(data["at"], "at"),
            ref=data.get("ref"),
        )

    def identity(self) -> tuple[str, int | None, int | None, str | None]:
        return (self.kind, self.first, self.last, self.ref)


@dataclass(frozen=True, slots=True)
class SourceCursor:
    """The last ring item made durable: its ring generation and sequence number."""

    ring_generation: str | None
    ring_seq: int

    def to_dict(self) -> dict[str, Any]:
        return {"ring_generation": self.ring_generation, "ring_seq": self.ring_seq}


@dataclass(frozen=True, slots=True)
class ConsumeResult:
    """What one `consume` did; `duplicates` counts ring events already in the log."""

    persisted: int
    lost: int
    paused: bool
    duplicates: int = 0


@dataclass(frozen=True, slots=True)
class CleanupResult:
    shards: int
    bytes_freed: int
