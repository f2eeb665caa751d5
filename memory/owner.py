"""Owner and agent paths: `save_memory` duplicate detection, `forget` and rejections.

Synchronous functions run on the store's thread inside a transaction.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Collection, Sequence
from datetime import datetime

from memory.errors import EmptyQueryError
from memory.recall import query_terms, search, token_similarity
from memory.records import (
    InvalidMemoryError,
    MemoryNotFoundError,
    MemoryRecord,
    RejectedContentError,
    Status,
    Tier,
    normalize_text,
)
from memory.rows import COLUMNS, fetch_record, is_rejected_norm, record_from_row, to_us

REJECTIONS_SHOWN = 8
REJECTION_CHARS = 180
REJECTIONS_TOTAL_CHARS = 1600
REASON_LIMIT_CHARS = 500
NEAR_DUPLICATE_SIMILARITY = 0.8
"""Jaccard similarity of searchable words at or above which save_memory reuses a record."""
NEAR_DUPLICATE_CANDIDATES = 5


def new_memory_id() -> str:
    return f"mem-{uuid.uuid4().hex}"


def validate_reason(reason: object) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidMemoryError("reason", "must be a non-empty string")
    reason = reason.strip()
    if len(reason) > REASON_LIMIT_CHARS:
        raise InvalidMemoryError(
            "reason", f"is {len(reason)} characters; at most {REASON_LIMIT_CHARS} are allowed"
        )
    return reason


def find_duplicate(
    conn: sqlite3.Connection, text: str, tiers: Collection[Tier], now: datetime
) -> MemoryRecord | None:
    """A live record with the same normalized text, else a near duplicate by FTS."""
    norm = normalize_text(text)
    now_us = to_us(now)
    marks = ", ".join("?" for _ in tiers)
    row = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE norm = ? AND status = 'active' "
        f"AND tier IN ({marks}) AND (expires_us IS NULL OR expires_us > ?) "
        "ORDER BY created_us LIMIT 1",
        (norm, *[t.value for t in tiers], now_us),
    ).fetchone()
    if row is not None:
        return record_from_row(row)
    terms = query_terms(text)
    if not terms:
        return None
    try:
        hits = search(conn, terms, now_us=now_us, tiers=tiers, limit=NEAR_DUPLICATE_CANDIDATES)
    except EmptyQueryError:
        return None
    best: tuple[float, MemoryRecord] | None = None
    for record, _score in hits:
        similarity = token_similarity(text, record.text)
        if similarity >= NEAR_DUPLICATE_SIMILARITY and (best is None or similarity > best[0]):
            best = (similarity, record)
    return None if best is None else best[1]


def check_not_rejected(conn: sqlite3.Connection, text: str) -> None:
    if is_rejected_norm(conn, normalize_text(text)):
        raise RejectedContentError(
            "the owner rejected a memory with this text; it is not written again"
        )


def forget(
    conn: sqlite3.Connection, memory_id: str, reason: str, now: datetime
) -> MemoryRecord:
    """Tombstone `memory_id` as the owner's rejection and remember its text."""
    record = fetch_record(conn, memory_id)
    if record is None:
        raise MemoryNotFoundError(memory_id)
    now_us = to_us(now)
    if record.status is not Status.DELETED:
        conn.execute(
            "UPDATE memories SET status = 'deleted', status_reason = ?, revision = revision + 1, "
            "updated_us = ? WHERE memory_id = ?",
            (f"owner: {reason}", now_us, memory_id),
        )
    already = conn.execute(
        "SELECT 1 FROM memory_rejections WHERE memory_id = ? LIMIT 1", (memory_id,)
    ).fetchone()
    if already is None:  # forgetting twice is idempotent: one rejection per memory
        conn.execute(
            "INSERT INTO memory_rejections (memory_id, norm, text, reason, at_us) "
            "VALUES (?, ?, ?, ?, ?)",
            (memory_id, normalize_text(record.text), record.text, reason, now_us),
        )
    updated = fetch_record(conn, memory_id)
    assert updated is not None
    return updated


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def recent_rejections(conn: sqlite3.Connection) -> list[str]:
    """The 8 newest rejected texts, each at most 180 chars, at most 1600 chars in all."""
    rows = conn.execute(
        "SELECT text FROM memory_rejections ORDER BY id DESC LIMIT ?", (REJECTIONS_SHOWN,)
    ).fetchall()
    out: list[str] = []
    total = 0
    seen: set[str] = set()
    for (text,) in rows:
        clipped = _clip(str(text), REJECTION_CHARS)
        if clipped in seen:
            continue
        if total + len(clipped) > REJECTIONS_TOTAL_CHARS:
            break
        seen.add(clipped)
        out.append(clipped)
        total += len(clipped)
    return out


def coerce_tiers(tiers: Collection[Tier] | Sequence[str]) -> tuple[Tier, ...]:
    out: list[Tier] = []
    for tier in tiers:
        try:
            out.append(Tier(tier))
        except ValueError:
            allowed = ", ".join(t.value for t in Tier)
            raise InvalidMemoryError("tiers", f"unknown tier (allowed: {allowed})") from None
    return tuple(dict.fromkeys(out))
