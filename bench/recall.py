"""Recall latency and quality: MemoryStore (SQLite FTS5 BM25) against rank_bm25.

Builds corpora of 1k, 10k and 100k generated memory statements, runs the same
labeled queries through `MemoryStore.recall` (the async API, including the hop
to the store thread), through the bare SQL search on the store thread, and
through `rank_bm25.BM25Okapi` with the same tokenizer and stopwords. Prints a
markdown table; `--write` puts it into docs/benchmarks.md.

    .venv/bin/python bench/recall.py --write
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_corpus import Memory, generate, hard_queries, queries
from memory_docs import update_subsection

from companion_memory.memory import MemoryStore, Tier, normalize_text
from companion_memory.memory.recall import RecallCache, query_terms, search
from companion_memory.memory.records import SourceKind, SourceRef
from companion_memory.memory.rows import sources_to_json, to_us

K = 5



def speedup(ratio: float) -> str:
    """Format a speed-up; below 10x keep one decimal so 0.5x does not print as 0x."""
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.1f}x"

def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def recall_at_k(found: list[str], expected: set[str]) -> float:
    return len(set(found[:K]) & expected) / min(len(expected), K)


async def build(store: MemoryStore, corpus: list[Memory]) -> float:
    now_us = to_us(store.now())
    src = sources_to_json([SourceRef(SourceKind.CONTEXT, "1")])
    rows = [
        (m.memory_id, "long_term", "fact", m.text, normalize_text(m.text), "inference", src,
         now_us, now_us, None, "active", 0)
        for m in corpus
    ]

    def insert(conn):  # type: ignore[no-untyped-def]
        conn.executemany(
            "INSERT INTO memories (memory_id, revision, tier, kind, text, norm, authority, "
            "sources, created_us, updated_us, expires_us, reinforced, status, auto) "
            "VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)",
            rows,
        )

    start = time.perf_counter()
    await store.transaction(insert)
    return time.perf_counter() - start


async def run_size(size: int, n_queries: int, tmp: Path) -> dict[str, float]:
    corpus = generate(size)
    labeled = queries(corpus, n_queries)
    hard = hard_queries(corpus, n_queries)
    store = await MemoryStore.open(tmp / f"recall-{size}.db")
    try:
        build_s = await build(store, corpus)
        api_ms: list[float] = []
        ours_recall: list[float] = []
        for _ in range(2):  # warm-up pass, then measured pass
            api_ms.clear()
            ours_recall.clear()
            for query, expected in labeled:
                start = time.perf_counter()
                hits = await store.recall(query.text, limit=K)
                api_ms.append((time.perf_counter() - start) * 1000)
                ours_recall.append(recall_at_k([h.record.memory_id for h in hits], expected))
        ours_hard = []
        for query, expected in hard:
            hits = await store.recall(query.text, limit=K)
            ours_hard.append(recall_at_k([h.record.memory_id for h in hits], expected))
        now_us = to_us(store.now())
        cache = RecallCache()

        def sql_only(conn):  # type: ignore[no-untyped-def]
            out: list[float] = []
            for _ in range(2):  # warm-up pass fills the cache, as the API pass did
                out.clear()
                for query, _ in labeled:
                    start = time.perf_counter()
                    search(conn, query_terms(query.text), now_us=now_us,
                           tiers=(Tier.TEMPORARY, Tier.LONG_TERM), limit=K,
                           cache=cache, generation=0)
                    out.append((time.perf_counter() - start) * 1000)
            return out

        sql_ms = await store.read(sql_only)
    finally:
        await store.close()

    start = time.perf_counter()
    ids = [m.memory_id for m in corpus]
    bm25 = BM25Okapi([query_terms(m.text) for m in corpus])
    bm25_build = time.perf_counter() - start
    bm_ms: list[float] = []
    bm_recall: list[float] = []
    for query, expected in labeled:
        start = time.perf_counter()
        scores = bm25.get_scores(query_terms(query.text))
        top = np.argpartition(-scores, K)[:K]
        top = top[np.argsort(-scores[top])]
        bm_ms.append((time.perf_counter() - start) * 1000)
        bm_recall.append(recall_at_k([ids[i] for i in top], expected))
    bm_hard = []
    for query, expected in hard:
        scores = bm25.get_scores(query_terms(query.text))
        top = np.argpartition(-scores, K)[:K]
        top = top[np.argsort(-scores[top])]
        bm_hard.append(recall_at_k([ids[i] for i in top], expected))
    return {
        "size": size, "queries": len(labeled), "build_s": build_s, "bm25_build_s": bm25_build,
        "api_p50": statistics.median(api_ms), "api_p95": pct(api_ms, 0.95),
        "sql_p50": statistics.median(sql_ms), "sql_p95": pct(sql_ms, 0.95),
        "bm_p50": statistics.median(bm_ms), "bm_p95": pct(bm_ms, 0.95),
        "ours_r5": statistics.mean(ours_recall), "bm_r5": statistics.mean(bm_recall),
        "hard": len(hard), "ours_hard": statistics.mean(ours_hard),
        "bm_hard": statistics.mean(bm_hard),
    }


def table(results: list[dict[str, float]], command: str) -> str:
    lines = [
        f"Command: `{command}` (2-vCPU shared VM, Python 3.11, SQLite 3.40.1; corpus and "
        "labeled queries from bench/memory_corpus.py; latency of `MemoryStore.recall(q, "
        "limit=5)` through the async API incl. the store-thread hop, and of the bare SQL "
        "search on the store thread; rank_bm25 `BM25Okapi.get_scores` + top-5 with the same "
        "tokenizer/stopwords, same queries, same run). Hard queries (`hard_queries`: a "
        "first name or surname plus a word in ~1/8 of all statements) are scored for "
        "recall only.",
        "",
        "| memories | queries | store p50 / p95 ms (API) | SQL p50 / p95 ms | rank_bm25 p50 / "
        "p95 ms | speed-up p50 / p95 (API) | recall@5 store / rank_bm25 | hard queries | "
        "hard recall@5 store / rank_bm25 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {int(r['size']):,} | {int(r['queries'])} | {r['api_p50']:.3f} / {r['api_p95']:.3f}"
            f" | {r['sql_p50']:.3f} / {r['sql_p95']:.3f} | {r['bm_p50']:.2f} / {r['bm_p95']:.2f}"
            f" | {speedup(r['bm_p50'] / r['api_p50'])} / {speedup(r['bm_p95'] / r['api_p95'])}"
            f" | {r['ours_r5']:.3f} / {r['bm_r5']:.3f} | {int(r['hard'])}"
            f" | {r['ours_hard']:.3f} / {r['bm_hard']:.3f} |"
        )
    lines.append("")
    lines.append(
        "Targets: p95 at 10k < 2 ms, at 100k < 20 ms, >= 10x faster than rank_bm25 at equal "
        "or better recall@5. Build (one executemany transaction incl. FTS triggers): "
        + ", ".join(f"{int(r['size']):,}: {r['build_s']:.2f} s" for r in results)
        + "; rank_bm25 index build: "
        + ", ".join(f"{int(r['size']):,}: {r['bm25_build_s']:.2f} s" for r in results) + "."
    )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            result = await run_size(size, args.queries, Path(tmp))
            print(f"{size}: {result}", file=sys.stderr)
            results.append(result)
    command = "python bench/recall.py " + " ".join(sys.argv[1:])
    text = table(results, command.strip())
    print(text)
    if args.write:
        update_subsection("### Recall (FTS5 BM25 vs rank_bm25)", text)


if __name__ == "__main__":
    asyncio.run(main())
