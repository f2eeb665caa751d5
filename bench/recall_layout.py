"""Recall latency on a kept store as it is and with its index rebuilt into one segment.

Takes a folder written by `LIFEBENCH_KEEP=DIR bench/lifebench.py ...` (the year-old
`memory.sqlite3` and the month-end `queries.json`), works on a copy, and times
`MemoryStore.recall(query, limit=10)` for each query once (after one untimed warm-up),
first on the index as the year left it, then after the store's own rebuild
(`memory.fts_index.rebuild`). Prints p50 / p95 in ms with the index's structure.

    .venv/bin/python bench/recall_layout.py DIR
    .venv/bin/python bench/sqlite_swap.py bench/recall_layout.py DIR   # on pysqlite3
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from companion_memory.core.clock import FakeClock
from companion_memory.memory import MemoryStore, fts_index
from companion_memory.memory.errors import EmptyQueryError


def _pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 2)


async def _timed(store: MemoryStore, queries: list[str]) -> list[float]:
    out: list[float] = []
    for query in [queries[0], *queries]:
        started = time.perf_counter()
        try:
            await store.recall(query, limit=10)
        except EmptyQueryError:
            continue
        out.append((time.perf_counter() - started) * 1000)
    return out[1:]


async def main(folder: Path) -> None:
    queries = json.loads((folder / "queries.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "memory.sqlite3"
        shutil.copy(folder / "memory.sqlite3", db)
        newest = FakeClock()
        store = await MemoryStore.open(db, clock=newest)
        try:
            latest = await store.read(lambda c: c.execute(
                "SELECT max(updated_us) FROM memories").fetchone()[0])
            if latest:
                await newest.advance(max(0.0, latest / 1e6 - newest.now().timestamp()))
            print(f"SQLite {sqlite3.sqlite_version}; {len(queries)} queries")
            for label in ("as kept", "rebuilt into one segment"):
                if label != "as kept":
                    await store.transaction(fts_index.rebuild)
                structure = await store.read(fts_index.read_structure)
                times = await _timed(store, queries)
                print(f"{label:<26} p50 {_pct(times, 0.5):>7} ms  p95 {_pct(times, 0.95):>7} ms"
                      f"  ({structure})")
        finally:
            await store.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    asyncio.run(main(Path(sys.argv[1])))
