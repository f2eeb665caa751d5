"""A full disk is reported as a full disk, by the log and by SQLite, never as damage."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from companion_memory.memory.connection import SqliteThread
from companion_memory.memory.database import StoreDiskFullError, _check_identity, is_disk_full


def test_sqlite_full_on_a_write_is_disk_full(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"

    def opener() -> sqlite3.Connection:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=True)
        conn.execute("CREATE TABLE t (x BLOB)")
        conn.execute("PRAGMA max_page_count = 8")  # SQLite's own SQLITE_FULL
        return conn

    async def main() -> None:
        worker = SqliteThread(opener)
        await worker.start()
        try:
            with pytest.raises(StoreDiskFullError) as caught:
                await worker.run(lambda c: c.execute("INSERT INTO t VALUES (zeroblob(100000))"))
            assert caught.value.code == "disk_full"
            assert "cannot be read" not in caught.value.reason
        finally:
            await worker.stop()

    asyncio.run(main())


class FullConnection:
    """A connection whose reads fail as SQLite does when it cannot create the -shm file."""

    def execute(self, sql: str) -> Any:
        err = sqlite3.OperationalError("database or disk is full")
        err.sqlite_errorcode = sqlite3.SQLITE_FULL
        raise err


def test_sqlite_full_at_open_is_not_called_unreadable() -> None:
    with pytest.raises(StoreDiskFullError) as caught:
        _check_identity(FullConnection(), "/r/memory.sqlite3", [])  # type: ignore[arg-type]
    assert "disk is full" in caught.value.reason


def test_is_disk_full_reads_extended_codes() -> None:
    err = sqlite3.OperationalError("x")
    err.sqlite_errorcode = sqlite3.SQLITE_FULL | (1 << 8)
    assert is_disk_full(err)
    assert not is_disk_full(sqlite3.OperationalError("x"))
