"""Mapping between `memories` rows and `MemoryRecord`, the time encoding, and the
savepoint helper callers of `MemoryStore.transaction` use to undo part of one."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
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


def memory_detail(conn: sqlite3.Connection, memory_id: str) -> str:
    """A memory's search-only detail ("" when it has none or there is no such memory)."""
    row = conn.execute("SELECT detail FROM memories WHERE memory_id = ?",
                       (memory_id,)).fetchone()
    return str(row[0] or "") if row else ""


@contextmanager
def savepoint(conn: sqlite3.Connection, name: str) -> Iterator[None]:
    """Run the block inside SQLite savepoint `name` (an identifier): released when the
    block ends; when it raises, what it wrote is rolled back to the savepoint, the
    savepoint released and the exception raised on, so the enclosing transaction
    continues without the block's writes (the caller decides whether to go on)."""
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise ValueError(f"savepoint name must be an ASCII identifier, not {name!r}")
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        # If SQLite cannot even roll back (a broken connection), the block's own error
        # is the one that matters: it goes on and the enclosing transaction rolls back.
        with suppress(sqlite3.Error):
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
        raise
    conn.execute(f"RELEASE {name}")
