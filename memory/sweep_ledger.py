"""The daily sweep's durable control state: cursor, stages, receipts.

Tables (all `sweep_`-prefixed, in the memory database so a receipt and the memory
write it covers commit in one transaction):

- `sweep_cursor`: one row; the zone, the last completed window (local date, UTC
  start/end, window id), the receipt namespace (epoch) and how the row was set
  (`anchor`: the day before the first window to sweep; `swept`; `reconciled`).
- `sweep_stages`: the model's full output for one window and its digest, written
  before anything is applied; keyed by (namespace, window_id).
- `sweep_receipts`: one per (namespace, window_id, candidate digest); `claimed`
  before the memory write, `applied_at` set in the same transaction as the write,
  `committed` after. `claimed` without `applied_at` means the write did not happen.
- `sweep_attempts` (created by 0007, dropped by 0016): failed model invocations per
  window are counted in the one work ledger (`memory.work_ledger`, scenario `sweep`,
  key `work_ledger.sweep_key(namespace, window_id)`).

Stages, receipts and the work ledger's attempts of a window are deleted
`STAGE_RETENTION_DAYS` after the cursor passed it (`prune`): nothing sweeps that window
again, its deferred candidates are applied by then, and a stage holds the day's
candidates (memory text) that the memories themselves now hold.

Every function here is synchronous and takes a `sqlite3.Connection`; they run
inside `MemoryStore.transaction(fn)` / `MemoryStore.read(fn)` on the store's own
thread. Agent code calls `SweepLedger`, whose typed operations each run one of them
(or a fixed group) as one transaction or one snapshot, and never holds a connection.
No memory text is stored here, only ids, digests and codes (the stage holds the model
output, which lives in the same database as the memories).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from companion_memory.core.errors import ConflictError, StateError
from companion_memory.memory import work_ledger
from companion_memory.memory.intents import apply_intents
from companion_memory.memory.records import MemoryIntent, MemoryRecord, MemoryStoreError
from companion_memory.memory.rejections import holds_any, scrub_json
from companion_memory.memory.rows import savepoint
from companion_memory.memory.sweep_reads import SweepReader, window_memories

if TYPE_CHECKING:
    from companion_memory.memory.store import MemoryStore

DDL = """
        CREATE TABLE sweep_cursor (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            zone TEXT NOT NULL,
            local_date TEXT NOT NULL,
            start_utc TEXT NOT NULL,
            end_utc TEXT NOT NULL,
            window_id TEXT NOT NULL,
            namespace INTEGER NOT NULL DEFAULT 1 CHECK (namespace >= 1),
            kind TEXT NOT NULL CHECK (kind IN ('anchor', 'swept', 'reconciled')),
            updated_at TEXT NOT NULL
        );
        CREATE TABLE sweep_stages (
            namespace INTEGER NOT NULL,
            window_id TEXT NOT NULL,
            local_date TEXT NOT NULL,
            schema_version INTEGER NOT NULL,
            output TEXT NOT NULL,
            digest TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (namespace, window_id)
        );
        CREATE TABLE sweep_receipts (
            namespace INTEGER NOT NULL,
            window_id TEXT NOT NULL,
            candidate_digest TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('claimed', 'committed')),
            claimant TEXT NOT NULL,
            memory_id TEXT,
            outcome TEXT,
            claimed_at TEXT NOT NULL,
            applied_at TEXT,
            committed_at TEXT,
            PRIMARY KEY (namespace, window_id, candidate_digest)
        );
        CREATE TABLE sweep_attempts (
            namespace INTEGER NOT NULL,
            window_id TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            last_error TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (namespace, window_id)
        );
        """
"""The ledger's tables; migration `0007_sweep_ledger_create` (`memory.migrations`) runs
it."""


class SweepLedgerError(StateError):
    """The sweep ledger refused a change that does not follow its protocol."""

    code = "sweep_ledger_error"


class SweepCursorConflictError(SweepLedgerError, ConflictError):
    """The cursor moved since the caller read it; nothing was written."""

    code = "sweep_cursor_conflict"
    category = "conflict"  # a ledger error, but what happened is a conflict: reread


STAGE_RETENTION_DAYS = 21
"""How long the stages, receipts and attempts of a swept window are kept after the cursor
passed it: a window behind the cursor is never swept again, but a candidate of its
stage may wait to be applied (the sweep's `DEFER_DAYS`, shorter than this)."""


def prune(conn: sqlite3.Connection, before: date) -> int:
    """Delete the stages, receipts and attempts of windows whose local date is before
    `before` (window ids, and so the work ledger's sweep keys, begin with the window's
    local date); returns the stages deleted. The cursor is kept."""
    day = before.isoformat()
    conn.execute("DELETE FROM sweep_receipts WHERE substr(window_id, 1, 10) < ?", (day,))
    work_ledger.clear_below(conn, work_ledger.Scenario.SWEEP, day)
    return conn.execute("DELETE FROM sweep_stages WHERE local_date < ?", (day,)).rowcount


def digest_text(text: str) -> str:
    """The sha256 hex digest of a text (stages and candidates)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class SweepCursor:
    zone: str
    local_date: date
    start_utc: datetime
    end_utc: datetime
    window_id: str
    namespace: int
    kind: str
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class Stage:
    namespace: int
    window_id: str
    local_date: date
    schema_version: int
    output: str
    digest: str
    created_at: datetime

    @property
    def intact(self) -> bool:
        """True when the stored output still matches its digest."""
        return digest_text(self.output) == self.digest


@dataclass(frozen=True, slots=True)
class ReceiptKey:
    namespace: int
    window_id: str
    candidate_digest: str


@dataclass(frozen=True, slots=True)
class Receipt:
    key: ReceiptKey
    state: str
    claimant: str
    memory_id: str | None
    outcome: str | None
    claimed_at: datetime
    applied_at: datetime | None
    committed_at: datetime | None

    @property
    def applied(self) -> bool:
        return self.applied_at is not None


def _dt(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _req_dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


# -- cursor -----------------------------------------------------------------------------


def read_cursor(conn: sqlite3.Connection) -> SweepCursor | None:
    row = conn.execute(
        "SELECT zone, local_date, start_utc, end_utc, window_id, namespace, kind, updated_at"
        " FROM sweep_cursor WHERE id = 1"
    ).fetchone()
    if row is None:
        return None
    return SweepCursor(
        zone=row[0],
        local_date=date.fromisoformat(row[1]),
        start_utc=_req_dt(row[2]),
        end_utc=_req_dt(row[3]),
        window_id=row[4],
        namespace=int(row[5]),
        kind=row[6],
        updated_at=_req_dt(row[7]),
    )


def write_cursor(
    conn: sqlite3.Connection, new: SweepCursor, *, expected_window_id: str | None
) -> None:
    """Compare-and-set: `expected_window_id` None means "no cursor yet"."""
    current = read_cursor(conn)
    actual = current.window_id if current else None
    if actual != expected_window_id:
        raise SweepCursorConflictError(
            f"the sweep cursor is at {actual!r}, not {expected_window_id!r}; re-read and retry"
        )
    if current is not None and new.end_utc < current.end_utc:
        raise SweepLedgerError("the sweep cursor never moves backwards")
    conn.execute(
        "INSERT INTO sweep_cursor (id, zone, local_date, start_utc, end_utc, window_id,"
        " namespace, kind, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(id) DO UPDATE SET zone = excluded.zone, local_date = excluded.local_date,"
        " start_utc = excluded.start_utc, end_utc = excluded.end_utc,"
        " window_id = excluded.window_id, namespace = excluded.namespace,"
        " kind = excluded.kind, updated_at = excluded.updated_at",
        (
            new.zone,
            new.local_date.isoformat(),
            new.start_utc.isoformat(),
            new.end_utc.isoformat(),
            new.window_id,
            new.namespace,
            new.kind,
            new.updated_at.isoformat(),
        ),
    )


def reconcile_cursor(
    conn: sqlite3.Connection, *, zone: str, now: datetime, expected_window_id: str
) -> SweepCursor:
    """Switch the cursor to `zone`, keep the completed anchor (its UTC end), and bump the
    receipt namespace so the new zone's receipts never collide with the old set."""
    current = read_cursor(conn)
    if current is None or current.window_id != expected_window_id:
        raise SweepCursorConflictError("the sweep cursor changed during reconcile; retry")
    new = SweepCursor(
        zone=zone,
        local_date=current.local_date,
        start_utc=current.start_utc,
        end_utc=current.end_utc,
        window_id=current.window_id,
        namespace=current.namespace + 1,
        kind="reconciled",
        updated_at=now,
    )
    conn.execute(
        "UPDATE sweep_cursor SET zone = ?, namespace = ?, kind = ?, updated_at = ? WHERE id = 1",
        (new.zone, new.namespace, new.kind, new.updated_at.isoformat()),
    )
    return new


# -- stages -----------------------------------------------------------------------------


def read_stage(conn: sqlite3.Connection, namespace: int, window_id: str) -> Stage | None:
    row = conn.execute(
        "SELECT local_date, schema_version, output, digest, created_at FROM sweep_stages"
        " WHERE namespace = ? AND window_id = ?",
        (namespace, window_id),
    ).fetchone()
    if row is None:
        return None
    return Stage(
        namespace=namespace,
        window_id=window_id,
        local_date=date.fromisoformat(row[0]),
        schema_version=int(row[1]),
        output=row[2],
        digest=row[3],
        created_at=_req_dt(row[4]),
    )


def stages_since(conn: sqlite3.Connection, first: date) -> list[Stage]:
    """Every stage (any namespace) of a window whose local date is `first` or later,
    oldest first."""
    rows = conn.execute(
        "SELECT namespace, window_id, local_date, schema_version, output, digest, created_at"
        " FROM sweep_stages WHERE local_date >= ? ORDER BY local_date, namespace",
        (first.isoformat(),),
    ).fetchall()
    return [Stage(namespace=int(r[0]), window_id=str(r[1]), local_date=date.fromisoformat(r[2]),
                  schema_version=int(r[3]), output=r[4], digest=r[5], created_at=_req_dt(r[6]))
            for r in rows]


def put_stage(conn: sqlite3.Connection, stage: Stage) -> Stage:
    """Insert the stage unless one exists; returns the stored one (first writer wins)."""
    conn.execute(
        "INSERT INTO sweep_stages (namespace, window_id, local_date, schema_version, output,"
        " digest, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT(namespace, window_id) DO NOTHING",
        (
            stage.namespace,
            stage.window_id,
            stage.local_date.isoformat(),
            stage.schema_version,
            stage.output,
            stage.digest,
            stage.created_at.isoformat(),
        ),
    )
    stored = read_stage(conn, stage.namespace, stage.window_id)
    if stored is None:  # pragma: no cover - the insert above guarantees a row
        raise SweepLedgerError("the stage was not stored")
    return stored


# -- receipts ---------------------------------------------------------------------------

_RECEIPT_COLUMNS = (
    "namespace, window_id, candidate_digest, state, claimant, memory_id, outcome,"
    " claimed_at, applied_at, committed_at"
)


def _receipt(row: Any) -> Receipt:
    return Receipt(
        key=ReceiptKey(int(row[0]), row[1], row[2]),
        state=row[3],
        claimant=row[4],
        memory_id=row[5],
        outcome=row[6],
        claimed_at=_req_dt(row[7]),
        applied_at=_dt(row[8]),
        committed_at=_dt(row[9]),
    )


def get_receipt(conn: sqlite3.Connection, key: ReceiptKey) -> Receipt | None:
    row = conn.execute(
        f"SELECT {_RECEIPT_COLUMNS} FROM sweep_receipts"
        " WHERE namespace = ? AND window_id = ? AND candidate_digest = ?",
        (key.namespace, key.window_id, key.candidate_digest),
    ).fetchone()
    return _receipt(row) if row else None


def list_receipts(conn: sqlite3.Connection, namespace: int, window_id: str) -> list[Receipt]:
    rows = conn.execute(
        f"SELECT {_RECEIPT_COLUMNS} FROM sweep_receipts WHERE namespace = ? AND window_id = ?"
        " ORDER BY claimed_at, candidate_digest",
        (namespace, window_id),
    ).fetchall()
    return [_receipt(r) for r in rows]


def claim_receipt(
    conn: sqlite3.Connection, key: ReceiptKey, *, claimant: str, memory_id: str | None,
    now: datetime,
) -> Receipt:
    """Claim before the write. An existing claim (a crashed run) is taken over by the new
    claimant; its `applied_at` is kept so a done write is never redone."""
    existing = get_receipt(conn, key)
    if existing is not None and existing.state == "committed":
        return existing
    if existing is None:
        conn.execute(
            "INSERT INTO sweep_receipts (namespace, window_id, candidate_digest, state,"
            " claimant, memory_id, claimed_at) VALUES (?, ?, ?, 'claimed', ?, ?, ?)",
            (key.namespace, key.window_id, key.candidate_digest, claimant, memory_id,
             now.isoformat()),
        )
    else:
        conn.execute(
            "UPDATE sweep_receipts SET claimant = ? WHERE namespace = ? AND window_id = ?"
            " AND candidate_digest = ?",
            (claimant, key.namespace, key.window_id, key.candidate_digest),
        )
    claimed = get_receipt(conn, key)
    if claimed is None:  # pragma: no cover
        raise SweepLedgerError("the receipt claim was not stored")
    return claimed


def mark_applied(
    conn: sqlite3.Connection, key: ReceiptKey, *, outcome: str, memory_id: str | None,
    now: datetime,
) -> None:
    """Record the write's outcome; call in the same transaction as the memory write."""
    cur = conn.execute(
        "UPDATE sweep_receipts SET outcome = ?, memory_id = COALESCE(?, memory_id),"
        " applied_at = ? WHERE namespace = ? AND window_id = ? AND candidate_digest = ?"
        " AND state = 'claimed' AND applied_at IS NULL",
        (outcome, memory_id, now.isoformat(), key.namespace, key.window_id,
         key.candidate_digest),
    )
    if cur.rowcount != 1:
        raise SweepLedgerError(
            "a receipt must be claimed and not yet applied before its write is recorded"
        )


def complete_receipt(conn: sqlite3.Connection, key: ReceiptKey, *, now: datetime) -> None:
    """Mark an applied receipt committed (idempotent)."""
    receipt = get_receipt(conn, key)
    if receipt is None or receipt.applied_at is None:
        raise SweepLedgerError("only a claimed receipt whose write is recorded can complete")
    if receipt.state == "committed":
        return
    conn.execute(
        "UPDATE sweep_receipts SET state = 'committed', committed_at = ?"
        " WHERE namespace = ? AND window_id = ? AND candidate_digest = ?",
        (now.isoformat(), key.namespace, key.window_id, key.candidate_digest),
    )


def scrub_stages(conn: sqlite3.Connection, needles: Sequence[str]) -> int:
    """Remove `needles` (a forgotten memory's text and secret values) from every staged
    model output, re-digesting each changed stage so it stays intact; returns the
    stages changed. A candidate holding a needle is dropped whole (each candidate
    carries its own digest; the others stay intact), the rest of the page (the raw
    model text) is scrubbed."""
    changed = 0
    rows = conn.execute("SELECT namespace, window_id, output FROM sweep_stages").fetchall()
    for namespace, window_id, output in rows:
        if not holds_any(output, needles):
            continue
        clean = scrub_json(output, needles, drop_from="candidates")
        conn.execute(
            "UPDATE sweep_stages SET output = ?, digest = ? WHERE namespace = ? AND window_id = ?",
            (clean, digest_text(clean), namespace, window_id),
        )
        changed += 1
    return changed


# -- composite steps (each one transaction) ---------------------------------------------

CandidatePlan = tuple[str, str | None, list[MemoryIntent]]
"""(outcome, memory id, intents) the sweep's planner decided for one candidate."""

Planner = Callable[[SweepReader], CandidatePlan]


def apply_candidate(
    conn: sqlite3.Connection, key: ReceiptKey, plan: Planner, *, now: datetime,
    temporary_ttl: timedelta, long_term_ttl: timedelta,
) -> str:
    """Plan against the current memories, write the intents and record the outcome on
    the claimed receipt, all in the caller's one transaction; returns the outcome. A
    typed refusal of the store is rolled back to a savepoint and recorded as the
    outcome, so the receipt still moves on and a retry never writes twice."""
    outcome, memory_id, intents = plan(SweepReader(conn))
    if intents:
        try:
            with savepoint(conn, "sweep_candidate"):
                result = apply_intents(
                    conn, intents, now=now, temporary_ttl=temporary_ttl,
                    long_term_ttl=long_term_ttl, origin="sweep",
                )
        except MemoryStoreError as err:
            outcome = err.code
        else:
            if result.skipped and not result.records:
                outcome = f"skipped_{result.skipped[0][1]}"[:48]
    mark_applied(conn, key, outcome=outcome, memory_id=memory_id, now=now)
    return outcome


def put_stage_anchored(conn: sqlite3.Connection, stage: Stage,
                       anchor: SweepCursor | None) -> Stage:
    """Store the stage, and the bootstrap `anchor` cursor when there is no cursor yet."""
    if anchor is not None and read_cursor(conn) is None:
        write_cursor(conn, anchor, expected_window_id=None)
    return put_stage(conn, stage)


def advance_cursor(conn: sqlite3.Connection, new: SweepCursor, *, prune_before: date) -> None:
    """Move the cursor to the window `new` (only from the window that ends where it
    starts) and prune the windows before `prune_before`."""
    current = read_cursor(conn)
    if current is None or current.end_utc != new.start_utc:
        raise SweepCursorConflictError(
            "the sweep cursor does not end where this window starts; nothing advanced"
        )
    write_cursor(conn, new, expected_window_id=current.window_id)
    prune(conn, prune_before)


class SweepLedger:
    """The sweep ledger's typed operations on a store: each read is one snapshot and
    each write one transaction, as the sweep's durable steps need (see the module
    docstring of `agent.sweep.processor`)."""

    __slots__ = ("_store",)

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    async def cursor(self) -> SweepCursor | None:
        return await self._store.read(read_cursor)

    async def stage(self, namespace: int, window_id: str) -> Stage | None:
        return await self._store.read(lambda conn: read_stage(conn, namespace, window_id))

    async def stages_since(self, first: date) -> list[Stage]:
        """See `stages_since`."""
        return await self._store.read(lambda conn: stages_since(conn, first))

    async def receipts(self, namespace: int, window_id: str) -> list[Receipt]:
        return await self._store.read(lambda conn: list_receipts(conn, namespace, window_id))

    async def window_memories(self, start: datetime, end: datetime,
                              now: datetime) -> list[MemoryRecord]:
        """See `sweep_reads.window_memories`."""
        return await self._store.read(lambda conn: window_memories(conn, start, end, now))

    async def put_stage(self, stage: Stage, *, anchor: SweepCursor | None) -> Stage:
        """See `put_stage_anchored`; the stored stage (first writer wins)."""
        return await self._store.transaction(
            lambda conn: put_stage_anchored(conn, stage, anchor))

    async def claim(self, key: ReceiptKey, *, claimant: str, now: datetime) -> Receipt:
        """See `claim_receipt`."""
        return await self._store.transaction(partial(
            claim_receipt, key=key, claimant=claimant, memory_id=None, now=now))

    async def apply_candidate(self, key: ReceiptKey, plan: Planner, *, now: datetime) -> str:
        """See `apply_candidate` (the store's TTLs); the outcome."""
        temporary_ttl, long_term_ttl = self._store.ttls
        return await self._store.transaction(partial(
            apply_candidate, key=key, plan=plan, now=now, temporary_ttl=temporary_ttl,
            long_term_ttl=long_term_ttl))

    async def complete(self, key: ReceiptKey, *, now: datetime) -> None:
        """See `complete_receipt`."""
        await self._store.transaction(partial(complete_receipt, key=key, now=now))

    async def advance(self, new: SweepCursor, *, prune_before: date) -> None:
        """See `advance_cursor`."""
        await self._store.transaction(
            lambda conn: advance_cursor(conn, new, prune_before=prune_before))

    async def reconcile(self, *, zone: str, now: datetime,
                        expected_window_id: str) -> SweepCursor:
        """See `reconcile_cursor`."""
        return await self._store.transaction(lambda conn: reconcile_cursor(
            conn, zone=zone, now=now, expected_window_id=expected_window_id))
