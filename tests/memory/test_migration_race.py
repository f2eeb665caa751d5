"""Several processes opening the same fresh store at once all succeed: the migrations
are applied once, in order, and nobody runs DDL against tables that already exist."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion_memory.memory.migrations import all_migrations
from companion_memory.memory.schema import MIGRATIONS_TABLE

OPENER = """
import sys
from companion_memory.memory.database import open_database
print("ready", flush=True)
sys.stdin.readline()  # the parent releases every opener at once
open_database(sys.argv[1]).close()
"""


@pytest.mark.timeout(300)
def test_concurrent_openers_of_a_fresh_store_all_succeed(tmp_path: Path) -> None:
    for round_ in range(12):
        db = tmp_path / f"memory-{round_}.sqlite3"
        procs = [subprocess.Popen([sys.executable, "-c", OPENER, str(db)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for _ in range(4)]
        # A barrier, not a time: each opener has imported everything and waits, however
        # long the interpreters took to start; then all of them are released together.
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        errors = [proc.communicate(timeout=120)[1] for proc in procs]  # reap every one
        for proc, err in zip(procs, errors, strict=True):
            assert proc.returncode == 0, err
        conn = sqlite3.connect(db)
        names = [r[0] for r in conn.execute(
            "SELECT name FROM " + MIGRATIONS_TABLE)]
        conn.close()
        assert sorted(names) == sorted(m.name for m in all_migrations())


def test_every_migration_splits_into_whole_statements() -> None:
    from companion_memory.memory.database import _statements

    for migration in all_migrations():
        statements = _statements(migration.sql)
        assert statements, migration.name
        assert all(sqlite3.complete_statement(s) for s in statements)
