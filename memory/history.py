"""A memory's revisions: what each write did to it, when, from which scenario.

`memory_history` (migration 0012) gets one row per write of a memory, in the
transaction of the write (`memory.intents.apply_intents`, `memory.owner.forget`), so a
rolled-back write leaves none. A row holds the text only when the write changed it
(create, update; NULL: as before), so a reinforcement costs a few bytes; `read`
carries the text forward. Rows are the memory's content: only the host reads them
(`MemoryStore.history`, `Runtime.memory_history`), never a log or an error.

Forget scrubs them as it scrubs every other copy (`memory.owner.forget`): the
forgotten memory's rows lose their text (`forget_memory`), and the secret values it
held are cut out of every other memory's rows (`scrub_values`). Rows go with their
memory when cleanup compacts it to a tombstone (`prune`), and with `delete_all`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from companion_memory.memory import rejections
from companion_memory.memory.rows import from_us

DDL = """
CREATE TABLE memory_history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    op TEXT NOT NULL,
    at_us INTEGER NOT NULL,
    text TEXT,
    origin TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX memory_history_memory ON memory_history (memory_id, id);
INSERT INTO memory_history (memory_id, revision, op, at_us, text, origin, reason)
    SELECT memory_id, revision, 'migrated', updated_us, text, 'migration', NULL
    FROM memories WHERE status = 'active' ORDER BY rowid;
"""
"""The table, and for a store written before it one `migrated` row per active memory
holding its text and revision as they are (what came before is not known)."""

FORGOTTEN = "forgotten_by_owner"


@dataclass(frozen=True, slots=True)
class MemoryRevision:
    """One write of a memory, oldest first in `Runtime.memory_history`.

    `op`: create, update, reinforce, remove, promote, supersede, forget (or `migrated`:
    the memory as it was when the store gained its history). `text`: the memory's text
    from this revision on; None once the owner forgot the memory. `origin`: which
    scenario wrote it (notifications, episodes, sweep, host). `reason`: a code, when
    the write has one (a removal's, `forgotten_by_owner`)."""

    revision: int
    op: str
    at: datetime
    text: str | None
    origin: str
    reason: str | None


def record(
    conn: sqlite3.Connection, memory_id: str, revision: int, op: str, at_us: int, *,
    text: str | None, origin: str, reason: str | None = None,
) -> None:
    """One history row, in the caller's transaction."""
    conn.execute(
        "INSERT INTO memory_history (memory_id, revision, op, at_us, text, origin, reason) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (memory_id, revision, op, at_us, text, origin, reason),
    )


def read(conn: sqlite3.Connection, memory_id: str) -> list[MemoryRevision]:
    """Every revision of `memory_id`, oldest first, each with the text it had then."""
    out: list[MemoryRevision] = []
    text: str | None = None
    rows = conn.execute(
        "SELECT revision, op, at_us, text, origin, reason, "
        "EXISTS (SELECT 1 FROM memory_history f WHERE f.memory_id = h.memory_id "
        "AND f.op = 'forget') FROM memory_history h WHERE memory_id = ? ORDER BY id",
        (memory_id,),
    ).fetchall()
    for revision, op, at_us, row_text, origin, reason, forgotten in rows:
        if row_text is not None:
            text = str(row_text)
        out.append(MemoryRevision(int(revision), str(op), from_us(int(at_us)),
                                  None if forgotten else text, str(origin),
                                  None if reason is None else str(reason)))
    return out


def forget_memory(conn: sqlite3.Connection, memory_id: str, revision: int, at_us: int) -> None:
    """The forgotten memory's rows keep no text or reason; a `forget` row is added."""
    conn.execute(
        "UPDATE memory_history SET text = NULL, reason = NULL WHERE memory_id = ?", (memory_id,)
    )
    record(conn, memory_id, revision, "forget", at_us, text=None, origin="host",
           reason=FORGOTTEN)


def scrub_values(conn: sqlite3.Connection, needles: Iterable[str]) -> None:
    """Cut each of `needles` (a forgotten memory's secret values) out of every row."""
    for needle in needles:
        rows = conn.execute(
            "SELECT id, text FROM memory_history WHERE instr(text, ?) > 0", (needle,)
        ).fetchall()
        for row_id, text in rows:
            conn.execute("UPDATE memory_history SET text = ? WHERE id = ?",
                         (rejections.scrub(str(text), [needle]), row_id))


def prune(conn: sqlite3.Connection) -> int:
    """Drop the rows of memories no longer in `memories` (compacted to tombstones)."""
    cur = conn.execute(
        "DELETE FROM memory_history WHERE NOT EXISTS "
        "(SELECT 1 FROM memories m WHERE m.memory_id = memory_history.memory_id)"
    )
    return int(cur.rowcount)
