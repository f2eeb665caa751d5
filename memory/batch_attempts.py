"""Failed attempts of a notification batch (migration 0014).

The notification processor counts, per batch (keyed by its first context id), how
often a model call or a write failed; past its retry budget it skips the batch as a
gap. `notification_attempts` holds that count, the last failure's reason code (never
content) and when it was recorded. Rows are dropped once the batch's records are
committed or skipped (`clear`). Stores written before 0014 already hold the table (the
processor created it on first use), so the migration creates it only if missing.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

DDL = """
CREATE TABLE IF NOT EXISTS notification_attempts (
    first_context_id INTEGER PRIMARY KEY,
    attempts INTEGER NOT NULL,
    last_code TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""

CODE_CHARS = 64
"""A reason code is cut to this length."""


def count(conn: sqlite3.Connection, first_context_id: int) -> int:
    """Failed attempts recorded for the batch starting at `first_context_id` (0: none)."""
    row = conn.execute(
        "SELECT attempts FROM notification_attempts WHERE first_context_id = ?",
        (first_context_id,),
    ).fetchone()
    return int(row[0]) if row else 0


def bump(conn: sqlite3.Connection, first_context_id: int, code: str, at: datetime) -> int:
    """Count one more failed attempt with its reason code; the new count."""
    conn.execute(
        "INSERT INTO notification_attempts (first_context_id, attempts, last_code, "
        "updated_at) VALUES (?, 1, ?, ?) ON CONFLICT(first_context_id) DO UPDATE SET "
        "attempts = attempts + 1, last_code = excluded.last_code, "
        "updated_at = excluded.updated_at",
        (first_context_id, code[:CODE_CHARS], at.isoformat()),
    )
    return count(conn, first_context_id)


def clear(conn: sqlite3.Connection, up_to: int) -> None:
    """Forget the attempts of every batch starting at or before context id `up_to`."""
    conn.execute("DELETE FROM notification_attempts WHERE first_context_id <= ?", (up_to,))
