"""Executing `MemoryIntent`s inside one SQLite transaction.

`apply_intents(conn, ...)` is synchronous and must run inside a transaction the
caller opened (`MemoryStore.transaction(fn)` does this), so a ledger row, the
memory writes, a cursor advance and a receipt commit or roll back together. On
any typed error it raises before the caller commits; the caller's rollback
leaves nothing written.

Rules: create uses the caller's id with no similarity search (an existing or
tombstoned id is an idempotent skip, never a second row or a resurrection);
expiry: a Temporary record lives the Temporary TTL (an event's until it is over, never
before its search detail is cleared), an automatic Long-Term record the Long-Term TTL
from its creation and from every reinforce or update (an upcoming event's at least until
it is over), a record the agent or owner saved (auto false) and Device Memory never expire;
update, reinforce, remove, promote and supersede are compare-and-set on the
revision; a lower-authority intent cannot update, remove or supersede a
higher-authority record; a create or update whose normalized text matches an
owner rejection is refused, and so is any intent whose text, subject or search
detail holds a secret (`SecretInStatementError`, code `secret_in_statement`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from companion_memory.core.errors import StateError
from companion_memory.memory import history, write_events
from companion_memory.memory.errors import MemoryInactiveError
from companion_memory.memory.records import (
    AUTHORITY_RANK,
    SOURCES_LIMIT,
    AuthorityError,
    CursorConflictError,
    IntentOp,
    InvalidMemoryError,
    Kind,
    MemoryIntent,
    MemoryNotFoundError,
    MemoryRecord,
    RejectedContentError,
    RevisionConflictError,
    SourceRef,
    Status,
    Tier,
    normalize_text,
    refuse_secrets,
)
from companion_memory.memory.rows import (
    fetch_record,
    is_rejected_norm,
    is_tombstoned,
    require_aware,
    sources_to_json,
    to_us,
)
from companion_memory.memory.write_events import MemoryWrite


@dataclass(frozen=True, slots=True)
class CursorAdvance:
    """Move cursor `name` from `expected` to `new` in the same transaction."""

    name: str
    expected: int
    new: int

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise InvalidMemoryError("cursor.name", "must be a non-empty string")
        if self.expected < 0:
            raise InvalidMemoryError("cursor.expected", "must be >= 0")
        if self.new < self.expected:
            raise InvalidMemoryError(
                "cursor.new", f"{self.new} is behind {self.expected}; a cursor never goes back"
            )


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """What a batch did: the records it wrote (in intent order) and idempotent skips."""

    records: list[MemoryRecord] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    replayed: bool = False


def get_cursor(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute("SELECT value FROM memory_cursors WHERE name = ?", (name,)).fetchone()
    return 0 if row is None else int(row[0])


def _advance_cursor(conn: sqlite3.Connection, cursor: CursorAdvance, now_us: int) -> None:
    stored = get_cursor(conn, cursor.name)
    if stored != cursor.expected:
        raise CursorConflictError(
            f"cursor {cursor.name} is at {stored}, not {cursor.expected}; "
            "re-read it and retry from there"
        )
    conn.execute(
        "INSERT INTO memory_cursors (name, value, updated_us) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_us = excluded.updated_us",
        (cursor.name, cursor.new, now_us),
    )


def _merge_sources(
    old: Sequence[SourceRef], new: Sequence[SourceRef]
) -> tuple[SourceRef, ...]:
    merged = tuple(dict.fromkeys([*old, *new]))
    return merged[-SOURCES_LIMIT:]


def _expiry(
    tier: Tier, auto: bool, start: datetime, temporary_ttl: timedelta, long_term_ttl: timedelta
) -> datetime | None:
    if tier is Tier.TEMPORARY:
        return start + temporary_ttl
    if tier is Tier.LONG_TERM and auto:
        return start + long_term_ttl
    return None


def _event_expiry(event_end: datetime, detail_until: datetime | None,
                  ttl_end: datetime) -> datetime:
    """When a Temporary memory about a dated event expires: when the event is over, but
    not before the sooner of its Temporary TTL's end and its sources leaving the log
    (`detail_until`), so a notification processed after its event was over is still
    recalled for a while. Without sources in the log, the event's end alone."""
    if detail_until is None:
        return event_end
    return max(event_end, min(detail_until, ttl_end))


def _live_target(
    conn: sqlite3.Connection, intent: MemoryIntent, now: datetime
) -> MemoryRecord:
    record = fetch_record(conn, intent.memory_id)
    if record is None:
        if is_tombstoned(conn, intent.memory_id):
            raise MemoryInactiveError(intent.memory_id, "deleted")
        raise MemoryNotFoundError(intent.memory_id)
    if record.revision != intent.expected_revision:
        raise RevisionConflictError(
            intent.memory_id, intent.expected_revision or 0, record.revision
        )
    if record.status is not Status.ACTIVE:
        raise MemoryInactiveError(intent.memory_id, record.status.value)
    if record.expires_at is not None and record.expires_at <= now:
        raise MemoryInactiveError(intent.memory_id, "expired")
    return record


def _check_authority(intent: MemoryIntent, record: MemoryRecord) -> None:
    if AUTHORITY_RANK[intent.authority] < AUTHORITY_RANK[record.authority]:
        raise AuthorityError(
            f"a {intent.authority.value} intent cannot {intent.op.value} memory "
            f"{record.memory_id}, which has authority {record.authority.value}; "
            "only an equal or higher authority may amend it"
        )


def _check_rejection(conn: sqlite3.Connection, memory_id: str, norm: str) -> None:
    if is_rejected_norm(conn, norm):
        raise RejectedContentError(
            f"memory {memory_id}: the owner rejected a memory with this text; it is not "
            "written again"
        )


def _update_row(conn: sqlite3.Connection, old: MemoryRecord, **changes: object) -> None:
    sets = ", ".join(f"{column} = ?" for column in changes)
    cur = conn.execute(
        f"UPDATE memories SET {sets} WHERE memory_id = ? AND revision = ?",
        (*changes.values(), old.memory_id, old.revision),
    )
    if cur.rowcount != 1:  # defensive: we hold the write lock, so this cannot race
        raise RevisionConflictError(old.memory_id, old.revision, -1)


def _create(
    conn: sqlite3.Connection, intent: MemoryIntent, now: datetime, ttls: tuple[timedelta, timedelta]
) -> str | None:
    """Insert; returns a skip reason when the id is already taken."""
    existing = conn.execute(
        "SELECT status FROM memories WHERE memory_id = ?", (intent.memory_id,)
    ).fetchone()
    if existing is not None:
        return "exists" if existing[0] == Status.ACTIVE.value else "tombstoned"
    if is_tombstoned(conn, intent.memory_id):
        return "tombstoned"
    assert intent.text is not None and intent.tier is not None and intent.kind is not None
    norm = normalize_text(intent.text)
    _check_rejection(conn, intent.memory_id, norm)
    now_us = to_us(now)
    expires = _expiry(intent.tier, intent.auto, now, *ttls)
    if intent.tier is Tier.TEMPORARY and expires is not None and intent.event_end is not None:
        expires = _event_expiry(intent.event_end, intent.detail_until, expires)
    elif intent.tier is Tier.LONG_TERM and expires is not None and intent.event_end is not None:
        # an upcoming event is kept until it is over, however far off it is
        expires = max(expires, intent.event_end)
    conn.execute(
        "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, sources, "
        "created_us, updated_us, expires_us, reinforced, status, subject, superseded_by, auto, "
        "detail, detail_until_us, occurred_us, app_id, sender) "
        "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'active', ?, NULL, ?, ?, ?, ?, ?, ?)",
        (
            intent.memory_id, intent.tier.value, intent.kind.value, intent.text, norm,
            intent.authority.value, sources_to_json(intent.sources), now_us, now_us,
            None if expires is None else to_us(expires), intent.subject, int(intent.auto),
            intent.detail or "",
            None if intent.detail_until is None else to_us(intent.detail_until),
            now_us if intent.occurred_at is None else to_us(intent.occurred_at),
            intent.app_id, intent.sender,
        ),
    )
    return None


def _apply_one(
    conn: sqlite3.Connection,
    intent: MemoryIntent,
    now: datetime,
    ttls: tuple[timedelta, timedelta],
) -> str | None:
    """Apply one intent; returns a skip reason for an idempotent no-op."""
    op = intent.op
    # checked again here, where the row is written: an intent is frozen but not sealed
    refuse_secrets(text=intent.text, subject=intent.subject, detail=intent.detail,
                   sender=intent.sender)
    if op is IntentOp.CREATE:
        return _create(conn, intent, now, ttls)
    if op is IntentOp.PROMOTE and intent.receipt_id is not None:
        done = conn.execute(
            "SELECT 1 FROM memory_promotions WHERE receipt_id = ?", (intent.receipt_id,)
        ).fetchone()
        if done is not None:
            return "promoted"
    record = _live_target(conn, intent, now)
    now_us = to_us(now)
    base: dict[str, object] = {"revision": record.revision + 1, "updated_us": now_us}
    if op is IntentOp.UPDATE:
        _check_authority(intent, record)
        assert intent.text is not None
        norm = normalize_text(intent.text)
        if norm != normalize_text(record.text):
            _check_rejection(conn, intent.memory_id, norm)
        base.update(
            text=intent.text,
            norm=norm,
            authority=intent.authority.value,
            sources=sources_to_json(_merge_sources(record.sources, intent.sources)),
        )
        if intent.subject is not None:
            base["subject"] = intent.subject
        if intent.detail is not None:
            base["detail"] = intent.detail
            until = intent.detail_until
            base["detail_until_us"] = None if until is None else to_us(until)
            # newer sources' words (a notification's update) renew a Temporary memory
            # for the Temporary TTL from now
            renewed = now + ttls[0]
            if until is not None and record.tier is Tier.TEMPORARY and (
                record.expires_at is not None and renewed > record.expires_at
            ):
                base["expires_us"] = to_us(renewed)
        if intent.event_end is not None and record.tier is Tier.TEMPORARY:
            floor = record.created_at if intent.detail_until is None else now + ttls[0]
            base["expires_us"] = to_us(_event_expiry(intent.event_end, intent.detail_until,
                                                     floor))
        if record.tier is Tier.LONG_TERM and record.auto:
            # a changed or restated fact is a reinforcement: it lives the TTL from now (and
            # an upcoming event until it is over), never less than it had
            renewed_lt = max(now + ttls[1], intent.event_end or now)
            if record.expires_at is None or renewed_lt > record.expires_at:
                base["expires_us"] = to_us(renewed_lt)
        _origin(intent, record, base)
    elif op is IntentOp.REINFORCE:
        _origin(intent, record, base)
        base.update(
            reinforced=record.reinforced + 1,
            sources=sources_to_json(_merge_sources(record.sources, intent.sources)),
        )
        if record.tier is Tier.LONG_TERM and record.auto:
            extended = now + ttls[1]
            if record.expires_at is None or extended > record.expires_at:
                base["expires_us"] = to_us(extended)
    elif op is IntentOp.REMOVE:
        _check_authority(intent, record)
        base.update(status=Status.DELETED.value, status_reason=intent.reason or "removed")
    elif op is IntentOp.SUPERSEDE:
        _check_authority(intent, record)
        newer = intent.superseded_by
        assert newer is not None
        if newer == record.memory_id:
            raise InvalidMemoryError("superseded_by", "a memory cannot supersede itself")
        if fetch_record(conn, newer) is None:
            raise MemoryNotFoundError(newer)
        base.update(status=Status.SUPERSEDED.value, superseded_by=newer)
    elif op is IntentOp.PROMOTE:
        if record.tier is not Tier.TEMPORARY:
            raise InvalidMemoryError(
                "tier", f"memory {record.memory_id} is {record.tier.value}; only temporary "
                "memories can be promoted to long_term"
            )
        expires = _expiry(Tier.LONG_TERM, record.auto, now, *ttls)
        base.update(
            tier=Tier.LONG_TERM.value, expires_us=None if expires is None else to_us(expires)
        )
        receipt_id = intent.receipt_id or f"promote:{record.memory_id}:{record.revision}"
        conn.execute(
            "INSERT INTO memory_promotions (receipt_id, memory_id, from_revision, promoted_us) "
            "VALUES (?, ?, ?, ?)",
            (receipt_id, record.memory_id, record.revision, now_us),
        )
    _update_row(conn, record, **base)
    return None


def _origin(intent: MemoryIntent, record: MemoryRecord,
           changes: dict[str, object]) -> None:
    """An update's or reinforcement's newer source: its time (kept when later than the
    record's occurrence), app and sender."""
    if intent.occurred_at is not None:
        when = to_us(intent.occurred_at)
        if record.occurred_at is None or when > to_us(record.occurred_at):
            changes["occurred_us"] = when
    if intent.app_id is not None:
        changes["app_id"] = intent.app_id
    if intent.sender is not None:
        changes["sender"] = intent.sender


def apply_intents(
    conn: sqlite3.Connection,
    intents: Sequence[MemoryIntent],
    *,
    now: datetime,
    temporary_ttl: timedelta,
    long_term_ttl: timedelta,
    cursor: CursorAdvance | None = None,
    receipt: str | None = None,
    origin: str = "store",
) -> ApplyResult:
    """Apply `intents` (plus optional cursor advance and receipt) in the open transaction.

    Must be called inside a transaction (`MemoryStore.transaction`). A known
    `receipt` returns `replayed=True` and changes nothing. Raises the typed
    errors of `memory.records` / `memory.errors`; the caller rolls back.
    """
    if not conn.in_transaction:
        raise StateError("apply_intents must run inside a transaction (store.transaction)")
    now = require_aware(now)
    for intent in intents:
        if not isinstance(intent, MemoryIntent):
            raise InvalidMemoryError("intents", "each item must be a MemoryIntent")
    if receipt is not None:
        row = conn.execute(
            "SELECT memory_ids FROM memory_receipts WHERE receipt = ?", (receipt,)
        ).fetchone()
        if row is not None:
            records = [r for mid in json.loads(row[0]) if (r := fetch_record(conn, mid))]
            return ApplyResult(records=records, skipped=[], replayed=True)
    now_us = to_us(now)
    if cursor is not None:
        _advance_cursor(conn, cursor, now_us)
    ttls = (temporary_ttl, long_term_ttl)
    written: list[str] = []
    skipped: list[tuple[str, str]] = []
    writes: list[MemoryWrite] = []
    for intent in intents:
        reason = _apply_one(conn, intent, now, ttls)
        if reason is None:
            written.append(intent.memory_id)
            writes.append(_recorded(conn, intent, now, now_us, origin))
        else:
            skipped.append((intent.memory_id, reason))
    if receipt is not None:
        conn.execute(
            "INSERT INTO memory_receipts (receipt, memory_ids, applied_us) VALUES (?, ?, ?)",
            (receipt, json.dumps(list(dict.fromkeys(written))), now_us),
        )
    records = [
        r for mid in dict.fromkeys(written) if (r := fetch_record(conn, mid)) is not None
    ]
    write_events.note(conn, writes)  # only now: every intent of the batch applied
    return ApplyResult(records=records, skipped=skipped, replayed=False)


_TEXT_OPS = (IntentOp.CREATE, IntentOp.UPDATE)


def _recorded(conn: sqlite3.Connection, intent: MemoryIntent, now: datetime, now_us: int,
              origin: str) -> MemoryWrite:
    """The history row of one applied intent, and its (content-free) write event."""
    row = conn.execute(
        "SELECT revision, tier, kind FROM memories WHERE memory_id = ?", (intent.memory_id,)
    ).fetchone()
    revision, tier, kind = int(row[0]), Tier(row[1]), Kind(row[2])
    reason = intent.reason if intent.op is IntentOp.REMOVE else None
    history.record(conn, intent.memory_id, revision, intent.op.value, now_us,
                   text=intent.text if intent.op in _TEXT_OPS else None, origin=origin,
                   reason=reason)
    return MemoryWrite(intent.memory_id, intent.op.value, tier, kind, revision, origin, now)
