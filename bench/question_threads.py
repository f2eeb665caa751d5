"""Why a question's embedding runs on two threads the way it does (docs/benchmarks.md,
"Question threads"): ms per question (median of `--n`), each variant measured in turns
with its counterpart in one process, on the bundled multilingual-e5-small.

- wait policy: one thread against two, with OpenMP's helpers sleeping between the
  model's steps (`OMP_WAIT_POLICY=PASSIVE`) and with the product's brief spin
  (`GOMP_SPINCOUNT=1000`); OpenMP reads these once, so each runs in its own process;
- BLAS: a two-thread question right after a dense pass done with `int8 @ query`
  (OpenBLAS's thread pool) against one done with numpy's `einsum` loop (the product's),
  each in its own phase;
- callers: the product's embedder, which asks every question from one thread of its
  own, against two-thread questions asked from a pool of four threads, each with its
  own OpenMP team (measured last: the teams stay for the process).

Usage:
    .venv/bin/python bench/question_threads.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

QUESTIONS = ("when is my dentist appointment", "what did Anna say about dinner on Friday",
             "Wann ist mein Zahnarzttermin?", "明日の予定は",
             "who sent the package tracking number",
             "what time is the flight to Berlin tomorrow morning")


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def child(n: int) -> dict[str, float]:
    import numpy as np

    from companion_memory.memory.embedding import E5Embedder

    one = E5Embedder(threads=1, question_threads=1)
    two = E5Embedder(threads=1, question_threads=2)
    one.load()
    two.load()
    times: dict[str, list[float]] = {k: [] for k in (
        "one", "two", "after_blas", "after_einsum", "pool", "own_thread")}

    def timed(key: str, call: object, text: str) -> None:
        start = time.perf_counter()
        call(text)  # type: ignore[operator]
        times[key].append((time.perf_counter() - start) * 1000)

    rng = np.random.default_rng(1)
    rows = rng.integers(-127, 127, (10_000, 384), dtype=np.int8)
    vector = rng.standard_normal(384).astype(np.float32)
    model = two._loaded()
    texts = [f"{QUESTIONS[i % len(QUESTIONS)]} {i}" for i in range(n)]
    for i, text in enumerate(texts):
        for key, embedder in (("one", one), ("two", two)) if i % 2 else \
                (("two", two), ("one", one)):
            timed(key, embedder.query, text + " a")
    # in phases, not in turns: OpenBLAS's threads spin for about 0.1 s after a product
    for text in texts:
        np.einsum("ij,j->i", rows, vector, dtype=np.float32)
        timed("after_einsum", two.query, text + " c")
    for text in texts:
        rows.astype(np.float32) @ vector
        timed("after_blas", two.query, text + " b")
    time.sleep(1)
    for text in texts:
        timed("own_thread", two.query, text + " e")
    # last: once a pool of callers made its OpenMP teams they stay for the process
    pool = ThreadPoolExecutor(4)
    for i in range(n):
        text = f"{QUESTIONS[i % len(QUESTIONS)]} {i} d"
        start = time.perf_counter()
        pool.submit(two._question, model, text).result()
        times["pool"].append((time.perf_counter() - start) * 1000)
    pool.shutdown()
    return {key: _median(values) for key, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=60, help="questions per variant")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.n)))
        return 0
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("OMP_", "GOMP_"))}
    results = {}
    for label, extra in (("PASSIVE", {"OMP_WAIT_POLICY": "PASSIVE"}),
                         ("GOMP_SPINCOUNT=1000 (default)", {})):
        out = subprocess.run([sys.executable, __file__, "--child", "--n", str(args.n)],
                             env={**base, **extra}, capture_output=True, text=True,
                             check=True)
        results[label] = json.loads(out.stdout.strip().splitlines()[-1])
    print("ms per question (median)")
    print("| OpenMP wait | 1 thread | 2 threads | 2 after int8 @ q (BLAS) | "
          "2 after einsum | 2 from a pool of 4 callers | 2 from the embedder's thread |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, r in results.items():
        print(f"| {label} | {r['one']} | {r['two']} | {r['after_blas']} | "
              f"{r['after_einsum']} | {r['pool']} | {r['own_thread']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
