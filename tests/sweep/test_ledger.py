"""The sweep ledger's SQL on a plain SQLite connection."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime

import pytest

from companion_memory.memory import sweep_ledger as L
from companion_memory.memory import work_ledger as W
from companion_memory.memory.migrations import all_migrations, of_area

NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)


@pytest.fixture
def conn() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    for migration in [*of_area("sweep_ledger"), *of_area("work_ledger")[:1]]:
        db.executescript(migration.sql)
    return db


def cursor(window_id: str, day: int, *, ns: int = 1, kind: str = "swept") -> L.SweepCursor:
    return L.SweepCursor(
        zone="Europe/London", local_date=date(2026, 3, day),
        start_utc=datetime(2026, 3, day, tzinfo=UTC),
        end_utc=datetime(2026, 3, day + 1, tzinfo=UTC),
        window_id=window_id, namespace=ns, kind=kind, updated_at=NOW,
    )


def test_tables_are_prefixed_and_registered() -> None:
    names = [m.name for m in all_migrations()]
    assert "0007_sweep_ledger_create" in names
    db = sqlite3.connect(":memory:")
    db.executescript(L.DDL)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert tables and all(t.startswith("sweep_") for t in tables)


def test_cursor_compare_and_set(conn: sqlite3.Connection) -> None:
    assert L.read_cursor(conn) is None
    L.write_cursor(conn, cursor("w1", 1, kind="anchor"), expected_window_id=None)
    with pytest.raises(L.SweepCursorConflictError, match="not None"):
        L.write_cursor(conn, cursor("w2", 2), expected_window_id=None)
    L.write_cursor(conn, cursor("w2", 2), expected_window_id="w1")
    got = L.read_cursor(conn)
    assert got is not None and got.window_id == "w2" and got.end_utc.day == 3
    with pytest.raises(L.SweepLedgerError, match="backwards"):
        L.write_cursor(conn, cursor("w0", 1), expected_window_id="w2")


def test_reconcile_bumps_namespace_and_keeps_anchor(conn: sqlite3.Connection) -> None:
    L.write_cursor(conn, cursor("w1", 1), expected_window_id=None)
    new = L.reconcile_cursor(conn, zone="Asia/Kolkata", now=NOW, expected_window_id="w1")
    assert (new.zone, new.namespace, new.kind) == ("Asia/Kolkata", 2, "reconciled")
    stored = L.read_cursor(conn)
    assert stored == new and stored.end_utc == datetime(2026, 3, 2, tzinfo=UTC)


def test_stage_first_writer_wins_and_digest_detects_damage(conn: sqlite3.Connection) -> None:
    out = '{"candidates": []}'
    stage = L.Stage(1, "w1", date(2026, 3, 1), 1, out, L.digest_text(out), NOW)
    assert L.put_stage(conn, stage) == stage
    other = L.Stage(1, "w1", date(2026, 3, 1), 1, "{}", L.digest_text("{}"), NOW)
    assert L.put_stage(conn, other).output == out
    conn.execute("UPDATE sweep_stages SET output = '{\"candidates\": [1]}'")
    damaged = L.read_stage(conn, 1, "w1")
    assert damaged is not None and not damaged.intact
    assert L.read_stage(conn, 2, "w1") is None


def test_receipt_protocol(conn: sqlite3.Connection) -> None:
    key = L.ReceiptKey(1, "w1", "d" * 64)
    with pytest.raises(L.SweepLedgerError, match="claimed"):
        L.mark_applied(conn, key, outcome="added", memory_id="m1", now=NOW)
    first = L.claim_receipt(conn, key, claimant="run-a", memory_id="m1", now=NOW)
    assert first.state == "claimed" and not first.applied
    with pytest.raises(L.SweepLedgerError, match="write is recorded"):
        L.complete_receipt(conn, key, now=NOW)
    # a crashed claim is taken over; nothing applied yet
    again = L.claim_receipt(conn, key, claimant="run-b", memory_id="m1", now=NOW)
    assert again.claimant == "run-b" and not again.applied
    L.mark_applied(conn, key, outcome="added", memory_id="m1", now=NOW)
    with pytest.raises(L.SweepLedgerError):
        L.mark_applied(conn, key, outcome="added", memory_id="m1", now=NOW)
    L.complete_receipt(conn, key, now=NOW)
    L.complete_receipt(conn, key, now=NOW)
    done = L.get_receipt(conn, key)
    assert done is not None and done.state == "committed" and done.outcome == "added"
    assert L.claim_receipt(conn, key, claimant="run-c", memory_id=None, now=NOW) == done
    assert [r.key for r in L.list_receipts(conn, 1, "w1")] == [key]


def test_attempts_count_in_the_work_ledger_and_go_with_the_window(
        conn: sqlite3.Connection) -> None:
    old, kept = "2026-02-01@UTC#a/b", "2026-03-09@UTC#c/d"
    for window in (old, kept):
        for code in ("model_output_invalid", "model_timeout"):
            W.record_failure(conn, W.Scenario.SWEEP, W.sweep_key(1, window), code,
                             now=NOW, budget=3)
    assert W.count(conn, W.Scenario.SWEEP, W.sweep_key(1, kept)) == 2
    L.prune(conn, date(2026, 2, 15))
    assert W.count(conn, W.Scenario.SWEEP, W.sweep_key(1, old)) == 0
    assert W.count(conn, W.Scenario.SWEEP, W.sweep_key(1, kept)) == 2
