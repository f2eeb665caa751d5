"""The one work ledger: failed attempts and poisoned units of every scenario.

Each scenario (notifications, episodes, sweep) retries a unit of work (a notification
batch, an episode, a swept day) a few times and, past its retry budget, gives it up as
poison. `work_attempts` holds, per (scenario, work key), how often the unit failed, the
last failure's reason code (never content), when the next attempt is due where the
scenario backs off, and when the unit was given up (`poisoned_us`). Every scenario
counts through `record_failure`, so "how many tries, which code, given up when" reads
the same everywhere (`MemoryStore.work_attempt` / `poisoned_work`).

Work keys, per scenario:
- notifications: the batch's first context id, in decimal (`notification_key`);
- episodes: the episode id;
- sweep: `<window id>|<namespace>` (`sweep_key`); a window id begins with its local
  date, so a day's rows sort by date (`clear_below` prunes them with the window).

A row lives until its scenario clears it: notifications on the commit of the batch
(`clear_numbered_through`), the sweep when the cursor leaves the window far behind
(`clear_below`); an episode's row stays with its ledger row (its count is part of the
episode's state). A poisoned notification batch's row is kept `POISON_KEPT` past its
poisoning so that a status reader sees it, then dropped by the next failure.

Migrations: `0015_work_ledger_create` creates the table (`DDL`);
`0016_work_ledger_carry_over` copies the rows of the three older ledgers into it and
drops the two attempt tables (`CARRY_OVER`); `0017_episode_ledger_drop_attempts`
(`memory.episode_ledger.DROP_ATTEMPTS`) drops the episode ledger's `attempts` and
`next_attempt_at` columns (SQLite drops a column since 3.35; the oldest supported is
3.40). Functions here are synchronous, take the connection of the caller's
transaction, and run SQL only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory.rows import from_us, to_us


class Scenario(StrEnum):
    """The scenarios that count attempts here (the `scenario` column)."""

    NOTIFICATIONS = "notifications"
    EPISODES = "episodes"
    SWEEP = "sweep"


DDL = """
CREATE TABLE work_attempts (
    scenario TEXT NOT NULL CHECK (scenario IN ('notifications', 'episodes', 'sweep')),
    work_key TEXT NOT NULL CHECK (length(work_key) BETWEEN 1 AND 200),
    attempts INTEGER NOT NULL CHECK (attempts >= 0),
    last_code TEXT NOT NULL,
    next_attempt_us INTEGER,
    poisoned_us INTEGER,
    updated_us INTEGER NOT NULL,
    PRIMARY KEY (scenario, work_key)
) WITHOUT ROWID;
CREATE INDEX work_attempts_poisoned ON work_attempts (scenario, poisoned_us)
    WHERE poisoned_us IS NOT NULL;
"""
"""The ledger's table; migration `0015_work_ledger_create` runs it."""

# An ISO-8601 text time of the older ledgers as integer microseconds, at millisecond
# precision (julianday's); an unreadable one (never written by this code) as 0.
_US_OF = "COALESCE(CAST(round((julianday({0}) - 2440587.5) * 86400000.0) AS INTEGER) * 1000, 0)"

CARRY_OVER = f"""
INSERT OR IGNORE INTO work_attempts (scenario, work_key, attempts, last_code,
    next_attempt_us, poisoned_us, updated_us)
SELECT 'notifications', CAST(first_context_id AS TEXT), attempts, substr(last_code, 1, 64),
    NULL, NULL, {_US_OF.format("updated_at")}
FROM notification_attempts;
INSERT OR IGNORE INTO work_attempts (scenario, work_key, attempts, last_code,
    next_attempt_us, poisoned_us, updated_us)
SELECT 'sweep', a.window_id || '|' || a.namespace, a.attempts, substr(a.last_error, 1, 64),
    NULL,
    CASE WHEN EXISTS (SELECT 1 FROM sweep_stages s WHERE s.namespace = a.namespace
        AND s.window_id = a.window_id AND s.output LIKE '%"source":"invalid_output"%')
    THEN {_US_OF.format("a.updated_at")} END,
    {_US_OF.format("a.updated_at")}
FROM sweep_attempts a;
INSERT OR IGNORE INTO work_attempts (scenario, work_key, attempts, last_code,
    next_attempt_us, poisoned_us, updated_us)
SELECT 'episodes', episode_id, attempts,
    substr(CASE WHEN reason LIKE 'retry_budget_exhausted:%'
        THEN substr(reason, length('retry_budget_exhausted:') + 1)
        ELSE COALESCE(reason, 'unknown') END, 1, 64),
    CASE WHEN state = 'retry' AND next_attempt_at IS NOT NULL
        THEN {_US_OF.format("next_attempt_at")} END,
    CASE WHEN state = 'ignored' AND reason LIKE 'retry_budget_exhausted:%'
        THEN {_US_OF.format("updated_at")} END,
    {_US_OF.format("updated_at")}
FROM episode_ledger WHERE attempts > 0;
DROP TABLE notification_attempts;
DROP TABLE sweep_attempts;
"""
"""Migration `0016_work_ledger_carry_over`: every count of the three older ledgers, then
the two attempt tables go. An old sweep row counts as poisoned when its window's stage
is the empty `invalid_output` page (what the budget's end staged); an old episode row
when its episode was ignored with `retry_budget_exhausted:<code>` (the code is kept)."""

CODE_CHARS = 64
"""A reason code is cut to this length."""

POISON_KEPT: dict[Scenario, timedelta] = {Scenario.NOTIFICATIONS: timedelta(days=30)}
"""How long a poisoned unit's row outlives its poisoning, where its scenario does not
clear it otherwise (a poisoned notification batch is a gap in the log for good)."""


@dataclass(frozen=True, slots=True)
class WorkAttempt:
    """One unit's failures: the count, the last reason code, the backoff and whether
    (since when) the unit is given up."""

    scenario: Scenario
    key: str
    attempts: int
    last_code: str
    next_attempt_at: datetime | None
    poisoned_at: datetime | None
    updated_at: datetime

    @property
    def poisoned(self) -> bool:
        """True once the retry budget was spent: the unit is not tried again."""
        return self.poisoned_at is not None

    def to_dict(self) -> dict[str, object]:
        """Counts, codes and times only (a work key is an id, never content)."""
        return {
            "scenario": self.scenario.value, "key": self.key, "attempts": self.attempts,
            "last_code": self.last_code,
            "next_attempt_at": _iso(self.next_attempt_at),
            "poisoned_at": _iso(self.poisoned_at), "updated_at": _iso(self.updated_at),
        }


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def notification_key(first_context_id: int) -> str:
    """The work key of the notification batch starting at `first_context_id`."""
    return str(int(first_context_id))


def sweep_key(namespace: int, window_id: str) -> str:
    """The work key of a sweep window in a receipt namespace (date first, see above)."""
    return f"{window_id}|{int(namespace)}"


_COLUMNS = "scenario, work_key, attempts, last_code, next_attempt_us, poisoned_us, updated_us"


def _scenario(value: Scenario | str) -> Scenario:
    try:
        return Scenario(value)
    except ValueError:
        known = ", ".join(s.value for s in Scenario)
        raise InvalidInputError(f"unknown work scenario {value!r}; known: {known}",
                                code="unknown_work_scenario") from None


def _key(key: str) -> str:
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise InvalidInputError(
            f"a work key must be text of 1 to 200 characters, not {type(key).__name__} "
            f"of length {len(key) if isinstance(key, str) else '-'}", code="invalid_work_key")
    return key


def _row(values: Sequence[Any]) -> WorkAttempt:
    next_us, poisoned_us = values[4], values[5]
    return WorkAttempt(
        scenario=Scenario(values[0]), key=values[1], attempts=int(values[2]),
        last_code=values[3],
        next_attempt_at=None if next_us is None else from_us(int(next_us)),
        poisoned_at=None if poisoned_us is None else from_us(int(poisoned_us)),
        updated_at=from_us(int(values[6])),
    )


def get(conn: sqlite3.Connection, scenario: Scenario | str, key: str) -> WorkAttempt | None:
    """The unit's failures, or None when it never failed (or was cleared)."""
    values = conn.execute(
        f"SELECT {_COLUMNS} FROM work_attempts WHERE scenario = ? AND work_key = ?",
        (_scenario(scenario).value, _key(key)),
    ).fetchone()
    return None if values is None else _row(values)


def count(conn: sqlite3.Connection, scenario: Scenario | str, key: str) -> int:
    """The unit's failed attempts (0: none)."""
    row = get(conn, scenario, key)
    return 0 if row is None else row.attempts


def record_failure(
    conn: sqlite3.Connection, scenario: Scenario | str, key: str, code: str, *,
    now: datetime, budget: int, retry_at: datetime | None = None,
) -> WorkAttempt:
    """Count one more failed attempt with its reason `code` (cut to `CODE_CHARS`); the
    unit is poisoned (`poisoned_at` = now, no next attempt) once its count reaches
    `budget`, else its next attempt is due at `retry_at` (None: at once). Returns the
    row as written; the caller acts on `poisoned`."""
    scenario = _scenario(scenario)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise InvalidInputError(f"a retry budget must be a positive integer, not {budget!r}",
                                code="invalid_retry_budget")
    stamp = to_us(now)
    _prune_poisoned(conn, scenario, now)
    conn.execute(
        "INSERT INTO work_attempts (scenario, work_key, attempts, last_code, next_attempt_us,"
        " poisoned_us, updated_us) VALUES (?, ?, 1, ?, ?, NULL, ?)"
        " ON CONFLICT(scenario, work_key) DO UPDATE SET attempts = attempts + 1,"
        " last_code = excluded.last_code, next_attempt_us = excluded.next_attempt_us,"
        " updated_us = excluded.updated_us",
        (scenario.value, _key(key), str(code)[:CODE_CHARS],
         None if retry_at is None else to_us(retry_at), stamp),
    )
    conn.execute(
        "UPDATE work_attempts SET poisoned_us = COALESCE(poisoned_us, ?),"
        " next_attempt_us = NULL WHERE scenario = ? AND work_key = ? AND attempts >= ?",
        (stamp, scenario.value, key, budget),
    )
    row = get(conn, scenario, key)
    if row is None:  # pragma: no cover - the upsert above guarantees a row
        raise sqlite3.IntegrityError("the work attempt was not stored")
    return row


def _prune_poisoned(conn: sqlite3.Connection, scenario: Scenario, now: datetime) -> None:
    kept = POISON_KEPT.get(scenario)
    if kept is not None:
        conn.execute(
            "DELETE FROM work_attempts WHERE scenario = ? AND poisoned_us < ?",
            (scenario.value, to_us(now - kept)),
        )


def clear(conn: sqlite3.Connection, scenario: Scenario | str, keys: Sequence[str]) -> int:
    """Forget the failures of these units; returns the rows deleted."""
    name = _scenario(scenario).value
    return sum(
        conn.execute("DELETE FROM work_attempts WHERE scenario = ? AND work_key = ?",
                     (name, _key(key))).rowcount
        for key in keys
    )


def clear_numbered_through(conn: sqlite3.Connection, scenario: Scenario | str, last: int,
                           *, keep_poisoned: bool = True) -> int:
    """Forget the failures of every unit whose key is a number at most `last` (the
    notification batches starting at or before a committed context id); a poisoned
    unit's row stays for status readers unless `keep_poisoned` is False."""
    poisoned = " AND poisoned_us IS NULL" if keep_poisoned else ""
    return conn.execute(
        "DELETE FROM work_attempts WHERE scenario = ? AND CAST(work_key AS INTEGER) <= ?"
        + poisoned,
        (_scenario(scenario).value, int(last)),
    ).rowcount


def clear_below(conn: sqlite3.Connection, scenario: Scenario | str, bound: str) -> int:
    """Forget the failures of every unit whose key sorts before `bound` (a sweep window
    key begins with its local date, so a date prunes the days before it)."""
    return conn.execute(
        "DELETE FROM work_attempts WHERE scenario = ? AND work_key < ?",
        (_scenario(scenario).value, str(bound)),
    ).rowcount


def poisoned(conn: sqlite3.Connection, scenario: Scenario | str | None = None,
             limit: int = 100) -> list[WorkAttempt]:
    """The given-up units (of one scenario, or all), most recently poisoned first."""
    if scenario is None:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM work_attempts WHERE poisoned_us IS NOT NULL"
            " ORDER BY poisoned_us DESC, scenario, work_key LIMIT ?", (int(limit),),
        ).fetchall()
    else:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM work_attempts WHERE scenario = ? AND poisoned_us IS NOT"
            " NULL ORDER BY poisoned_us DESC, work_key LIMIT ?",
            (_scenario(scenario).value, int(limit)),
        ).fetchall()
    return [_row(v) for v in rows]


def counts(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    """Per scenario: units with failures still retried (`retrying`) and given up
    (`poisoned`); every scenario present, zero when none."""
    out = {s.value: {"retrying": 0, "poisoned": 0} for s in Scenario}
    for name, given_up, n in conn.execute(
        "SELECT scenario, poisoned_us IS NOT NULL, COUNT(*) FROM work_attempts"
        " GROUP BY scenario, poisoned_us IS NOT NULL"
    ):
        out[str(name)]["poisoned" if given_up else "retrying"] = int(n)
    return out
