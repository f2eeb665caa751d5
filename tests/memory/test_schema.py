"""Opening the database: migrations, identity checks and refusal without modification."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from companion_memory.memory import DatabaseRefusedError, MemoryStore, StoreClosedError
from companion_memory.memory.database import _apply_migrations, open_database
from companion_memory.memory.migrations import Migration, all_migrations
from companion_memory.memory.schema import APPLICATION_ID


def applied(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
    finally:
        conn.close()


def test_new_database_gets_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    for _ in range(2):
        conn = open_database(path)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        conn.close()
    assert applied(path) == sorted(m.name for m in all_migrations())


def test_failed_migration_rolls_back_with_its_record(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "m.db", isolation_level=None)
    good = Migration("0001_good", "CREATE TABLE good (x INTEGER);")
    bad = Migration("0002_bad", "CREATE TABLE half (x INTEGER); CREATE TABLE broken (;")
    with pytest.raises(sqlite3.OperationalError):
        _apply_migrations(conn, [good, bad])
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "good" in tables and "half" not in tables
    assert [r[0] for r in conn.execute("SELECT name FROM schema_migrations")] == ["0001_good"]
    conn.close()


def test_text_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"hello, these are my notes\n")
    with pytest.raises(DatabaseRefusedError) as info:
        open_database(path)
    assert str(info.value) == (
        f"refusing to open {path}: it is not an SQLite database; the file was not modified"
    )
    assert info.value.code == "database_refused"
    assert path.read_bytes() == b"hello, these are my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def _foreign(path: Path, app_id: int) -> bytes:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {app_id}")
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('x')")
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("app_id", [0, 0x1234])
def test_foreign_sqlite_database_is_refused_untouched(tmp_path: Path, app_id: int) -> None:
    path = tmp_path / "other.db"
    before = _foreign(path, app_id)
    with pytest.raises(DatabaseRefusedError, match=f"another application \\(application_id "
                                                   f"{app_id:#x}\\)"):
        open_database(path)
    assert path.read_bytes() == before


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    open_database(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 'x')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(DatabaseRefusedError) as info:
        open_database(path)
    assert "written by a newer version (unknown migrations: 9999_from_the_future); " \
        "upgrade companion-memory" in str(info.value)
    assert path.read_bytes() == before


async def test_store_open_reports_refusal(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    await asyncio.to_thread(path.write_bytes, b"\x00" * 64)
    with pytest.raises(DatabaseRefusedError, match="not an SQLite database"):
        await MemoryStore.open(path)


async def test_close_is_idempotent_and_use_after_close_fails(tmp_path: Path) -> None:
    store = await MemoryStore.open(tmp_path / "m.db")
    async with store:
        assert await store.get_cursor("x") == 0
    await store.close()
    with pytest.raises(StoreClosedError, match="the memory store is closed"):
        await store.get("a")
