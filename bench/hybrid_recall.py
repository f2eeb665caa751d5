"""Hybrid recall's cost: embedding, recall latency with the question's embedding, footprint.

One run, side by side on the same store file:
- keyword recall (`MemoryStore` without an embedder: FTS5 BM25) and hybrid recall (the
  bundled multilingual-e5-small: the question's embedding, then BM25 and the cosine
  fused), through the async API, on `--size` generated memory statements
  (bench/memory_corpus.py) with 200 labelled questions; each question is new to the
  store, so every hybrid recall includes its question's embedding (p50/p95 and
  recall@5 for both);
- the model alone: ms per question embedding (p50/p95), ms per memory when the store
  embeds in its batches of 8, and the process's peak RSS after loading it;
- footprint: the database's bytes before and after the vectors, per memory; and, with
  random unit vectors instead of embeddings (the model would take about 15 minutes for
  them), the bytes and the dense search's cost at 100,000 memories.

Usage:
    .venv/bin/python bench/hybrid_recall.py                 # 10,000 memories
    .venv/bin/python bench/hybrid_recall.py --size 2000     # quicker
    .venv/bin/python bench/hybrid_recall.py --db /tmp/h.db --question-threads 1
        # keep the generated store for the next run; the question on one thread
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_corpus import generate, queries
from recall import build, pct, recall_at_k

from companion_memory.memory import E5_SMALL, MemoryStore
from companion_memory.memory.embedding import QUESTION_THREADS, shared_embedder
from companion_memory.memory.vectors import VectorIndex, quantize

K = 5


def db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


async def run(size: int, n_queries: int, tmp: Path, db: Path | None,
              question_threads: int) -> dict[str, float]:
    embedder = shared_embedder(E5_SMALL, question_threads=question_threads)
    assert embedder is not None
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    corpus = generate(size)
    labeled = queries(corpus, n_queries)
    path = db or tmp / "hybrid.db"
    built = db is not None and path.exists()
    if not built:
        plain = await MemoryStore.open(path)
        await build(plain, corpus)
        await plain.close()
    before = db_bytes(path)
    store = await MemoryStore.open(path, embedder=embedder)
    start = time.perf_counter()
    embedded = await store.index_vectors(max_rows=size)
    embed_s = time.perf_counter() - start
    if built:  # a kept store: its vectors were written when it was built
        embedded, embed_s, before = size, float("nan"), float("nan")
    await store.close()
    plain = await MemoryStore.open(path)
    kw_ms, kw_r = [], []
    for query, expected in labeled:
        t = time.perf_counter()
        hits = await plain.recall(query.text, limit=K)
        kw_ms.append((time.perf_counter() - t) * 1000)
        kw_r.append(recall_at_k([h.record.memory_id for h in hits], expected))
    await plain.close()
    store = await MemoryStore.open(path, embedder=embedder)
    await store.recall("warm up the vector index", limit=K)
    hy_ms, hy_r = [], []
    for query, expected in labeled:
        t = time.perf_counter()
        hits = await store.recall(query.text, limit=K)
        hy_ms.append((time.perf_counter() - t) * 1000)
        hy_r.append(recall_at_k([h.record.memory_id for h in hits], expected))
    after = db_bytes(path)
    await store.close()
    q_ms = []
    for query, _ in labeled:
        t = time.perf_counter()
        await asyncio.to_thread(embedder.query, query.text + " ?")  # not in the cache
        q_ms.append((time.perf_counter() - t) * 1000)
    return {
        "size": size, "queries": len(labeled), "embedded": embedded,
        "embed_ms_per_memory": embed_s * 1000 / max(1, embedded),
        "query_embed_p50": statistics.median(q_ms), "query_embed_p95": pct(q_ms, 0.95),
        "kw_p50": statistics.median(kw_ms), "kw_p95": pct(kw_ms, 0.95),
        "hy_p50": statistics.median(hy_ms), "hy_p95": pct(hy_ms, 0.95),
        "kw_r5": statistics.mean(kw_r), "hy_r5": statistics.mean(hy_r),
        "vector_bytes_per_memory": (after - before) / max(1, embedded),
        "rss_mib_after_model": rss_mib,
    }


def random_index(n: int, dim: int) -> tuple[float, float]:
    """(MB the int8 rows and scales take, median ms of one dense search) at `n` vectors."""
    rng = np.random.default_rng(3)
    index = VectorIndex("random", dim)
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    blobs, scales = quantize(vecs)
    index._rows = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(n, dim)
    index._scales = np.array(scales, dtype=np.float32)
    index._rowids = np.arange(n, dtype=np.int64)
    index._ids = np.arange(n, dtype=np.int64)
    times = []
    for _ in range(20):
        q = vecs[rng.integers(n)]
        t = time.perf_counter()
        index.best(q, 30)
        times.append((time.perf_counter() - t) * 1000)
    return (index._rows.nbytes + index._scales.nbytes) / 1e6, statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--question-threads", type=int, default=QUESTION_THREADS,
                        help="threads a question is embedded on (the product's default: "
                        f"{QUESTION_THREADS})")
    parser.add_argument("--db", type=Path, help="keep the generated store here (reused "
                        "when it exists: the same --size, built by this script)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(run(args.size, args.queries, Path(tmp), args.db,
                            args.question_threads))
    mb, search_ms = random_index(100_000, 384)
    print(f"memories {r['size']}, questions {r['queries']} (each new to the store)")
    print(f"| measure | keyword (BM25) | hybrid, question on {args.question_threads} "
          "thread(s) |\n|---|---:|---:|")
    print(f"| recall p50 / p95 ms | {r['kw_p50']:.2f} / {r['kw_p95']:.2f} | "
          f"{r['hy_p50']:.2f} / {r['hy_p95']:.2f} |")
    print(f"| question embedding p50 / p95 ms | | {r['query_embed_p50']:.1f} / "
          f"{r['query_embed_p95']:.1f} |")
    print(f"| recall@5 | {r['kw_r5']:.3f} | {r['hy_r5']:.3f} |")
    print(f"\nstore embedding: {r['embed_ms_per_memory']:.1f} ms "
          f"per memory (batches of 8); peak RSS after loading the model: "
          f"{r['rss_mib_after_model']:.0f} MiB")
    print(f"vectors on disk: {r['vector_bytes_per_memory']:.0f} bytes per memory "
          f"(about {r['vector_bytes_per_memory'] * 100_000 / 1e6:.0f} MB at 100,000)")
    print(f"100,000 random unit vectors in memory: {mb:.1f} MB; one dense search: "
          f"{search_ms:.1f} ms (median of 20)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
