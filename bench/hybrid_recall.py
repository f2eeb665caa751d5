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
from companion_memory.memory.embedding import shared_embedder
from companion_memory.memory.vectors import VectorIndex, quantize

K = 5


def db_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


async def run(size: int, n_queries: int, tmp: Path, db: Path | None) -> dict[str, float]:
    embedder = shared_embedder(E5_SMALL, question_threads=1)
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
    # the question on one thread and on two, question by question in turns (the same
    # machine load for both); each store embeds every question anew
    two = shared_embedder(E5_SMALL, question_threads=2)
    stores = {1: await MemoryStore.open(path, embedder=embedder),
              2: await MemoryStore.open(path, embedder=two)}
    for opened in stores.values():
        await opened.recall("warm up the vector index", limit=K)
    hy_ms: dict[int, list[float]] = {1: [], 2: []}
    hy_r: dict[int, list[float]] = {1: [], 2: []}
    for n, (query, expected) in enumerate(labeled):
        for threads in ((1, 2) if n % 2 else (2, 1)):
            t = time.perf_counter()
            hits = await stores[threads].recall(query.text, limit=K)
            hy_ms[threads].append((time.perf_counter() - t) * 1000)
            hy_r[threads].append(recall_at_k([h.record.memory_id for h in hits], expected))
    after = db_bytes(path)
    for opened in stores.values():
        await opened.close()
    q_ms: dict[int, list[float]] = {1: [], 2: []}
    for n, (query, _) in enumerate(labeled):
        for threads, model in ((1, embedder), (2, two)) if n % 2 else ((2, two), (1, embedder)):
            t = time.perf_counter()
            model.query(query.text + " ?")  # not in the store's cache
            q_ms[threads].append((time.perf_counter() - t) * 1000)
    return {
        "size": size, "queries": len(labeled), "embedded": embedded,
        "embed_ms_per_memory": embed_s * 1000 / max(1, embedded),
        **{f"query_embed_p50_{t}": statistics.median(q_ms[t]) for t in (1, 2)},
        **{f"query_embed_p95_{t}": pct(q_ms[t], 0.95) for t in (1, 2)},
        "kw_p50": statistics.median(kw_ms), "kw_p95": pct(kw_ms, 0.95),
        **{f"hy_p50_{t}": statistics.median(hy_ms[t]) for t in (1, 2)},
        **{f"hy_p95_{t}": pct(hy_ms[t], 0.95) for t in (1, 2)},
        "kw_r5": statistics.mean(kw_r),
        **{f"hy_r5_{t}": statistics.mean(hy_r[t]) for t in (1, 2)},
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
    parser.add_argument("--db", type=Path, help="keep the generated store here (reused "
                        "when it exists: the same --size, built by this script)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        r = asyncio.run(run(args.size, args.queries, Path(tmp), args.db))
    mb, search_ms = random_index(100_000, 384)
    print(f"memories {r['size']}, questions {r['queries']} (each new to the store)")
    print("| measure | keyword (BM25) | hybrid, question on 1 thread | "
          "hybrid, question on 2 threads (default) |\n|---|---:|---:|---:|")
    print(f"| recall p50 / p95 ms | {r['kw_p50']:.2f} / {r['kw_p95']:.2f} | "
          f"{r['hy_p50_1']:.2f} / {r['hy_p95_1']:.2f} | "
          f"{r['hy_p50_2']:.2f} / {r['hy_p95_2']:.2f} |")
    print(f"| question embedding p50 / p95 ms | | {r['query_embed_p50_1']:.1f} / "
          f"{r['query_embed_p95_1']:.1f} | {r['query_embed_p50_2']:.1f} / "
          f"{r['query_embed_p95_2']:.1f} |")
    print(f"| recall@5 | {r['kw_r5']:.3f} | {r['hy_r5_1']:.3f} | {r['hy_r5_2']:.3f} |")
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
