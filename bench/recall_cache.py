"""Recall latency with the statistics cache keyed on the file's write mark (now) against
the cache keyed on the store's own write counter only (before), same corpus, same run.

`memory.recall.RecallCache` is now dropped when `PRAGMA data_version` or the
connection's `total_changes` moves (`write_mark`); before, only this store's own
write counter dropped it, so writes by another store or process were never seen.
Three measurements, the two caches alternating query by query on one store:

1. steady: nothing is written; `MemoryStore.recall(q, limit=5)` through the async
   API (incl. the store-thread hop), and the bare `search` on the store thread.
2. other writer: a second store on the file writes one memory before each query;
   the new cache rebuilds each time, the old one keeps its figures. Reported with
   how many top-5 answers differ from an exhaustive reference.

    .venv/bin/python bench/recall_cache.py --sizes 10000,100000 --queries 200
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_corpus import generate, queries

from companion_memory.memory import MemoryStore, Tier, normalize_text
from companion_memory.memory.recall import (
    RecallCache,
    _indexed_rows,
    match_expression,
    query_terms,
    search,
)
from companion_memory.memory.records import SourceKind, SourceRef
from companion_memory.memory.rows import sources_to_json, to_us

K = 5
TIERS = (Tier.TEMPORARY, Tier.LONG_TERM)


class OwnWritesOnlyCache(RecallCache):
    """The cache as it was: dropped only when the caller's generation (the store's own
    write counter) changes. Nothing is written by this store during a measurement, so
    the generation is constant: the figures are built once and then kept."""

    def __init__(self) -> None:
        super().__init__()
        self._built = False

    def refresh(self, conn: sqlite3.Connection, generation: int | None = None) -> None:
        if not self._built:
            self._dfs.clear()
            self._ceilings.clear()
            self.n_docs = _indexed_rows(conn)
            self._built = True
            self.rebuilds += 1


async def fill(store: MemoryStore, texts: Sequence[tuple[str, str]]) -> None:
    now_us = to_us(store.now())
    src = sources_to_json([SourceRef(SourceKind.CONTEXT, "1")])
    rows = [
        (mid, "long_term", "fact", text, normalize_text(text), "inference", src,
         now_us, now_us, None, "active", 0)
        for mid, text in texts
    ]

    def insert(conn: sqlite3.Connection) -> None:
        conn.executemany(
            "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, "
            "sources, created_us, updated_us, expires_us, reinforced, status, auto) "
            "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
            rows,
        )

    await store.transaction(insert)


def exact(conn: sqlite3.Connection, terms: list[str]) -> list[float]:
    """The top-K scores of the plain OR query over every matching row (ties compare
    equal whichever row comes first)."""
    rows = conn.execute(
        "SELECT -bm25(memories_fts) FROM memories_fts JOIN memories AS m"
        " ON m.rowid = memories_fts.rowid"
        " WHERE memories_fts MATCH ? AND m.status = 'active' ORDER BY bm25(memories_fts)"
        " LIMIT ?",
        (match_expression(terms), K),
    ).fetchall()
    return [round(float(r[0]), 9) for r in rows]


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


async def run_size(size: int, n_queries: int, tmp: Path) -> dict[str, float]:
    corpus = generate(size + n_queries)
    base, extra = corpus[:size], corpus[size:]
    labeled = [q.text for q, _ in queries(base, n_queries)]
    path = tmp / f"cache-{size}.db"
    reader = await MemoryStore.open(path, newer_within=0)  # plain BM25 order: comparable
    writer = await MemoryStore.open(path)
    caches: dict[str, RecallCache] = {"before": OwnWritesOnlyCache(), "after": RecallCache()}
    try:
        await fill(writer, [(m.memory_id, m.text) for m in base])
        api: dict[str, list[float]] = {"before": [], "after": []}
        sql: dict[str, list[float]] = {"before": [], "after": []}
        for measured in (False, True):  # a warm-up pass fills both caches
            for query in labeled:
                for mode in ("before", "after"):
                    reader._recall_cache = caches[mode]
                    start = time.perf_counter()
                    await reader.recall(query, limit=K)
                    if measured:
                        api[mode].append(time.perf_counter() - start)
        now_us = to_us(reader.now())

        def bare(conn: sqlite3.Connection) -> None:
            for query in labeled:
                terms = query_terms(query)
                for mode in ("before", "after"):
                    start = time.perf_counter()
                    search(conn, terms, now_us=now_us, tiers=TIERS, limit=K, cache=caches[mode])
                    sql[mode].append(time.perf_counter() - start)

        await reader.read(bare)
        steady_rebuilds = {mode: caches[mode].rebuilds for mode in caches}

        written: dict[str, list[float]] = {"before": [], "after": []}
        wrong = {"before": 0, "after": 0}
        for i, query in enumerate(labeled):
            terms = query_terms(query)
            for mode in ("before", "after"):
                memory = extra[(2 * i + (mode == "after")) % len(extra)]
                await fill(writer, [(f"w{mode}{i}", memory.text)])
                reader._recall_cache = caches[mode]
                start = time.perf_counter()
                hits = await reader.recall(query, limit=K)
                written[mode].append(time.perf_counter() - start)
                reference = await reader.read(lambda conn, t=terms: exact(conn, t))
                if [round(h.score, 9) for h in hits] != reference:
                    wrong[mode] += 1
    finally:
        await writer.close()
        await reader.close()
    return {
        "size": size, "queries": len(labeled),
        "api_before": ms(api["before"]), "api_after": ms(api["after"]),
        "sql_before": ms(sql["before"]), "sql_after": ms(sql["after"]),
        "steady_rebuilds_after": steady_rebuilds["after"],
        "written_before": ms(written["before"]), "written_after": ms(written["after"]),
        "wrong_before": wrong["before"], "wrong_after": wrong["after"],
    }


def table(results: list[dict[str, float]], command: str) -> str:
    lines = [
        f"Command: `{command}`",
        "",
        "| memories | queries | steady API p50 ms before / after (ratio) | steady SQL p50 ms "
        "before / after (ratio) | another writer before each query: API p50 ms before / "
        "after (ratio) | top-5 differing from exhaustive BM25, before / after |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {int(r['size']):,} | {int(r['queries'])} "
            f"| {r['api_before']:.3f} / {r['api_after']:.3f} "
            f"({r['api_after'] / r['api_before']:.2f}x) "
            f"| {r['sql_before']:.3f} / {r['sql_after']:.3f} "
            f"({r['sql_after'] / r['sql_before']:.2f}x) "
            f"| {r['written_before']:.3f} / {r['written_after']:.3f} "
            f"({r['written_after'] / r['written_before']:.2f}x) "
            f"| {int(r['wrong_before'])} / {int(r['wrong_after'])} |"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            result = await run_size(size, args.queries, Path(tmp))
            print(f"{size}: {result}", file=sys.stderr)
            results.append(result)
    print(table(results, ("python bench/recall_cache.py " + " ".join(sys.argv[1:])).strip()))


if __name__ == "__main__":
    asyncio.run(main())
