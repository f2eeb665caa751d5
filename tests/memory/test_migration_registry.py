"""The migration registry: one order, one naming rule; a file written by an earlier
version gains only the migrations it lacks, its rows unchanged; a name the registry
does not know is refused."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from companion_memory.core.errors import InvalidInputError
from companion_memory.memory import MemoryStore
from companion_memory.memory import episode_ledger as ledger
from companion_memory.memory.database import _apply_migrations, open_database
from companion_memory.memory.errors import DatabaseRefusedError
from companion_memory.memory.migrations import (
    MIGRATIONS,
    Migration,
    all_migrations,
    applied_stamp,
    check_registry,
    of_area,
)
from companion_memory.memory.rejections import register as register_rejections
from companion_memory.memory.rows import to_us
from companion_memory.memory.search_text import register as register_search_text
from companion_memory.memory.work_ledger import Scenario, notification_key
from tests.memory.helpers import insert_old_row

RECORDED_BEFORE_0008 = [m.name for m in MIGRATIONS[:7]]
"""What a database written before the index kept its own content (0008) records."""


def _old_database(path: Path, recorded: list[str]) -> None:
    """A file as an earlier version left it: the migrations it knew, with a memory, an
    episode ledger row and a sweep cursor."""
    by_name = {m.name: m for m in MIGRATIONS}
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register_search_text(conn)
        register_rejections(conn)
        conn.execute("PRAGMA journal_mode = WAL")
        _apply_migrations(conn, [by_name[n] for n in recorded])
        insert_old_row(conn, "old", "Guest Wi-Fi password is on the fridge")
        ledger.register(conn, [("2026-11-30", "ep1")], datetime(2026, 11, 30, tzinfo=UTC))
        conn.execute(
            "INSERT INTO sweep_cursor (id, zone, local_date, start_utc, end_utc, window_id, "
            "kind, updated_at) VALUES (1, 'UTC', '2026-11-29', 'a', 'b', 'w1', 'swept', 'c')"
        )
    finally:
        conn.close()


def _snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {
            "schema": conn.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
            ).fetchall(),
            "recorded": conn.execute(
                "SELECT name, applied_at FROM schema_migrations ORDER BY name"
            ).fetchall(),
            "memories": conn.execute("SELECT * FROM memories ORDER BY rowid").fetchall(),
            # the columns every version has (0017 moved attempts to work_attempts)
            "episodes": conn.execute(
                "SELECT episode_id, day, state, reason, trace_digest, batch_id, "
                "proposal_digest, proposal_json, applied_json, registered_at, updated_at "
                "FROM episode_ledger").fetchall(),
            "cursor": conn.execute("SELECT * FROM sweep_cursor").fetchall(),
        }
    finally:
        conn.close()


ADDED_FROM_0008 = [m.name for m in all_migrations() if int(m.name[:4]) >= 8]
"""The index with its own content (0008) and everything after it."""


async def test_a_database_from_before_0008_gains_the_rest_with_its_rows_unchanged(
        tmp_path: Path) -> None:
    """Its rows and records stay as they were; it gains only the migrations it lacks
    (0008 on: the index with its own content, vectors, CJK bigrams, ...), once."""
    path = tmp_path / "memory.db"
    await asyncio.to_thread(_old_database, path, RECORDED_BEFORE_0008)
    before = await asyncio.to_thread(_snapshot, path)
    assert [name for name, _ in before["recorded"]] == sorted(RECORDED_BEFORE_0008)
    store = await MemoryStore.open(path)
    await store.close()
    after_first = await asyncio.to_thread(_snapshot, path)
    added = [n for n, _ in after_first["recorded"] if n not in RECORDED_BEFORE_0008]
    assert added == ADDED_FROM_0008
    assert added[:2] == ["0008_memory_fts_own_content", "0009_memory_vectors"]
    for key in ("episodes", "cursor"):
        assert after_first[key] == before[key]
    # the memories keep every value; 0011 adds when each happened (backfilled with its
    # creation time), its app and its sender (unknown: NULL)
    width = len(before["memories"][0])
    assert [r[:width] for r in after_first["memories"]] == before["memories"]
    assert [r[width:] for r in after_first["memories"]] == [(0, None, None)]
    assert [r for r in after_first["recorded"] if r[0] not in added] == before["recorded"]
    for _ in range(2):
        store = await MemoryStore.open(path)
        try:
            hits = await store.recall("wifi password")
            assert [h.record.memory_id for h in hits] == ["old"]
            row = await store.read(lambda conn: ledger.get(conn, "ep1"))
            assert row is not None and row.state is ledger.EpisodeState.PENDING
        finally:
            await store.close()
    assert await asyncio.to_thread(_snapshot, path) == after_first


def test_a_database_from_before_0003_gets_only_the_missing_migrations(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    recorded = ["0001_memory_core", "0002_memory_vocab"]
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _apply_migrations(conn, list(MIGRATIONS[:2]))
    finally:
        conn.close()
    open_database(path).close()
    names = [str(n) for n, _ in _snapshot(path)["recorded"]]
    assert names[:2] == recorded
    assert sorted(names) == sorted(m.name for m in MIGRATIONS)


def test_a_name_the_registry_does_not_know_is_refused(tmp_path: Path) -> None:
    """Such as `sweep_0001_ledger`, the 0007 ledger's name before the first release: no
    released version recorded it, so nothing maps it."""
    path = tmp_path / "memory.db"
    _old_database(path, RECORDED_BEFORE_0008)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("UPDATE schema_migrations SET name = 'sweep_0001_ledger' "
                     "WHERE name = '0007_sweep_ledger_create'")
    finally:
        conn.close()
    with pytest.raises(DatabaseRefusedError, match="unknown migrations: sweep_0001_ledger"):
        open_database(path).close()


def test_a_new_database_records_the_registry_names(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    open_database(path).close()
    recorded = _snapshot(path)["recorded"]
    assert [n for n, _ in recorded] == sorted(m.name for m in MIGRATIONS)
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00")
    assert all(stamp.fullmatch(str(at)) for _, at in recorded), recorded


def test_the_registry_follows_its_naming_rule() -> None:
    check_registry(MIGRATIONS)
    assert [m.name[:4] for m in MIGRATIONS] == [f"{i:04d}" for i in range(1, len(MIGRATIONS) + 1)]
    assert [m.name for m in of_area("episode_ledger")] == [
        "0006_episode_ledger_create", "0017_episode_ledger_drop_attempts"]
    assert [m.name for m in of_area("sweep_ledger")] == ["0007_sweep_ledger_create"]
    assert [m.name for m in of_area("work_ledger")] == [
        "0015_work_ledger_create", "0016_work_ledger_carry_over"]
    assert len(of_area("memory")) == len(MIGRATIONS) - 5
    with pytest.raises(InvalidInputError, match="unknown migration area 'attic'; known: memory"):
        of_area("attic")


@pytest.mark.parametrize(
    ("migrations", "message"),
    [
        ([Migration("sweep_0001_ledger", "")], "does not follow NNNN_<area>_<change>"),
        ([Migration("0001_attic_create", "")], "does not follow NNNN_<area>_<change>"),
        ([Migration("0001_memory_Core", "")], "does not follow NNNN_<area>_<change>"),
        ([Migration("0002_memory_core", "")], "at position 1; its number must be 0001"),
        ([Migration("0001_memory_core", ""), Migration("0001_memory_core", "")],
         "at position 2; its number must be 0002"),
    ],
)
def test_a_registry_breaking_the_rule_is_refused(
    migrations: list[Migration], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        check_registry(migrations)


def test_applied_stamp_is_fixed_width_utc() -> None:
    assert applied_stamp(datetime(2026, 12, 1, 14, 29, 46, tzinfo=UTC)) == \
        "2026-12-01T14:29:46.000000+00:00"


def _store_before_0014(path: Path) -> None:
    """A store at 0013 holding the attempts table as the processor created it on first
    use before 0014, with one row (its time unreadable, as a hand-made row's may be)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register_search_text(conn)
        register_rejections(conn)
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0014"])
        conn.execute(
            "CREATE TABLE IF NOT EXISTS notification_attempts (first_context_id INTEGER "
            "PRIMARY KEY, attempts INTEGER NOT NULL, last_code TEXT NOT NULL, "
            "updated_at TEXT NOT NULL)")
        conn.execute("INSERT INTO notification_attempts VALUES (7, 2, 'model_timeout', 'x')")
    finally:
        conn.close()


def _work_rows(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(
            "SELECT scenario, work_key, attempts, last_code, next_attempt_us, poisoned_us, "
            "updated_us FROM work_attempts ORDER BY scenario, work_key").fetchall()
    finally:
        conn.close()


def _tables_and_columns(path: Path) -> tuple[set[str], set[str]]:
    conn = sqlite3.connect(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        columns = {r[1] for r in conn.execute("PRAGMA table_info(episode_ledger)")}
        return tables, columns
    finally:
        conn.close()


async def test_a_store_from_before_0014_keeps_its_counts_in_the_work_ledger(
        tmp_path: Path) -> None:
    """0014 creates `notification_attempts` only if missing; 0016 carries its row (the one
    the processor made before 0014) into `work_attempts`, and the store counts, reads and
    clears attempts through typed operations, not SQL of its own."""
    path = tmp_path / "memory.db"
    await asyncio.to_thread(_store_before_0014, path)
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    store = await MemoryStore.open(path)
    try:
        seven = await store.work_attempt(Scenario.NOTIFICATIONS, "7")
        assert seven is not None and (seven.attempts, seven.last_code) == (2, "model_timeout")
        assert await store.work_attempt(Scenario.NOTIFICATIONS, "9") is None
        first = await store.record_work_failure(Scenario.NOTIFICATIONS, "9", "x" * 100,
                                                budget=3, at=at)
        assert (first.attempts, first.last_code, first.poisoned) == (1, "x" * 64, False)
        second = await store.record_work_failure(Scenario.NOTIFICATIONS, "9",
                                                 "model_output", budget=3, at=at)
        assert second.attempts == 2
        assert await store.clear_work_through(Scenario.NOTIFICATIONS, 8) == 1
        assert await store.work_attempt(Scenario.NOTIFICATIONS, "7") is None
    finally:
        await store.close()
    recorded = [str(n) for n, _ in (await asyncio.to_thread(_snapshot, path))["recorded"]]
    assert {"0014_memory_notification_attempts", "0016_work_ledger_carry_over"} <= set(recorded)
    assert await asyncio.to_thread(_work_rows, path) == [
        ("notifications", "9", 2, "model_output", None, None, to_us(at))]
    tables, _ = await asyncio.to_thread(_tables_and_columns, path)
    assert "notification_attempts" not in tables and "work_attempts" in tables
    fresh = tmp_path / "fresh.db"
    await asyncio.to_thread(lambda: open_database(fresh).close())
    assert await asyncio.to_thread(_work_rows, fresh) == []


UPDATED = "2026-03-01T08:00:00.250000+00:00"
BACKOFF = "2026-03-01T08:05:00.000000Z"


def _store_at_0014_with_attempts(path: Path) -> None:
    """A store as the previous release left it (every migration up to 0014), with a
    failed attempt in each of the three older ledgers."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register_search_text(conn)
        register_rejections(conn)
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0015"])
        conn.execute("INSERT INTO notification_attempts VALUES (41, 2, 'model_timeout', ?)",
                     (UPDATED,))
        conn.execute("INSERT INTO sweep_attempts VALUES (1, '2026-02-27@UTC#a/b', 1, "
                     "'model_output_invalid', ?)", (UPDATED,))
        conn.execute("INSERT INTO sweep_attempts VALUES (2, '2026-02-28@UTC#b/c', 3, "
                     "'model_output_invalid', ?)", (UPDATED,))
        conn.execute(
            "INSERT INTO sweep_stages VALUES (2, '2026-02-28@UTC#b/c', '2026-02-28', 1, "
            "'{\"candidates\":[],\"source\":\"invalid_output\"}', 'd', ?)", (UPDATED,))
        rows = [
            ("ep-retry", "retry", 1, "stale_revision", BACKOFF),
            ("ep-gone", "ignored", 3, "retry_budget_exhausted:model_timeout", None),
            ("ep-done", "done", 1, None, None),
            ("ep-new", "pending", 0, None, None),
        ]
        for eid, state, attempts, reason, backoff in rows:
            conn.execute(
                "INSERT INTO episode_ledger (episode_id, day, state, attempts, reason, "
                "next_attempt_at, registered_at, updated_at) VALUES (?, '2026-03-01', ?, ?, "
                "?, ?, ?, ?)", (eid, state, attempts, reason, backoff, UPDATED, UPDATED))
    finally:
        conn.close()


async def test_an_upgraded_store_loses_no_count(tmp_path: Path) -> None:
    """Opening a store of the previous schema carries every failed attempt of the three
    older ledgers into `work_attempts` (count, code, backoff, given up or not), drops the
    two attempt tables and the episode ledger's attempt columns, and the scenarios read
    the same counts as before."""
    path = tmp_path / "memory.db"
    await asyncio.to_thread(_store_at_0014_with_attempts, path)
    updated = to_us(datetime.fromisoformat(UPDATED))
    backoff = to_us(datetime(2026, 3, 1, 8, 5, tzinfo=UTC))
    store = await MemoryStore.open(path)
    try:
        row = await store.work_attempt(Scenario.NOTIFICATIONS, notification_key(41))
        assert row is not None and (row.attempts, row.last_code) == (2, "model_timeout")
        gone = await store.read(lambda c: ledger.get(c, "ep-gone"))
        assert gone is not None and (gone.state.value, gone.attempts) == ("ignored", 3)
        retry = await store.read(lambda c: ledger.get(c, "ep-retry"))
        assert retry is not None and retry.attempts == 1
        assert retry.next_attempt_at == BACKOFF
        done = await store.read(lambda c: ledger.get(c, "ep-done"))
        assert done is not None and done.attempts == 1
        poisoned = {(p.scenario.value, p.key) for p in await store.poisoned_work()}
        assert poisoned == {("episodes", "ep-gone"), ("sweep", "2026-02-28@UTC#b/c|2")}
    finally:
        await store.close()
    assert await asyncio.to_thread(_work_rows, path) == [
        ("episodes", "ep-done", 1, "unknown", None, None, updated),
        ("episodes", "ep-gone", 3, "model_timeout", None, updated, updated),
        ("episodes", "ep-retry", 1, "stale_revision", backoff, None, updated),
        ("notifications", "41", 2, "model_timeout", None, None, updated),
        ("sweep", "2026-02-27@UTC#a/b|1", 1, "model_output_invalid", None, None, updated),
        ("sweep", "2026-02-28@UTC#b/c|2", 3, "model_output_invalid", None, updated, updated),
    ]
    tables, columns = await asyncio.to_thread(_tables_and_columns, path)
    assert {"notification_attempts", "sweep_attempts"} & tables == set()
    assert {"attempts", "next_attempt_at"} & columns == set()
