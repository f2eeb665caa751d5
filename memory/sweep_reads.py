"""The reads of the `memories` table the daily sweep makes (synchronous).

The sweep (`agent.sweep`) decides what to write from the live memories; the SQL that
finds them lives here so agent code runs none. Every function takes a
`sqlite3.Connection` and runs on the store's thread, inside `MemoryStore.read(fn)` or
`MemoryStore.transaction(fn)` (the latter when the answer must hold for the write in
the same transaction); `SweepReader` hands the same reads to the planner of one
candidate's write (`agent.sweep.apply`) without the connection.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime

from companion_memory.memory.records import MemoryRecord
from companion_memory.memory.rows import (
    COLUMNS,
    fetch_record,
    memory_detail,
    record_from_row,
    to_us,
)


def long_term_with_subject(conn: sqlite3.Connection, now: datetime,
                           matches: Callable[[str], bool]) -> list[MemoryRecord]:
    """The live Long-Term memories whose stored subject `matches` (the caller's test,
    such as "normalizes to this subject"), in table order."""
    rows = conn.execute(
        "SELECT memory_id, subject FROM memories WHERE tier = 'long_term' "
        "AND status = 'active' AND subject IS NOT NULL "
        "AND (expires_us IS NULL OR expires_us > ?)",
        (to_us(now),),
    ).fetchall()
    found: list[MemoryRecord] = []
    for memory_id, stored in rows:
        if not matches(str(stored)):
            continue
        record = fetch_record(conn, str(memory_id))
        if record is not None:
            found.append(record)
    return found


def long_term_twin(conn: sqlite3.Connection, norm: str, now: datetime) -> str | None:
    """The id of a live Long-Term memory whose normalized text is `norm`, or None."""
    row = conn.execute(
        "SELECT memory_id FROM memories WHERE norm = ? AND tier = 'long_term' "
        "AND status = 'active' AND (expires_us IS NULL OR expires_us > ?) LIMIT 1",
        (norm, to_us(now)),
    ).fetchone()
    return None if row is None else str(row[0])


def window_memories(conn: sqlite3.Connection, start: datetime, end: datetime,
                    now: datetime) -> list[MemoryRecord]:
    """Memories live at `now` from the window [start, end): Temporary ones created or
    updated in it, and Long-Term ones a processor (not the sweep, whose ids start with
    `sweep-`) created in it."""
    start_us, end_us = to_us(start), to_us(end)
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE status = 'active' "
        "AND (expires_us IS NULL OR expires_us > ?) AND ("
        "(tier = 'temporary' AND ((created_us >= ? AND created_us < ?) "
        "OR (updated_us >= ? AND updated_us < ?))) "
        "OR (tier = 'long_term' AND created_us >= ? AND created_us < ? "
        "AND memory_id NOT LIKE 'sweep-%'))",
        (to_us(now), start_us, end_us, start_us, end_us, start_us, end_us),
    ).fetchall()
    return [record_from_row(row) for row in rows]


class SweepReader:
    """The memories as the sweep's planner sees them inside the transaction that writes
    one candidate (`sweep_ledger.apply_candidate`): the same reads as above, bound to
    that transaction, so the answer holds for the write and agent code never holds the
    connection."""

    __slots__ = ("_conn",)

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def record(self, memory_id: str) -> MemoryRecord | None:
        """The memory with this id in any status, or None."""
        return fetch_record(self._conn, memory_id)

    def detail(self, memory_id: str) -> str:
        """A memory's search-only detail ("" when it has none)."""
        return memory_detail(self._conn, memory_id)

    def long_term_with_subject(self, now: datetime,
                               matches: Callable[[str], bool]) -> list[MemoryRecord]:
        """See `long_term_with_subject`."""
        return long_term_with_subject(self._conn, now, matches)

    def long_term_twin(self, norm: str, now: datetime) -> str | None:
        """See `long_term_twin`."""
        return long_term_twin(self._conn, norm, now)
