"""Mapping between `memories` rows and `MemoryRecord`, and the time encoding."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from memory.records import (
    Authority,
    InvalidMemoryError,
    Kind,
    MemoryRecord,
    SourceRef,
    Status,
    Tier,
)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)

COLUMNS = (
    "memory_id, revision, tier, kind, text, authority, sources, created_us, updated_us, "
    "expires_us, reinforced, status, subject, superseded_by, auto"
)
"""The SELECT list that `record_from_row` reads, in order."""


def require_aware(when: datetime, what: str = "now") -> datetime:
    if not isinstance(when, datetime) or when.tzinfo is None:
        raise InvalidMemoryError(what, "must be a timezone-aware datetime")
    return when.astimezone(UTC)


def to_us(when: datetime) -> int:
    return (require_aware(when, "time") - EPOCH) // _US


def from_us(value: int) -> datetime:
    return EPOCH + timedelta(microseconds=value)


def sources_to_json(sources: Iterable[SourceRef]) -> str:
    return json.dumps([s.to_str() for s in sources], separators=(",", ":"))


def sources_from_json(text: str) -> tuple[SourceRef, ...]:
    return tuple(SourceRef.parse(item) for item in json.loads(text))


def record_from_row(row: sqlite3.Row | tuple[object, ...]) -> MemoryRecord:
    (memory_id, revision, tier, kind, text, authority, sources, created_us, updated_us,
     expires_us, reinforced, status, subject, superseded_by, auto) = tuple(row)[:15]
    return MemoryRecord(
        memory_id=str(memory_id),
        revision=int(revision),  # type: ignore[call-overload]
        tier=Tier(tier),
        kind=Kind(kind),
        text=str(text),
        authority=Authority(authority),
        sources=sources_from_json(str(sources)),
        created_at=from_us(int(created_us)),  # type: ignore[call-overload]
        updated_at=from_us(int(updated_us)),  # type: ignore[call-overload]
        expires_at=None if expires_us is None else from_us(int(expires_us)),  # type: ignore[call-overload]
        reinforced=int(reinforced),  # type: ignore[call-overload]
        status=Status(status),
        subject=None if subject is None else str(subject),
        superseded_by=None if superseded_by is None else str(superseded_by),
        auto=bool(auto),
    )


def fetch_record(conn: sqlite3.Connection, memory_id: str) -> MemoryRecord | None:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    return None if row is None else record_from_row(row)


def is_tombstoned(conn: sqlite3.Connection, memory_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM memory_tombstones WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    return row is not None


def is_rejected_norm(conn: sqlite3.Connection, norm: str) -> bool:
    row = conn.execute("SELECT 1 FROM memory_rejections WHERE norm = ? LIMIT 1", (norm,))
    return row.fetchone() is not None
