"""Recall's cached statistics follow writes made by other connections to the same file:
another MemoryStore in this process, or another process (the CLI beside the daemon).

The corpus makes stale statistics visible: "beta" is first held by many rows (so its
BM25 bound is about zero and the search stops after the "alpha" rows); once the other
writer removes most of them, the one short "beta" row is the best hit, and a search
pruning with the old figures would never score it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore
from companion_memory.memory.recall import match_expression, query_terms
from tests.memory.helpers import create, remove

QUERY = "alpha beta"
ALPHA = [f"a{i}" for i in range(6)]
COMMON_BETA = [f"b{i}" for i in range(60)]
FILLER = [f"f{i}" for i in range(34)]


def corpus() -> list[tuple[str, str]]:
    rows = [(mid, f"Alpha report {i} with budget figures for the quarterly review meeting "
                  "of the regional sales team and the finance office")
            for i, mid in enumerate(ALPHA)]
    rows += [(mid, f"Beta release {i} notes for the build server and the test lab")
             for i, mid in enumerate(COMMON_BETA)]
    rows += [(mid, f"Filler memory number {i} about gardening") for i, mid in enumerate(FILLER)]
    rows.append(("short", "Beta tester"))
    return rows


async def exact_top(path: Path, limit: int) -> list[str]:
    """The plain OR query ranked by FTS5's bm25() over every matching row (no pruning),
    read on a connection of its own."""
    return await asyncio.to_thread(_exact_top, path, limit)


def _exact_top(path: Path, limit: int) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT m.memory_id FROM memories_fts JOIN memories AS m "
            "ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? "
            "ORDER BY bm25(memories_fts) LIMIT ?",
            (match_expression(query_terms(QUERY)), limit),
        ).fetchall()
        return [str(r[0]) for r in rows]
    finally:
        conn.close()


async def ids(store: MemoryStore, limit: int = 1) -> list[str]:
    return [h.record.memory_id for h in await store.recall(QUERY, limit=limit)]


@pytest.fixture
async def pair(tmp_path: Path, clock: FakeClock) -> AsyncIterator[tuple[MemoryStore, MemoryStore]]:
    path = tmp_path / "memory.db"
    writer = await MemoryStore.open(path, clock=clock)
    reader = await MemoryStore.open(path, clock=clock)
    try:
        await writer.apply([create(mid, text) for mid, text in corpus()])
        yield writer, reader
    finally:
        await reader.close()
        await writer.close()


async def test_another_store_removing_rows_is_seen_at_once(
    pair: tuple[MemoryStore, MemoryStore],
) -> None:
    writer, reader = pair
    assert await ids(reader) == await exact_top(reader.path, 1)
    assert (await ids(reader))[0] in ALPHA  # beta is common: the cached bound is ~0
    await writer.apply([remove(mid, 1) for mid in COMMON_BETA])
    assert await exact_top(reader.path, 1) == ["short"]
    assert await ids(reader) == ["short"]
    assert await ids(reader, limit=5) == await exact_top(reader.path, 5)


async def test_another_store_forgetting_is_seen_at_once(
    pair: tuple[MemoryStore, MemoryStore],
) -> None:
    writer, reader = pair
    assert (await ids(reader))[0] in ALPHA
    for mid in COMMON_BETA:
        await writer.forget(mid, "not true")
    assert await ids(reader) == ["short"]
    await writer.forget("short", "not true")
    assert "short" not in await ids(reader, limit=10)
    assert await ids(reader, limit=10) == await exact_top(reader.path, 10)


GROWTH = [f"g{i}" for i in range(1000)]


def growth() -> list[tuple[str, str]]:
    """Many new memories without either word (beta becomes rare among them) and one
    short new memory holding beta."""
    rows = [(mid, f"Garden note {i} about tomatoes") for i, mid in enumerate(GROWTH)]
    return [*rows, ("fresh", "Beta build")]


async def test_another_store_writing_new_memories_is_seen_at_once(
    pair: tuple[MemoryStore, MemoryStore],
) -> None:
    writer, reader = pair
    assert (await ids(reader))[0] in ALPHA
    await writer.apply([create(mid, text) for mid, text in growth()])
    assert await exact_top(reader.path, 1) == ["fresh"]
    assert await ids(reader) == ["fresh"]
    assert await ids(reader, limit=5) == await exact_top(reader.path, 5)


WRITER = """
import asyncio, sys
from companion_memory.memory import MemoryStore
from tests.memory.helpers import create

async def main(path, op, ids):
    store = await MemoryStore.open(path)
    try:
        if op == "forget":
            for mid in ids:
                await store.forget(mid, "wrong")
        else:
            await store.apply([create(*pair.split("=", 1)) for pair in ids])
    finally:
        await store.close()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
"""


ROOT = Path(__file__).resolve().parents[2]


async def run_writer(path: Path, op: str, memory_ids: list[str]) -> None:
    proc = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-c", WRITER, str(path), op, *memory_ids],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.timeout(300)
async def test_another_process_writing_and_forgetting_is_seen_at_once(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    store = await MemoryStore.open(path)  # the system clock, as in the writer process
    try:
        await store.apply([create(mid, text) for mid, text in corpus()])
        assert (await ids(store))[0] in ALPHA
        await run_writer(path, "create", [f"{mid}={text}" for mid, text in growth()])
        assert await ids(store) == ["fresh"]
        await run_writer(path, "forget", [*COMMON_BETA, "fresh"])
        assert await ids(store) == ["short"]
        assert await ids(store, limit=10) == await exact_top(path, 10)
    finally:
        await store.close()


async def test_the_statistics_are_rebuilt_only_when_the_file_changed(
    pair: tuple[MemoryStore, MemoryStore],
) -> None:
    writer, reader = pair
    cache = reader._recall_cache
    await ids(reader)
    built = cache.rebuilds
    await ids(reader)
    await ids(reader, limit=5)
    assert cache.rebuilds == built  # nothing changed: the statistics are kept
    await writer.apply([create("new", "Gamma ray notes")])
    await ids(reader)
    assert cache.rebuilds == built + 1  # another connection committed
    await reader.apply([create("own", "Delta notes")])
    await ids(reader)
    assert cache.rebuilds == built + 2  # this store wrote
    await ids(reader)
    assert cache.rebuilds == built + 2


async def test_related_lookups_see_another_stores_new_memories(
    pair: tuple[MemoryStore, MemoryStore],
) -> None:
    writer, reader = pair
    text = "Kayak rental at the harbour"
    assert await reader.related_many([text]) == [[]]  # no memory holds these words yet
    await writer.apply([create("kayak", "Kayak rental booked for Sunday")])
    found = await reader.related_many([text])
    assert [[r.memory_id for r in records] for records in found] == [["kayak"]]
