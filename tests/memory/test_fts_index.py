"""The full-text index stays readable and consistent for as long as the store lives:
thousands of cleanup rounds, a damaged index repaired from the memories, an index
written by an older release (grown by FTS5 'optimize') migrated, and a malformed index
reported as `StoreCorruptError`, never as a generic database error."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bench import sqlite_swap
from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore, StoreCorruptError, Tier, fts_index
from companion_memory.memory.database import _apply_migrations, check_sqlite
from companion_memory.memory.errors import UnsupportedSqliteError
from companion_memory.memory.migrations import MIGRATIONS
from companion_memory.memory.rejections import register as register_rejections
from companion_memory.memory.search_text import register as register_search_text
from tests.memory.helpers import create, insert_old_row

REPO = Path(__file__).resolve().parents[2]

ROUNDS = 2_100
"""More cleanup rounds than FTS5 allows levels (2,000): the store that ran 'optimize'
after every cleanup broke before this (on SQLite 3.40 after about 1,550 rounds)."""

LIVE = 150
"""Memories live this many rounds (hours): the store holds about this many at a time."""

WORDS = ("dentist", "parcel", "dinner", "train", "invoice", "concert", "ferry", "bakery")


def _text(i: int) -> str:
    return f"Note {i}: the {WORDS[i % len(WORDS)]} on day {i // 24} at {i % 24} o'clock"


async def test_thousands_of_cleanup_rounds_keep_the_index_readable(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    store = await MemoryStore.open(tmp_path / "memory.db", clock=clock,
                                   temporary_ttl=timedelta(hours=LIVE))
    try:
        removed = 0
        for i in range(ROUNDS):
            await store.apply([create(f"m{i}", _text(i), tier=Tier.TEMPORARY, source=str(i))])
            await clock.advance(3600)
            removed += (await store.cleanup_expired()).removed
        assert removed == ROUNDS - LIVE + 1  # each memory expired LIVE rounds later
        health = await store.check()
        assert health.ok, health.problems
        assert health.structure is not None
        assert health.structure.levels <= fts_index.LEVELS_REBUILD_AT
        assert health.indexed_rows == health.active_rows == LIVE - 1
        word = WORDS[(ROUNDS - 1) % len(WORDS)]
        hits = await store.recall(word, limit=100)
        assert {h.record.memory_id for h in hits} == {
            f"m{i}" for i in range(ROUNDS - LIVE + 1, ROUNDS) if WORDS[i % len(WORDS)] == word
        }
    finally:
        await store.close()


async def _seed(store: MemoryStore, count: int) -> None:
    await store.apply([create(f"m{i}", _text(i), source=str(i)) for i in range(count)])


def _damage_structure(path: Path) -> None:
    """An index FTS5 refuses: its structure record claims more levels than FTS5 allows."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        block = conn.execute("SELECT block FROM memories_fts_data WHERE id = 10").fetchone()[0]
        too_many = bytes([0x80 | (2_100 >> 7), 2_100 & 0x7F])  # varint 2,100 levels
        conn.execute("UPDATE memories_fts_data SET block = ? WHERE id = 10",
                     (bytes(block[:4]) + too_many + bytes(block[5:]),))
    finally:
        conn.close()


def _drop_index_rows(path: Path, count: int) -> None:
    """An index that lost rows its memories still have (they are live, unsearchable)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        register_search_text(conn)
        conn.execute("DELETE FROM memories_fts WHERE rowid IN "
                     "(SELECT rowid FROM memories ORDER BY rowid LIMIT ?)", (count,))
    finally:
        conn.close()


async def test_a_damaged_structure_is_repaired_from_the_memories(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await MemoryStore.open(path, clock=FakeClock())
    try:
        await _seed(store, 40)
        ids = sorted(r.memory_id for r in await store.list_records())
        await store.close()
        await asyncio.to_thread(_damage_structure, path)
        store = await MemoryStore.open(path, clock=FakeClock())
        # Opening re-derived the index: the store works and nothing is lost.
        health = await store.check()
        assert health.ok, health.problems
        assert sorted(r.memory_id for r in await store.list_records()) == ids
        assert {h.record.memory_id for h in await store.recall("dentist", limit=50)} == {
            f"m{i}" for i in range(40) if WORDS[i % len(WORDS)] == "dentist"
        }
    finally:
        await store.close()


async def test_lost_index_rows_are_found_by_the_check_and_repaired(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await MemoryStore.open(path, clock=FakeClock())
    try:
        await _seed(store, 30)
        await asyncio.to_thread(_drop_index_rows, path, 8)
        health = await store.check()
        assert "index_rows" in health.problems and health.needs_repair
        assert health.indexed_rows == 22 and health.active_rows == 30
        result = await store.repair_index()
        assert result.indexed == 30
        assert result.before.problems == health.problems
        assert result.after.ok, result.after.problems
        found = {h.record.memory_id for h in await store.recall("dentist", limit=50)}
        assert found == {f"m{i}" for i in range(30) if WORDS[i % len(WORDS)] == "dentist"}
    finally:
        await store.close()


async def test_a_malformed_index_is_a_store_corrupt_error(tmp_path: Path) -> None:
    """A store already open when its index goes bad: the failing call says what broke and
    what to do, and `corruption_seen` tells the round's storage step to repair it."""
    path = tmp_path / "memory.db"
    store = await MemoryStore.open(path, clock=FakeClock())
    try:
        await _seed(store, 10)
        assert not store.corruption_seen

        def damage(conn: sqlite3.Connection) -> None:
            block = conn.execute(
                "SELECT block FROM memories_fts_data WHERE id = 10").fetchone()[0]
            conn.execute("UPDATE memories_fts_data SET block = ? WHERE id = 10",
                         (bytes(block[:4]) + b"\x90\x34" + bytes(block[5:]),))

        await store.transaction(damage)
        with pytest.raises(StoreCorruptError, match="doctor --repair") as caught:
            await store.recall("dentist")
        assert caught.value.code == "store_corrupt"
        assert caught.value.category == "storage_failure"
        assert store.corruption_seen
        result = await store.repair_index()
        assert result.after.ok and not store.corruption_seen
        assert await store.recall("dentist")
    finally:
        await store.close()


def _old_release_store(path: Path, optimizes: int) -> int:
    """A store as releases before 0008 left it (an index over the memories' content
    computed by triggers), with its structure grown by `optimize` after each cleanup;
    returns the levels it reached before SQLite refused the next 'optimize', if it did."""
    conn = sqlite3.connect(path, isolation_level=None)
    register_search_text(conn)
    register_rejections(conn)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        _apply_migrations(conn, [m for m in MIGRATIONS if m.name < "0008"])
        for i in range(optimizes):  # a memory written each round, one expired every third
            try:
                _old_release_round(conn, i)
            except sqlite3.DatabaseError:  # the index broke ("database disk image is malformed")
                break
        structure = fts_index.read_structure(conn)
        return structure.levels if structure is not None else 0
    finally:
        conn.close()


def _old_release_round(conn: sqlite3.Connection, i: int) -> None:
    insert_old_row(conn, f"m{i}", _text(i), kind="event", norm=f"n{i}")
    if i % 3 == 0:
        conn.execute("DELETE FROM memories WHERE memory_id = ?", (f"m{i // 3}",))
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")


def _live_with(path: Path, word: str) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {str(mid) for (mid,) in conn.execute(
            "SELECT memory_id FROM memories WHERE status = 'active' AND instr(text, ?) > 0",
            (word,))}
    finally:
        conn.close()


@pytest.mark.parametrize("optimizes", [700, ROUNDS])
async def test_an_index_grown_by_an_older_release_is_replaced_at_open(
    tmp_path: Path, optimizes: int
) -> None:
    path = tmp_path / "memory.db"
    levels = await asyncio.to_thread(_old_release_store, path, optimizes)
    if sqlite3.sqlite_version_info < (3, 41):  # each 'optimize' added a level there
        assert levels > fts_index.LEVELS_REBUILD_AT
    ferries = await asyncio.to_thread(_live_with, path, "ferry")
    assert len(ferries) > 20
    store = await MemoryStore.open(path, clock=FakeClock())
    try:
        health = await store.check()
        assert health.ok, health.problems
        assert health.structure is not None and health.structure.levels <= 4
        assert health.active_rows == health.indexed_rows
        hits = await store.recall("ferry", limit=100)
        assert {h.record.memory_id for h in hits} == ferries
    finally:
        await store.close()


async def test_forget_leaves_no_segment_behind(tmp_path: Path) -> None:
    """A forgotten memory's words leave the index whole (the index is rebuilt, never
    'optimize'd), and the structure does not grow with the number of forgets."""
    path = tmp_path / "memory.db"
    store = await MemoryStore.open(path, clock=FakeClock())
    try:
        await _seed(store, 20)
        await store.apply([create("secretive", "Zanzibarian marmalade for Oskar")])
        for i in range(60):
            await store.forget(f"m{i % 20}" if i < 20 else "secretive",
                               reason="not true any more")
        health = await store.check()
        assert health.ok, health.problems
        assert health.structure is not None and health.structure.levels <= 2

        def vocab(conn: sqlite3.Connection) -> set[str]:
            return {str(t) for (t,) in conn.execute("SELECT term FROM memories_vocab")}

        terms = await store.read(vocab)
        assert not terms & {"zanzibarian", "marmalade", "oskar"}
    finally:
        await store.close()


def test_an_unsupported_sqlite_is_refused_by_name() -> None:
    check_sqlite()  # the SQLite this suite runs on is supported
    with pytest.raises(UnsupportedSqliteError, match=r"SQLite 3\.39\.4; companion-memory "
                       r"needs 3\.40\.0 or newer with FTS5") as caught:
        check_sqlite((3, 39, 4), has_fts5=True)
    assert caught.value.category == "unavailable"
    with pytest.raises(UnsupportedSqliteError, match=r"3\.45\.1 without FTS5"):
        check_sqlite((3, 45, 1), has_fts5=False)


REPAIR_CHILD = """
import asyncio, sys, tempfile
from pathlib import Path
from bench import sqlite_swap
sqlite_swap.swap()
from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore, StoreCorruptError
from tests.memory.helpers import create

async def main():
    store = await MemoryStore.open(Path(tempfile.mkdtemp()) / "m.db", clock=FakeClock())
    await store.apply([create(f"m{i}", f"dentist visit {i}", source=str(i)) for i in range(9)])
    def damage(conn):
        block = conn.execute("SELECT block FROM memories_fts_data WHERE id = 10").fetchone()[0]
        conn.execute("UPDATE memories_fts_data SET block = ? WHERE id = 10",
                     (bytes(block[:4]) + b"\\x90\\x34" + bytes(block[5:]),))
    await store.transaction(damage)
    try:
        await store.recall("dentist")
        print("no error")
    except StoreCorruptError:
        print("corrupt")
    health = await store.check()
    print("needs_repair", health.needs_repair, "database_ok", health.database_ok)
    result = await store.repair_index()
    print("after", result.after.ok, len(await store.recall("dentist", limit=20)))
    await store.close()

asyncio.run(main())
"""


@pytest.mark.skipif(not sqlite_swap.available(),
                    reason="pysqlite3-binary (the test extra, Linux x86_64 only) is missing")
def test_the_repair_works_on_the_newest_sqlite_too() -> None:
    """SQLite 3.44+ reports the index's damage inside `PRAGMA integrity_check`; that is
    still the index's problem, which the repair mends, not the database's."""
    proc = subprocess.run([sys.executable, "-c", REPAIR_CHILD], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[:3] == [
        "corrupt", "needs_repair True database_ok True", "after True 9"]
