"""The table of migration 0014, `notification_attempts`, now replaced by `work_attempts`.

Migration 0014 created it (stores written before 0014 already held the table: the
notification processor created it on first use, so the DDL creates it only if missing);
migration 0016 (`memory.work_ledger.CARRY_OVER`) copies its rows into the one work
ledger and drops it. The DDL stays because a migration's text never changes: a store
older than 0014 still runs it before 0016.
"""

from __future__ import annotations

DDL = """
CREATE TABLE IF NOT EXISTS notification_attempts (
    first_context_id INTEGER PRIMARY KEY,
    attempts INTEGER NOT NULL,
    last_code TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""
