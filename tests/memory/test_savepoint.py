"""`memory.rows.savepoint`: the block's writes undone when it raises, the enclosing
transaction going on; released when it ends (real SQLite)."""

from __future__ import annotations

import sqlite3

import pytest

from companion_memory.memory.rows import savepoint


def _conn() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t VALUES (1)")
    return conn


def _values(conn: sqlite3.Connection) -> list[int]:
    return [int(x) for (x,) in conn.execute("SELECT x FROM t ORDER BY x")]


def test_a_block_that_raises_leaves_the_transaction_without_its_writes() -> None:
    conn = _conn()
    with pytest.raises(RuntimeError, match="boom"), savepoint(conn, "probe"):
        conn.execute("INSERT INTO t VALUES (2)")
        raise RuntimeError("boom")
    assert conn.in_transaction
    conn.execute("INSERT INTO t VALUES (3)")
    conn.execute("COMMIT")
    assert _values(conn) == [1, 3]


def test_a_block_that_ends_keeps_its_writes_and_releases_the_savepoint() -> None:
    conn = _conn()
    with savepoint(conn, "probe"):
        conn.execute("INSERT INTO t VALUES (2)")
    with pytest.raises(sqlite3.OperationalError, match="no such savepoint"):
        conn.execute("RELEASE probe")
    conn.execute("COMMIT")
    assert _values(conn) == [1, 2]


@pytest.mark.parametrize("name", ["", "a b", "x; DROP TABLE t", "1st", "é"])
def test_a_savepoint_name_must_be_an_identifier(name: str) -> None:
    conn = _conn()
    with pytest.raises(ValueError, match="ASCII identifier"), savepoint(conn, name):
        pass
    assert _values(conn) == [1]
