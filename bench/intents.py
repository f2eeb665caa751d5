"""Intent apply throughput: batches of 10 intents with receipts and a cursor advance,
through `MemoryStore.apply` (async API, store thread, WAL + synchronous=FULL), against
a raw SQLite floor (10-row executemany INSERT per transaction, same pragmas, same run).

    .venv/bin/python bench/intents.py --write
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_corpus import generate
from memory_docs import update_subsection

from companion_memory.memory import (
    Authority,
    CursorAdvance,
    IntentOp,
    Kind,
    MemoryIntent,
    MemoryStore,
    SourceKind,
    SourceRef,
    Tier,
)

BATCH = 10


def raw_floor(path: Path, texts: list[str]) -> list[float]:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE t (id TEXT PRIMARY KEY, text TEXT NOT NULL)")
    out = []
    for b in range(0, len(texts), BATCH):
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany("INSERT INTO t VALUES (?, ?)",
                         [(f"r{b + i}", t) for i, t in enumerate(texts[b:b + BATCH])])
        conn.execute("COMMIT")
        out.append(time.perf_counter() - start)
    conn.close()
    return out


async def store_batches(path: Path, texts: list[str], op: str) -> list[float]:
    store = await MemoryStore.open(path)
    src = (SourceRef(SourceKind.CONTEXT, "1"),)
    out = []
    try:
        for b in range(0, len(texts), BATCH):
            intents = [
                MemoryIntent(op=IntentOp.CREATE, memory_id=f"m{b + i}", tier=Tier.LONG_TERM,
                             kind=Kind.FACT, text=t, authority=Authority.INFERENCE, sources=src)
                if op == "create" else
                MemoryIntent(op=IntentOp.REINFORCE, memory_id=f"m{b + i}", expected_revision=1,
                             sources=(SourceRef(SourceKind.CONTEXT, "2"),))
                for i, t in enumerate(texts[b:b + BATCH])
            ]
            base = 0 if op == "create" else len(texts)
            cursor = CursorAdvance("bench", base + b, base + b + BATCH)
            start = time.perf_counter()
            await store.apply(intents, cursor=cursor, receipt=f"{op}-{b}")
            out.append(time.perf_counter() - start)
    finally:
        await store.close()
    return out


def row(name: str, times: list[float], floor: float) -> str:
    per_s = BATCH * len(times) / sum(times)
    return (f"| {name} | {len(times)} | {statistics.median(times) * 1000:.2f} | "
            f"{sorted(times)[int(0.95 * (len(times) - 1))] * 1000:.2f} | {per_s:,.0f} | "
            f"{per_s / floor:.2f} |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    texts = [m.text for m in generate(args.batches * BATCH)]
    with tempfile.TemporaryDirectory() as tmp:
        floor_t = await asyncio.to_thread(raw_floor, Path(tmp) / "raw.db", texts)
        create_t = await store_batches(Path(tmp) / "store.db", texts, "create")
        reinforce_t = await store_batches(Path(tmp) / "store.db", texts, "reinforce")
    floor = BATCH * len(floor_t) / sum(floor_t)
    command = "python bench/intents.py " + " ".join(sys.argv[1:])
    text = "\n".join([
        f"Command: `{command.strip()}` (2-vCPU shared VM; one fsync'd WAL commit per batch; "
        "store batches carry a receipt and a cursor advance; the floor is a plain 10-row "
        "executemany INSERT per transaction with the same pragmas, measured in the same run).",
        "",
        "| path | batches of 10 | p50 ms/batch | p95 ms/batch | intents/s | vs raw floor |",
        "|---|---|---|---|---|---|",
        row("raw SQLite INSERT floor", floor_t, floor),
        row("MemoryStore.apply create", create_t, floor),
        row("MemoryStore.apply reinforce (CAS)", reinforce_t, floor),
    ])
    print(text)
    if args.write:
        update_subsection("### Intent apply throughput", text)


if __name__ == "__main__":
    asyncio.run(main())
