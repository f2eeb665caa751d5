"""`batch_context` / `related_many` (one job per batch) against per-item lookups.

Reference: for each text, the MATCH `related_expression` chooses, ranked exhaustively
with `ORDER BY bm25()` over every live row in the tiers. Documented differences: rows
tied on BM25 may come in any order (the store puts the newest first); a lookup that may
match more than RELATED_WINDOW rows ranks only the newest RELATED_WINDOW matches; when
even the rarest term is common (AND of the two rarest) the newest live matches come
unranked. Against `related()` (BM25 over all query terms): every batched record shares
an indexed term with its text, and a text `related()` finds nothing for gets nothing.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from functools import partial

import pytest

from companion_memory.memory import MemoryStore
from companion_memory.memory.recall import (
    RELATED_POSTINGS,
    RELATED_WINDOW,
    RelatedQuery,
    _doc_freqs,
    query_terms,
    related_expression,
)
from companion_memory.memory.records import Kind, MemoryRecord, Tier
from tests.memory.helpers import create, remove

COMMON = ["dinner", "friday", "report", "budget", "parcel", "hiking"]
MID = ["lake", "slides"]  # ~140 rows each: over RELATED_WINDOW, within RELATED_POSTINGS
RARE = [f"name{i}" for i in range(80)]
LIVE = ("temporary", "long_term")


def corpus(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = rng.sample(COMMON, rng.randint(1, 3)) + rng.sample(RARE, rng.randint(0, 2))
        words += rng.choices(COMMON, k=rng.randint(0, 4))
        words += [rng.choice(MID)] if rng.random() < 0.4 else []
        rng.shuffle(words)
        out.append(" ".join(words))
    return out


def reference(conn: sqlite3.Connection, text: str, limit: int) -> tuple[list[tuple[str, float]],
                                                                        RelatedQuery | None]:
    """Per item: the chosen MATCH ranked exhaustively (newest first when `common`)."""
    terms = query_terms(text)
    choice = related_expression(terms, _doc_freqs(conn, terms)) if terms else None
    if choice is None:
        return [], None
    order = "m.rowid DESC" if choice.common else "bm25(memories_fts), m.rowid DESC"
    rows = conn.execute(
        "SELECT m.memory_id, bm25(memories_fts) FROM memories_fts JOIN memories AS m "
        "ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? AND m.status = 'active' "
        f"AND m.tier IN (?, ?) ORDER BY {order} LIMIT ?",
        (choice.match, *LIVE, limit),
    ).fetchall()
    return [(str(mid), -float(score)) for mid, score in rows], choice


def scores(conn: sqlite3.Connection, text: str, ids: list[str]) -> list[float]:
    terms = query_terms(text)
    choice = related_expression(terms, _doc_freqs(conn, terms))
    assert choice is not None
    by_id = dict(conn.execute(
        "SELECT m.memory_id, bm25(memories_fts) FROM memories_fts JOIN memories AS m "
        "ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ?", (choice.match,),
    ).fetchall())
    return [-float(by_id[i]) for i in ids]


def assert_same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [round(s, 9) for _, s in got] == [round(s, 9) for _, s in want]
    cut = want[-1][1] if want else 0.0  # rows tied with the k-th may differ
    assert {m for m, s in got if s > cut + 1e-9} == {m for m, s in want if s > cut + 1e-9}


def shares_term(text: str, record: MemoryRecord) -> bool:
    return bool(set(query_terms(text)) & set(query_terms(record.text)))


@pytest.mark.parametrize("seed", [3, 4])
async def test_batch_equals_per_item_ranking(store: MemoryStore, seed: int) -> None:
    texts = corpus(seed, 700)
    await store.apply([create(f"m{i}", t) for i, t in enumerate(texts)])
    await store.apply([create(f"d{i}", t, tier=Tier.DEVICE, kind=Kind.DEVICE_QUIRK)
                       for i, t in enumerate(texts[:50])])
    await store.apply([remove(f"m{i}", 1) for i in range(0, 700, 7)])  # not live
    rng = random.Random(seed + 1)
    queries = [f"{rng.choice(RARE)} {rng.choice(COMMON)} about it" for _ in range(20)]
    queries += [" ".join(rng.sample(COMMON, 2)) for _ in range(8)]  # AND of common terms
    queries += [f"{rng.choice(MID)} {rng.choice(COMMON)}" for _ in range(6)]  # windowed
    queries += [f"{rng.choice(RARE)} {rng.choice(RARE)}", "nothing matches here", "the of"]
    paths: Counter[str] = Counter()
    for limit in (1, 3, 5):
        batch = await store.batch_context(queries, limit=limit)
        assert len(batch.related) == len(queries)
        for text, records in zip(queries, batch.related, strict=True):
            want, choice = await store.read(partial(reference, text=text, limit=limit))
            plain = await store.related(text, limit=limit) if query_terms(text) else []
            assert all(shares_term(text, r) for r in records)
            assert all(r.tier in (Tier.TEMPORARY, Tier.LONG_TERM) for r in records)
            assert all(not r.memory_id.startswith("m") or int(r.memory_id[1:]) % 7
                       for r in records)
            if not plain:
                assert records == [] and choice is None
            ids = [r.memory_id for r in records]
            got = list(zip(ids, await store.read(partial(scores, text=text, ids=ids)),
                           strict=True)) if ids else []
            if choice is not None and choice.common:
                paths["common"] += 1
                assert ids == [m for m, _ in want]  # the newest live matches, in order
            elif choice is not None and choice.rows > RELATED_WINDOW:
                paths["window"] += 1
                # newest window only: as many rows, ranked, each no better than the best
                assert len(got) == len(want)
                assert all(s <= want[0][1] + 1e-9 for _, s in got)
                assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
            else:
                paths["exact"] += 1
                assert_same_ranking(got, want)
        assert batch.related == await store.related_many(queries, limit=limit)
    assert min(paths["common"], paths["window"], paths["exact"]) > 0, paths


async def test_lookups_rank_only_the_newest_window(store: MemoryStore) -> None:
    await store.apply([create("short", "lake")])  # the best BM25 for "lake", and the oldest
    await store.apply([create(f"a{i}", f"lake walk {i} plan") for i in range(RELATED_WINDOW)])
    await store.apply([create(f"c{i}", "dinner friday plan") for i in range(RELATED_POSTINGS)])
    batch = await store.batch_context(["lake", "dinner friday", "name1 nothing"], limit=2)
    newest = [f"a{RELATED_WINDOW - 1}", f"a{RELATED_WINDOW - 2}"]  # tied on BM25
    assert [r.memory_id for r in batch.related[0]] == newest
    assert next(r.memory_id for r in await store.related("lake", limit=2)) == "short"
    newest = [f"c{RELATED_POSTINGS - 1}", f"c{RELATED_POSTINGS - 2}"]
    assert [r.memory_id for r in batch.related[1]] == newest
    assert batch.related[2] == []
    assert batch.recent_rejections == []


async def test_batch_context_carries_recent_rejections(store: MemoryStore) -> None:
    await store.apply([create("x", "Likes jazz concerts")])
    await store.forget("x", "not true")
    batch = await store.batch_context(["jazz tonight"], limit=2)
    assert batch.related == [[]]
    assert batch.recent_rejections == await store.recent_rejections() == ["Likes jazz concerts"]


async def test_ranking_comparison_can_fail(store: MemoryStore) -> None:
    await store.apply([create("a", "name1 dinner"), create("b", "name1 dinner friday parcel")])
    want, choice = await store.read(partial(reference, text="name1", limit=2))
    assert choice is not None and not choice.common
    assert want[0][1] > want[1][1]
    with pytest.raises(AssertionError):
        assert_same_ranking(list(reversed(want)), want)


async def test_a_term_first_seen_absent_is_found_once_a_memory_holds_it(
    store: MemoryStore,
) -> None:
    # the first lookup counts "nina" and "41" as held by no row; the memory written next
    # must still be found by the next lookup (a cached count of 0 hid it before)
    text = "Nina Korrektur: die Hausnummer ist 14, nicht 41"
    first = await store.batch_context([text], limit=3)
    assert first.related == [[]]
    await store.apply([create("m-nina", "Nina's new address is Lindenweg 41, 10437 Berlin")])
    again = await store.batch_context([text], limit=3)
    assert [[r.memory_id for r in found] for found in again.related] == [["m-nina"]]
