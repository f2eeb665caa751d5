"""Listing, export, statistics and cleanup of the memory database (sync, store thread)."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from companion_memory.memory import fts_index, history, write_events
from companion_memory.memory.filters import NO_FILTER, MemoryFilter
from companion_memory.memory.records import Kind, MemoryRecord, Tier
from companion_memory.memory.rows import COLUMNS, N_COLUMNS, from_us, record_from_row, to_us
from companion_memory.memory.write_events import MemoryWrite


def list_records(
    conn: sqlite3.Connection,
    now: datetime,
    *,
    tier: Tier | None = None,
    include_inactive: bool,
    limit: int,
    tiers: Collection[Tier] | None = None,
    where: MemoryFilter = NO_FILTER,
    by_time: bool = False,
) -> list[MemoryRecord]:
    """Memories newest first: by last update, or with `by_time` by when their content
    happened or arrived (`occurred_us`); `tier`/`tiers` and `where` narrow them."""
    clauses: list[str] = []
    params: list[Any] = []
    if tier is not None:
        clauses.append("tier = ?")
        params.append(Tier(tier).value)
    if tiers is not None:
        values = sorted({Tier(t).value for t in tiers})
        clauses.append(f"tier IN ({', '.join('?' for _ in values)})")
        params.extend(values)
    if not include_inactive:
        clauses.append("status = 'active' AND (expires_us IS NULL OR expires_us > ?)")
        params.append(to_us(now))
    extra, extra_params = where.sql()
    if extra:
        clauses.append(extra.removeprefix(" AND "))
        params.extend(extra_params)
    where_sql = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    order = "occurred_us DESC" if by_time else "updated_us DESC"
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM memories {where_sql} ORDER BY {order}, rowid DESC LIMIT ?",
        (*params, max(0, limit)),
    ).fetchall()
    return [record_from_row(r) for r in rows]


def export(conn: sqlite3.Connection, now: datetime) -> list[dict[str, Any]]:
    """Every live record and every tombstone (deleted/superseded rows, compacted ids)."""
    now_us = to_us(now)
    out: list[dict[str, Any]] = []
    rows = conn.execute(
        f"SELECT {COLUMNS}, status_reason FROM memories "
        "WHERE (status = 'active' AND (expires_us IS NULL OR expires_us > ?)) "
        "OR status != 'active' ORDER BY rowid",
        (now_us,),
    ).fetchall()
    for row in rows:
        item = record_from_row(row).to_dict()
        item["tombstone"] = item["status"] != "active"
        if item["tombstone"]:
            item["reason"] = row[N_COLUMNS]
        out.append(item)
    for memory_id, status, removed_us in conn.execute(
        "SELECT memory_id, status, removed_us FROM memory_tombstones ORDER BY memory_id"
    ):
        out.append(
            {
                "memory_id": memory_id,
                "status": status,
                "tombstone": True,
                "removed_at": from_us(removed_us).isoformat(),
            }
        )
    return out


def delete_all(conn: sqlite3.Connection) -> int:
    """Remove every memory, tombstone and rejection; cursors and receipts stay."""
    count = int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
    conn.execute("DELETE FROM memories")
    conn.execute("DELETE FROM memory_tombstones")
    conn.execute("DELETE FROM memory_rejections")
    conn.execute("DELETE FROM memory_promotions")
    conn.execute("DELETE FROM memory_history")
    return count


RECEIPT_RETENTION = timedelta(days=90)
"""Idempotency receipts older than this are dropped: a batch is retried within minutes or
hours, and its derived memory ids keep a later retry from duplicating even without one."""


def cleanup_expired(conn: sqlite3.Connection, now: datetime) -> int:
    """Move expired, deleted and superseded rows to id-only tombstones, clear search-only
    detail past its `detail_until_us` and drop receipts older than `RECEIPT_RETENTION`;
    returns the memory rows removed."""
    now_us = to_us(now)
    conn.execute(
        "DELETE FROM memory_receipts WHERE applied_us < ?", (to_us(now - RECEIPT_RETENTION),)
    )
    condition = "status != 'active' OR (expires_us IS NOT NULL AND expires_us <= ?)"
    # an expiry is a write the host's write stream tells of (the other removals were
    # told when they happened: remove, supersede, forget)
    write_events.note(conn, [
        MemoryWrite(str(mid), "expire", Tier(tier), Kind(kind), int(revision), "store", now)
        for mid, tier, kind, revision in conn.execute(
            "SELECT memory_id, tier, kind, revision FROM memories WHERE status = 'active' "
            "AND expires_us IS NOT NULL AND expires_us <= ?", (now_us,))
    ])
    conn.execute(
        "INSERT OR REPLACE INTO memory_tombstones (memory_id, status, removed_us) "
        f"SELECT memory_id, CASE status WHEN 'active' THEN 'expired' ELSE status END, ? "
        f"FROM memories WHERE {condition}",
        (now_us, now_us),
    )
    cur = conn.execute(f"DELETE FROM memories WHERE {condition}", (now_us,))
    if cur.rowcount:
        history.prune(conn)
    # The sources' own words go when the log no longer holds them (the memory may stay).
    conn.execute(
        "UPDATE memories SET detail = '', detail_until_us = NULL "
        "WHERE detail_until_us IS NOT NULL AND detail_until_us <= ?",
        (now_us,),
    )
    return int(cur.rowcount)


def database_bytes(conn: sqlite3.Connection) -> int:
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int(pages) * int(size)


def compact(conn: sqlite3.Connection) -> None:
    """Keep the FTS index in few segments (`fts_index.compact`: bounded merge work, or a
    rebuild of a small index spread over many segments) and return free pages to the
    file.

    Runs outside a transaction, after a cleanup that removed rows. Never FTS5
    'optimize': each call adds a level to the index's structure, which FTS5 refuses as
    corrupt past 2,000 levels (`memory.fts_index`).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        fts_index.compact(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if int(conn.execute("PRAGMA freelist_count").fetchone()[0]) > 0:
        # sqlite3.execute steps a statement once (one page); executescript runs it to the end.
        conn.executescript("PRAGMA incremental_vacuum;")


def purge_freed(conn: sqlite3.Connection) -> None:
    """Take what a write freed out of the files: return free pages (zeroed by
    `secure_delete`) to the file system and checkpoint the WAL, truncating it, since
    its frames still hold the pages as they were before. Runs outside a transaction;
    a checkpoint that another connection's reader holds up is left to a later one."""
    if int(conn.execute("PRAGMA freelist_count").fetchone()[0]) > 0:
        conn.executescript("PRAGMA incremental_vacuum;")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()


def stats(conn: sqlite3.Connection, now: datetime) -> dict[str, int]:
    now_us = to_us(now)
    out: dict[str, int] = {}
    for tier in Tier:
        for status in ("active", "deleted", "superseded"):
            out[f"{tier.value}.{status}"] = 0
    for tier, status, count in conn.execute(
        "SELECT tier, status, count(*) FROM memories GROUP BY tier, status"
    ):
        out[f"{tier}.{status}"] = int(count)
    out["expired"] = int(
        conn.execute(
            "SELECT count(*) FROM memories WHERE status = 'active' AND expires_us <= ?",
            (now_us,),
        ).fetchone()[0]
    )
    out["live"] = int(
        conn.execute(
            "SELECT count(*) FROM memories WHERE status = 'active' "
            "AND (expires_us IS NULL OR expires_us > ?)",
            (now_us,),
        ).fetchone()[0]
    )
    out["tombstones"] = int(conn.execute("SELECT count(*) FROM memory_tombstones").fetchone()[0])
    out["rejections"] = int(conn.execute("SELECT count(*) FROM memory_rejections").fetchone()[0])
    out["receipts"] = int(conn.execute("SELECT count(*) FROM memory_receipts").fetchone()[0])
    out["database_bytes"] = database_bytes(conn)
    return out
