"""Mapping between `memories` rows and `MemoryRecord`, and the time encoding."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from enum import Enum
from functools import lru_cache
from typing import TypeVar

import orjson

from companion_memory.memory.records import (
    Authority,
    InvalidMemoryError,
    Kind,
    MemoryRecord,
    SourceRef,
    Status,
    Tier,
)
from companion_memory.memory.rejections import fingerprint

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)

COLUMNS = (
    "memory_id, revision, tier, kind, text, authority, sources, created_us, updated_us, "
    "expires_us, reinforced, status, subject, superseded_by, auto, occurred_us, app_id, sender"
)
"""The SELECT list that `record_from_row` reads, in order."""
N_COLUMNS = 18
"""How many values `COLUMNS` selects (a query may select more after them)."""


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


@lru_cache(maxsize=4096)
def sources_from_json(text: str) -> tuple[SourceRef, ...]:
    """Decoded source list; memoized (the tuple of frozen refs is immutable, so shared)."""
    return tuple(SourceRef.parse(item) for item in orjson.loads(text))


E = TypeVar("E", bound=Enum)


def _members(enum: type[E]) -> dict[object, E]:
    return {member.value: member for member in enum}


_TIERS, _KINDS = _members(Tier), _members(Kind)
_AUTHORITIES, _STATUSES = _members(Authority), _members(Status)


def _member(table: dict[object, E], enum: type[E], value: object) -> E:
    member = table.get(value)
    return enum(value) if member is None else member  # enum() raises the usual ValueError


def record_from_row(row: sqlite3.Row | tuple[object, ...]) -> MemoryRecord:
    """Decode one row of `COLUMNS` (dict lookups for the enums, memoized sources)."""
    (memory_id, revision, tier, kind, text, authority, sources, created_us, updated_us,
     expires_us, reinforced, status, subject, superseded_by, auto, occurred_us, app_id,
     sender) = tuple(row)[:N_COLUMNS]
    return MemoryRecord(
        str(memory_id),
        int(revision),
        _member(_TIERS, Tier, tier),
        _member(_KINDS, Kind, kind),
        str(text),
        _member(_AUTHORITIES, Authority, authority),
        sources_from_json(str(sources)),
        EPOCH + timedelta(microseconds=created_us),
        EPOCH + timedelta(microseconds=updated_us),
        None if expires_us is None else EPOCH + timedelta(microseconds=expires_us),
        int(reinforced),
        _member(_STATUSES, Status, status),
        None if subject is None else str(subject),
        None if superseded_by is None else str(superseded_by),
        bool(auto),
        EPOCH + timedelta(microseconds=created_us if occurred_us is None else occurred_us),
        None if app_id is None else str(app_id),
        None if sender is None else str(sender),
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
    row = conn.execute(
        "SELECT 1 FROM memory_rejections WHERE fingerprint = ? LIMIT 1", (fingerprint(norm),)
    )
    return row.fetchone() is not None
