"""Owner and agent paths: `save_memory` duplicate detection, `forget` and rejections.

Synchronous functions run on the store's thread inside a transaction.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Collection, Sequence
from datetime import datetime

from companion_memory.memory import (
    episode_ledger,
    fts_index,
    history,
    rejections,
    sweep_ledger,
    write_events,
)
from companion_memory.memory.errors import EmptyQueryError
from companion_memory.memory.recall import query_terms, search, token_similarity
from companion_memory.memory.records import (
    InvalidMemoryError,
    MemoryNotFoundError,
    MemoryRecord,
    RejectedContentError,
    Status,
    Tier,
    normalize_text,
)
from companion_memory.memory.rows import (
    COLUMNS,
    fetch_record,
    is_rejected_norm,
    record_from_row,
    to_us,
)
from companion_memory.memory.secrets import redact
from companion_memory.memory.write_events import MemoryWrite

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
    """Tombstone `memory_id` as the owner's rejection, keeping no copy of its text.

    The row keeps only the gist (`memory.rejections.gist`) and loses its search-only
    detail; the rejection keeps the fingerprint and the gist; the reason is redacted.
    Every other copy in the store is scrubbed: the memory's secret values in other
    memories and in their history, its own history's texts (`memory.history`), and its
    text and secret values in staged model outputs (`scrub_copies`). The FTS index is
    rebuilt so no segment keeps the old words; the caller then zeroes freed pages out of
    the file (`maintenance.purge_freed`).
    """
    record = fetch_record(conn, memory_id)
    if record is None:
        raise MemoryNotFoundError(memory_id)
    now_us = to_us(now)
    detail_row = conn.execute(
        "SELECT detail FROM memories WHERE memory_id = ?", (memory_id,)
    ).fetchone()
    detail = str(detail_row[0] or "")
    kept = rejections.gist(record.text)
    told = redact(reason)
    if record.status is not Status.DELETED:
        conn.execute(
            "UPDATE memories SET status = 'deleted', status_reason = ?, revision = revision + 1, "
            "updated_us = ? WHERE memory_id = ?",
            (f"owner: {told}", now_us, memory_id),
        )
    # After the status change (which took the row out of the index), drop the text itself.
    conn.execute(
        "UPDATE memories SET text = ?, norm = ?, detail = '', detail_until_us = NULL, "
        "sender = NULL, app_id = NULL WHERE memory_id = ?",
        (kept, normalize_text(kept), memory_id),
    )
    already = conn.execute(
        "SELECT 1 FROM memory_rejections WHERE memory_id = ? LIMIT 1", (memory_id,)
    ).fetchone()
    if already is None:  # forgetting twice is idempotent: one rejection per memory
        conn.execute(
            "INSERT INTO memory_rejections (memory_id, fingerprint, gist, reason, at_us) "
            "VALUES (?, ?, ?, ?, ?)",
            (memory_id, rejections.fingerprint(normalize_text(record.text)), kept, told,
             now_us),
        )
    scrub_copies(conn, memory_id, record.text, detail, now_us)
    fts_index.rebuild(conn)
    updated = fetch_record(conn, memory_id)
    assert updated is not None
    history.forget_memory(conn, memory_id, updated.revision, now_us)
    write_events.note(conn, [MemoryWrite(memory_id, "forget", updated.tier, updated.kind,
                                         updated.revision, "host", now)])
    return updated


def scrub_copies(
    conn: sqlite3.Connection, memory_id: str, text: str, detail: str, now_us: int
) -> None:
    """Remove a forgotten memory's secret values from every other memory (text and detail)
    and its text and secret values from the staged episode and sweep outputs."""
    secrets = rejections.secret_values(text, detail)
    for needle in secrets:
        rows = conn.execute(
            "SELECT memory_id, text, detail, status FROM memories WHERE memory_id != ? "
            "AND (instr(text, ?) > 0 OR instr(detail, ?) > 0)",
            (memory_id, needle, needle),
        ).fetchall()
        for other_id, other_text, other_detail, status in rows:
            clean = rejections.scrub(str(other_text), [needle])
            bump = 1 if clean != other_text and status == Status.ACTIVE.value else 0
            conn.execute(
                "UPDATE memories SET text = ?, norm = ?, detail = ?, revision = revision + ?, "
                "updated_us = CASE WHEN ? THEN ? ELSE updated_us END WHERE memory_id = ?",
                (clean, normalize_text(clean), rejections.scrub(str(other_detail), [needle]),
                 bump, bump, now_us, other_id),
            )
    history.scrub_values(conn, secrets)  # the memory's own rows lose all text (forget)
    needles = [*secrets, text.strip()]
    episode_ledger.scrub_proposals(conn, needles)
    sweep_ledger.scrub_stages(conn, needles)


def recent_rejections(conn: sqlite3.Connection) -> list[str]:
    """The gists of the 8 newest rejections, each at most 180 chars, 1600 chars in all."""
    rows = conn.execute(
        "SELECT gist FROM memory_rejections ORDER BY id DESC LIMIT ?", (REJECTIONS_SHOWN,)
    ).fetchall()
    out: list[str] = []
    total = 0
    seen: set[str] = set()
    for (text,) in rows:
        clipped = rejections.gist(str(text))[:REJECTION_CHARS]
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
