"""The decision trail: per notification, content-free, what the processor did with it.

The table and its functions live here, in the memory package; the notification
processor writes through `MemoryStore.record_decisions` and the host reads through
`MemoryStore.decisions` (`Runtime.notification_decisions`), so agent code runs no SQL.

One row per persisted notification the processor finished with (`notification_decisions`
in the memory database, migration 0013): `kept` with the ids of the memories it wrote
or changed, or `dropped` with a reason code: the triage's reason (`verification_code`
for a notification that is nothing but a one-time code), `noise_model`, `removed` (only
removal events), `coalesced` (a newer event of the same notification carried the
content), `ignored` (the model or fallback wrote nothing), `rejected_by_owner`,
`secret_in_statement`, `conflicting_target`, `no_proposal`, or `gap_<code>` (a batch
skipped after its retries). Written after the batch
committed, so a crash between the two leaves that batch without decisions (its
memories are committed); never a title, body or memory text. Rows older than the
notification log's retention at the Normal level (by when the notification was
received) are pruned when decisions are written.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from companion_memory.memory.rows import from_us, to_us

KEPT = "kept"
DROPPED = "dropped"


@dataclass(frozen=True, slots=True)
class NotificationDecision:
    """What became of one notification (`Runtime.notification_decisions`); no content."""

    context_id: int
    received_at: datetime
    decided_at: datetime
    outcome: str
    """`kept` or `dropped`."""
    reason: str | None
    """The code a dropped notification was dropped for; None when kept."""
    memory_ids: tuple[str, ...]
    """The memories a kept notification wrote or changed."""


def write(conn: sqlite3.Connection, decisions: Sequence[NotificationDecision],
          prune_before: datetime) -> None:
    """Record (or replace) each notification's decision and drop the rows of
    notifications received before `prune_before`."""
    conn.executemany(
        "INSERT OR REPLACE INTO notification_decisions (context_id, received_us, decided_us, "
        "outcome, reason, memory_ids) VALUES (?, ?, ?, ?, ?, ?)",
        [(d.context_id, to_us(d.received_at), to_us(d.decided_at), d.outcome, d.reason,
          json.dumps(list(d.memory_ids))) for d in decisions],
    )
    conn.execute("DELETE FROM notification_decisions WHERE received_us < ?",
                 (to_us(prune_before),))


def read(conn: sqlite3.Connection, since: datetime | None, limit: int
         ) -> list[NotificationDecision]:
    """At most `limit` decisions of notifications received at or after `since` (None:
    all), newest received first."""
    rows = conn.execute(
        "SELECT context_id, received_us, decided_us, outcome, reason, memory_ids "
        "FROM notification_decisions WHERE received_us >= ? "
        "ORDER BY received_us DESC, context_id DESC LIMIT ?",
        (-(2**62) if since is None else to_us(since), limit),
    ).fetchall()
    return [NotificationDecision(int(c), from_us(int(r)), from_us(int(d)), str(o),
                                 None if why is None else str(why),
                                 tuple(json.loads(str(ids))))
            for c, r, d, o, why, ids in rows]
