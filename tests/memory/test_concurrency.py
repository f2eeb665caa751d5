"""Concurrent writers never lose an update; cancellation never leaves half a transaction."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore, RevisionConflictError
from tests.memory.helpers import create, update

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import asyncio, sys
sys.path.insert(0, {root!r})
from companion_memory.memory import MemoryStore, RevisionConflictError
from tests.memory.helpers import update

async def main(path, name, rounds):
    store = await MemoryStore.open(path)
    wins = conflicts = 0
    try:
        while wins < rounds:
            record = await store.get("shared")
            try:
                await store.apply([update("shared", record.revision, f"{{name}} {{wins}}")])
                wins += 1
            except RevisionConflictError:
                conflicts += 1
    finally:
        await store.close()
    print(wins, conflicts)

asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
"""


async def test_two_stores_on_one_file_loser_gets_conflict(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    a = await MemoryStore.open(path)
    b = await MemoryStore.open(path)
    try:
        await a.apply([create("x")])
        seen_a, seen_b = await a.get("x"), await b.get("x")
        assert seen_a is not None and seen_b is not None
        await a.apply([update("x", seen_a.revision, "from a")])
        with pytest.raises(RevisionConflictError, match="is at revision 2, not 1"):
            await b.apply([update("x", seen_b.revision, "from b")])
        final = await b.get("x")
        assert final is not None and final.text == "from a"
    finally:
        await a.close()
        await b.close()


async def test_two_tasks_same_revision_one_wins(store: MemoryStore) -> None:
    await store.apply([create("x")])
    results = await asyncio.gather(
        store.apply([update("x", 1, "first")]),
        store.apply([update("x", 1, "second")]),
        return_exceptions=True,
    )
    assert sum(isinstance(r, RevisionConflictError) for r in results) == 1
    final = await store.get("x")
    assert final is not None and final.revision == 2


async def test_two_processes_never_lose_an_update(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with await MemoryStore.open(path) as store:
        await store.apply([create("shared")])
    rounds = 25
    script = WRITER.format(root=str(ROOT))
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, str(path), name, str(rounds),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        for name in ("a", "b")
    ]
    outputs = [await p.communicate() for p in procs]
    for proc, (_out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err.decode()
    wins = [int(out.split()[0]) for out, _ in outputs]
    assert wins == [rounds, rounds]
    async with await MemoryStore.open(path) as store:
        final = await store.get("shared")
    assert final is not None and final.revision == 1 + 2 * rounds


async def test_cancelled_before_start_never_runs(tmp_path: Path, clock: FakeClock) -> None:
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock)
    started, gate = threading.Event(), threading.Event()

    def block(_conn: sqlite3.Connection) -> bool:
        started.set()
        return gate.wait(60)

    try:
        blocker = asyncio.create_task(store.read(block))
        assert await asyncio.to_thread(started.wait, 60), "the store thread never ran"
        queued = asyncio.create_task(store.apply([create("never")]))
        for _ in range(10):  # the apply is handed to the store's queue, behind the blocker
            await asyncio.sleep(0)
        assert not queued.done()
        queued.cancel()
        with pytest.raises(asyncio.CancelledError):
            await queued
        await asyncio.to_thread(gate.set)
        assert await blocker is True
        assert await store.get("never") is None
    finally:
        await store.close()


async def test_cancelled_after_start_commits_whole(tmp_path: Path, clock: FakeClock) -> None:
    store = await MemoryStore.open(tmp_path / "m.db", clock=clock)
    started, gate = threading.Event(), threading.Event()

    def slow_write(conn: sqlite3.Connection) -> None:
        conn.execute(
            "INSERT INTO memory_cursors (name, value, updated_us) VALUES ('c', 1, 0)"
        )
        started.set()
        gate.wait(60)
        conn.execute("UPDATE memory_cursors SET value = 2 WHERE name = 'c'")

    try:
        task = asyncio.create_task(store.transaction(slow_write))
        assert await asyncio.to_thread(started.wait, 60), "the transaction never started"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.to_thread(gate.set)
        assert await store.get_cursor("c") == 2
    finally:
        await store.close()


async def test_exception_in_transaction_rolls_back(store: MemoryStore) -> None:
    def failing(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO memory_cursors (name, value, updated_us) VALUES ('c', 7, 0)")
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await store.transaction(failing)
    assert await store.get_cursor("c") == 0
