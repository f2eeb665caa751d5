"""Pruned recall equals exhaustive BM25: same top-k as `ORDER BY bm25()` over every match.

The index holds `search_text(text)` (hyphenated words also joined), and both sides query
it with the same `query_terms`; the corpus has hyphenated words so joined terms are in it.
"""

from __future__ import annotations

import random
import sqlite3
from functools import partial

import pytest

from companion_memory.memory import MemoryStore
from companion_memory.memory.recall import match_expression, query_terms
from tests.memory.helpers import create

COMMON = ["meeting", "bill", "euros", "due", "birthday", "parcel"]
RARE = [f"name{i}" for i in range(60)]
COMPOUND = ["wi-fi", "e-mail", "check-in"]  # indexed as parts and joined


def corpus(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        words = rng.sample(COMMON, rng.randint(1, 3)) + rng.sample(RARE, rng.randint(0, 2))
        words += rng.choices(COMMON + RARE, k=rng.randint(0, 6))  # repeats: tf > 1, long rows
        words += rng.sample(COMPOUND, 1) if rng.random() < 0.2 else []
        rng.shuffle(words)
        texts.append(" ".join(words))
    return texts


def exhaustive(conn: sqlite3.Connection, query: str, limit: int) -> list[tuple[str, float]]:
    rows = conn.execute(
        "SELECT m.memory_id, bm25(memories_fts) FROM memories_fts JOIN memories AS m "
        "ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? "
        "ORDER BY bm25(memories_fts) LIMIT ?",
        (match_expression(query_terms(query)), limit),
    ).fetchall()
    return [(str(mid), -float(score)) for mid, score in rows]


def assert_same_top(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [round(s, 9) for _, s in got] == [round(s, 9) for _, s in want]
    cut = want[-1][1] if want else 0.0  # rows tied with the k-th may come in any order
    assert {m for m, s in got if s > cut + 1e-9} == {m for m, s in want if s > cut + 1e-9}


@pytest.mark.parametrize("seed", [1, 2])
async def test_recall_equals_exhaustive_bm25(store: MemoryStore, seed: int) -> None:
    texts = corpus(seed, 400)
    await store.apply([create(f"m{i}", t) for i, t in enumerate(texts)])
    rng = random.Random(seed + 100)
    queries = [" ".join(rng.sample(COMMON, 2) + rng.sample(RARE, 1)) for _ in range(25)]
    queries += [" ".join(rng.sample(COMMON, 3)) for _ in range(10)]
    queries += [f"{rng.choice(RARE)} {rng.choice(RARE)} {rng.choice(COMMON)}" for _ in range(10)]
    queries += [f"{c} {rng.choice(COMMON)}" for c in COMPOUND]  # parts + joined form
    queries += [f"{c.replace('-', '')} {rng.choice(RARE)}" for c in COMPOUND]  # joined only
    assert await store.read(partial(exhaustive, query="wifi", limit=1))  # joined form indexed
    for round_ in range(2):
        for query in queries:
            for limit in (1, 5):
                hits = await store.recall(query, limit=limit)
                got = [(h.record.memory_id, h.score) for h in hits]
                want = await store.read(partial(exhaustive, query=query, limit=limit))
                assert_same_top(got, want)
        # a write changes N, document counts and ceilings: cached figures must not survive
        more = corpus(seed + 50, 150)
        await store.apply([create(f"n{round_}-{i}", t) for i, t in enumerate(more)])


async def test_comparison_can_fail(store: MemoryStore) -> None:
    await store.apply([create("a", "name1 meeting"), create("b", "meeting bill")])
    want = await store.read(lambda c: exhaustive(c, "name1 meeting", 2))
    with pytest.raises(AssertionError):
        assert_same_top(list(reversed(want)), want)
