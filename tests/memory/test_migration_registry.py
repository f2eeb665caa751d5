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
from companion_memory.memory.search_text import register as register_search_text

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
        conn.execute(
            "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, "
            "sources, created_us, updated_us, status, auto) VALUES ('old', 1, 'long_term', "
            "'fact', 'Guest Wi-Fi password is on the fridge', 'x', 'inference', '[]', "
            "0, 0, 'active', 1)"
        )
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
            "episodes": conn.execute("SELECT * FROM episode_ledger").fetchall(),
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
    assert [m.name for m in of_area("episode_ledger")] == ["0006_episode_ledger_create"]
    assert [m.name for m in of_area("sweep_ledger")] == ["0007_sweep_ledger_create"]
    assert len(of_area("memory")) == len(MIGRATIONS) - 2
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
    use before 0014, with one row."""
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


def _attempt_rows(path: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT * FROM notification_attempts ORDER BY 1").fetchall()
    finally:
        conn.close()


async def test_the_attempts_table_is_a_migration_and_a_store_operation(tmp_path: Path) -> None:
    """0014 creates `notification_attempts`; a store from before it, which holds the
    table the processor used to create on first use, keeps its rows. The processor counts,
    reads and clears attempts through the store, not SQL of its own."""
    path = tmp_path / "memory.db"
    await asyncio.to_thread(_store_before_0014, path)
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    store = await MemoryStore.open(path)
    try:
        assert await store.batch_attempts(7) == 2
        assert await store.batch_attempts(9) == 0
        assert await store.record_batch_attempt(9, "x" * 100, at) == 1
        assert await store.record_batch_attempt(9, "model_output", at) == 2
        await store.clear_batch_attempts(8)
        assert (await store.batch_attempts(7), await store.batch_attempts(9)) == (0, 2)
    finally:
        await store.close()
    recorded = [str(n) for n, _ in (await asyncio.to_thread(_snapshot, path))["recorded"]]
    assert "0014_memory_notification_attempts" in recorded
    assert await asyncio.to_thread(_attempt_rows, path) == [
        (9, 2, "model_output", at.isoformat())]
    fresh = tmp_path / "fresh.db"
    await asyncio.to_thread(lambda: open_database(fresh).close())
    assert await asyncio.to_thread(_attempt_rows, fresh) == []
